// The page shell of the organizer app: head with the one stylesheet (and the app's script where a
// page asks for it), a skip link, and for a signed-in member the header with the organization,
// its switcher, the navigation (Audit log only for roles that may read it) and the Sign out button.
import { can, type CurrentSession, type MemberOrganization } from '../../members/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import { CSRF_FIELD } from '../app-access.ts';
import { APP_SCRIPT, APP_STYLES } from '../app-assets.ts';
import { SITE_ICON } from '../../site/index.ts';

/** What a signed-in page knows about its member. */
export interface Viewer {
  current: CurrentSession;
  organizations: MemberOrganization[];
}

export interface PageOptions {
  title: string;
  main: Html;
  /** signed-in pages get the header; signed-out ones a plain narrow page */
  viewer?: Viewer | null;
  /** the nav entry to mark as the current page */
  section?:
    | 'overview'
    | 'orders'
    | 'events'
    | 'members'
    | 'developers'
    | 'audit'
    | 'settings'
    | 'account'
    | 'check-in';
  /** the page has something the app's script adds to (copy buttons, the price breakdown) */
  script?: boolean;
  /** a page's own script (the check-in page's), deferred */
  pageScript?: string;
  /** the title starts with "Error:" when a form came back with errors */
  hasErrors?: boolean;
}

export function csrfInput(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

function switcher(viewer: Viewer): Html {
  if (viewer.organizations.length < 2) return html``;
  const current = viewer.current.organizationId;
  return html`<form method="post" action="/organizations/switch" class="inline">
    ${csrfInput(viewer.current.session.csrfToken)}
    <label for="switch-org" class="muted">Organization</label>
    <select id="switch-org" name="organization_id">
      ${viewer.organizations.map(
        (o) =>
          html`<option value="${o.organizationId}" ${attr('selected', o.organizationId === current)}>
            ${o.organizationName}
          </option>`,
      )}
    </select>
    <button type="submit">Switch</button>
  </form>`;
}

function navLink(href: string, label: string, current: boolean): Html {
  return html`<li><a href="${href}" ${attr('aria-current', current ? 'page' : null)}>${label}</a></li>`;
}

function header(viewer: Viewer, section: PageOptions['section']): Html {
  const { current } = viewer;
  return html`<header class="top">
    <div class="top-inner">
      <p class="org">${current.organizationName}</p>
      ${switcher(viewer)}
      <nav aria-label="Main">
        <ul>
          ${
            can(current.role, 'read')
              ? html`${navLink('/', 'Overview', section === 'overview')}
                ${navLink('/orders', 'Orders', section === 'orders')}
                ${navLink('/events', 'Events', section === 'events')}
                ${navLink('/members', 'Members', section === 'members')}
                ${navLink('/developers', 'Developer settings', section === 'developers')}`
              : ''
          }
          ${can(current.role, 'audit_log') ? navLink('/audit-log', 'Audit log', section === 'audit') : ''}
          ${can(current.role, 'organization_settings') ? navLink('/settings', 'Settings', section === 'settings') : ''}
          ${can(current.role, 'check_in') ? navLink('/check-in', 'Check-in', section === 'check-in') : ''}
          ${navLink('/account', 'Account', section === 'account')}
        </ul>
      </nav>
      <form method="post" action="/sign-out" class="inline">
        ${csrfInput(current.session.csrfToken)}
        <button type="submit">Sign out</button>
      </form>
    </div>
  </header>`;
}

export function page(options: PageOptions): string {
  const viewer = options.viewer ?? null;
  const title = `${options.hasErrors ? 'Error: ' : ''}${options.title}`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} – Organizer</title>
        <link rel="icon" href="${SITE_ICON.path}" type="image/svg+xml" />
        <link rel="stylesheet" href="${APP_STYLES.path}" />
        ${options.script ? html`<script src="${APP_SCRIPT.path}" defer></script>` : ''}
        ${options.pageScript ? html`<script src="${options.pageScript}" defer></script>` : ''}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        ${viewer ? header(viewer, options.section) : ''}
        <main id="main" class="${viewer ? '' : 'narrow'}">${options.main}</main>
      </body>
    </html>`.value;
}
