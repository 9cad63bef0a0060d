// The page shell every checkout page shares: head with our one stylesheet and one deferred
// script, the event header, the main region and the footer.
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import type { EventWithTickets } from '../../events/events.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_STYLES } from '../assets.ts';
import { formatDateTime, zoneLabel } from '../format.ts';
import { attr, html, type Html } from '../../platform/html.ts';

export interface LayoutOptions {
  title: string;
  main: Html;
  session?: CheckoutSessionRow | null;
  found?: EventWithTickets | null;
  /** extra elements for <head> (a <noscript> refresh) */
  head?: Html;
  /** the event header as one line (after the form's first step, and on the pages after the form) */
  compact?: boolean;
}

/** Only https covers are shown (the CSP allows https: images); anything else is left out. */
export function coverUrl(cover: string): string | null {
  return /^https:\/\/[^\s"'<>]+$/i.test(cover) ? cover : null;
}

export function eventHeader(found: EventWithTickets): Html {
  const { event } = found;
  const cover = coverUrl(event.cover);
  return html`<header class="event">
    ${cover ? html`<img class="cover" src="${cover}" alt="" width="640" height="280" decoding="async" />` : ''}
    <h1>${event.name}</h1>
    <p class="meta">
      <time datetime="${event.startsAt.toISOString()}"
        >${formatDateTime(event.startsAt, event.timezone)}</time
      >
      <span class="muted">(${zoneLabel(event.timezone, event.startsAt)})</span>
    </p>
    ${event.venue ? html`<p class="meta">${event.venue}</p>` : ''}
  </header>`;
}

function footer(found: EventWithTickets | null | undefined): Html {
  if (!found) return html`<footer><p>Secure checkout</p></footer>`;
  const organizer = found.event.organizerName || found.organization.name;
  const support = found.event.supportEmail || found.organization.supportEmail;
  return html`<footer>
    <p>Secure checkout for ${organizer}.</p>
    ${support ? html`<p>Questions? <a href="mailto:${support}">${support}</a></p>` : ''}
  </footer>`;
}

export function layout(options: LayoutOptions): Html {
  const session = options.session ?? null;
  const embedded = session?.uiMode === 'embedded';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${options.title}</title>
        <link rel="stylesheet" href="${CHECKOUT_STYLES.path}" />
        <script src="${CHECKOUT_SCRIPT.path}" defer></script>
        ${options.head ?? ''}
      </head>
      <body
        ${attr('class', options.compact ? 'compact' : null)}
        data-mode="${embedded ? 'embedded' : 'redirect'}"
        ${attr('data-embed-origin', embedded ? session?.embedOrigin : null)}${attr('data-session', session?.id)}
      >
        <div class="page">
          ${options.found ? eventHeader(options.found) : ''}
          <main id="main">${options.main}</main>
          ${footer(options.found)}
        </div>
      </body>
    </html> `;
}
