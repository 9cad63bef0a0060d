// The page shell of /docs: the head with the one stylesheet, a skip link, the service's name,
// the nav of every guide and the API reference, then the guide. No script.
import { attr, html, type Html } from '../platform/index.ts';

export interface NavEntry {
  href: string;
  label: string;
}

export function docsPage(options: {
  title: string;
  stylesheet: string;
  nav: NavEntry[];
  current: string | null;
  main: Html;
}): string {
  const { title, stylesheet, nav, current, main } = options;
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Partner Ticketing API docs</title>
        <link rel="stylesheet" href="${stylesheet}" />
      </head>
      <body>
        <a class="skip" href="#content">Skip to content</a>
        <header class="top">
          <p><a href="/docs">Partner Ticketing API docs</a></p>
        </header>
        <div class="wrap">
          <nav aria-label="Guides">
            <ul>
              ${nav.map(
                (entry) =>
                  html`<li>
                    <a href="${entry.href}" ${attr('aria-current', entry.href === current ? 'page' : null)}
                      >${entry.label}</a
                    >
                  </li>`,
              )}
            </ul>
          </nav>
          <main id="content">${main}</main>
        </div>
      </body>
    </html>`.value
  }`;
}
