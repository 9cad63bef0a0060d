// One API client's settings: the display name buyers see, scopes, the publishable key, allowed
// domains and return URL domains (each edited one entry at a time), rotating the secret and
// revoking (after a confirmation).
// Without the developer_settings permission, or once revoked, everything is read-only.
import type { ApiClientRow } from '../../auth/index.ts';
import { html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { DISPLAY_NAME_HINT, scopeCheckboxes, statusBadge } from './developer-pages.ts';
import { errorSummary, formatTime, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';

export type DomainList = 'allowed_domains' | 'return_url_domains';

/** Each list's form field, heading and the line saying what the list is for. */
export const DOMAIN_LISTS: Record<
  DomainList,
  { field: 'allowed_domain' | 'return_url_domain'; title: string; label: string; purpose: string }
> = {
  allowed_domains: {
    field: 'allowed_domain',
    title: 'Allowed domains',
    label: 'Add an allowed domain',
    purpose:
      'Web pages on these origins may use the publishable key in the browser and show the embedded checkout.',
  },
  return_url_domains: {
    field: 'return_url_domain',
    title: 'Return URL domains',
    label: 'Add a return URL domain',
    purpose:
      'After a hosted checkout, buyers may be sent back only to these origins (on_success_url and on_cancel_url).',
  },
};

const NOTICES: Record<string, string> = {
  display_name: 'The display name was saved. Buyers see it on checkout pages from now on.',
  scopes: 'The scopes were saved. They apply from the next API request.',
  key: 'A new publishable key was made. The old one no longer works.',
  added: 'The domain was added.',
  removed: 'The domain was removed.',
  revoked: 'The client was revoked. Its secret, its publishable key and its tokens no longer work.',
};

export function noticeFor(key: string | undefined): string | null {
  return NOTICES[key ?? ''] ?? null;
}

export interface ClientView {
  viewer: Viewer;
  client: ApiClientRow;
  canWrite: boolean;
  errors: FieldErrors;
  notice: string | null;
  /** a problem with the whole client (it is revoked) */
  problem?: string | null;
  /** what was typed into an add-domain field that came back with an error */
  typed?: Partial<Record<DomainList, string>>;
  /** the scopes as submitted, when that form came back with an error */
  scopes?: readonly string[];
  /** the display name as typed, when that form came back with an error */
  displayName?: string;
}

function postButton(
  view: ClientView,
  action: string,
  label: string,
  extra: Html = html``,
  danger = false,
): Html {
  return html`<form method="post" action="/developers/clients/${view.client.id}/${action}" class="inline">
    ${csrfInput(view.viewer.current.session.csrfToken)} ${extra}
    <button type="submit" class="${danger ? 'danger' : ''}">${label}</button>
  </form>`;
}

function displayNameSection(view: ClientView, writable: boolean): Html {
  const { client } = view;
  if (!writable) {
    return html`<h2>Display name</h2>
      <p class="muted">${DISPLAY_NAME_HINT}.</p>
      <p>
        ${client.displayName ?? html`<span class="muted">None: buyers see your site's host name.</span>`}
      </p>`;
  }
  return html`<h2>Display name</h2>
    <form method="post" action="/developers/clients/${client.id}/display-name" novalidate>
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${input({
        name: 'display_name',
        label: 'Display name',
        value: view.displayName ?? client.displayName ?? '',
        hint: `${DISPLAY_NAME_HINT}. Leave it empty to show your site's host name.`,
        errors: view.errors,
      })}
      <button type="submit">Save display name</button>
    </form>`;
}

function scopesSection(view: ClientView, writable: boolean): Html {
  const { client } = view;
  if (!writable) {
    return html`<h2>Scopes</h2>
      <p>
        ${client.scopes.length > 0 ? client.scopes.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`) : 'None'}
      </p>`;
  }
  return html`<h2>Scopes</h2>
    <form method="post" action="/developers/clients/${client.id}/scopes" novalidate>
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${scopeCheckboxes(view.scopes ?? client.scopes, view.errors, 'What this client may do')}
      <button type="submit">Save scopes</button>
    </form>`;
}

function domainSection(view: ClientView, list: DomainList, writable: boolean): Html {
  const meta = DOMAIN_LISTS[list];
  const entries = view.client[list === 'allowed_domains' ? 'allowedDomains' : 'returnUrlDomains'];
  const listField = html`<input type="hidden" name="list" value="${list}" />`;
  return html`<h2>${meta.title}</h2>
    <p class="muted">${meta.purpose}</p>
    ${
      entries.length === 0
        ? html`<p>None yet.</p>`
        : html`<ul class="entries" aria-label="${meta.title}">
            ${entries.map(
              (origin) =>
                html`<li>
                  <code>${origin}</code>
                  ${
                    writable
                      ? postButton(
                          view,
                          'domains/remove',
                          `Remove ${origin}`,
                          html`${listField}<input type="hidden" name="origin" value="${origin}" />`,
                        )
                      : ''
                  }
                </li>`,
            )}
          </ul>`
    }
    ${
      writable
        ? html`<form method="post" action="/developers/clients/${view.client.id}/domains/add" novalidate>
            ${csrfInput(view.viewer.current.session.csrfToken)} ${listField}
            ${input({
              name: meta.field,
              label: meta.label,
              type: 'url',
              value: view.typed?.[list] ?? '',
              hint: 'A full origin: https://shop.example.org, or http://localhost:5173 while developing.',
              errors: view.errors,
            })}
            <button type="submit">Add</button>
          </form>`
        : ''
    }`;
}

export function renderClient(view: ClientView): string {
  const { client } = view;
  const writable = view.canWrite && !client.revokedAt;
  const main = html`<p><a href="/developers">All API clients</a></p>
    <h1>${client.name} ${statusBadge(client)}</h1>
    ${view.notice ? html`<p class="notice good" role="status">${view.notice}</p>` : ''}
    ${errorSummary(view.errors, view.problem)}
    ${!view.canWrite ? html`<p class="notice">Your role can see this client but not change it.</p>` : ''}
    <dl class="facts panel">
      <dt>Client ID</dt>
      <dd><code>${client.id}</code></dd>
      <dt>Created</dt>
      <dd>${formatTime(client.createdAt)}</dd>
      <dt>Secret rotated</dt>
      <dd>${client.secretRotatedAt ? formatTime(client.secretRotatedAt) : 'never'}</dd>
      ${
        client.revokedAt
          ? html`<dt>Revoked</dt>
              <dd>${formatTime(client.revokedAt)}</dd>`
          : ''
      }
    </dl>
    ${displayNameSection(view, writable)} ${scopesSection(view, writable)}
    <h2>Publishable key</h2>
    <p class="muted">
      For code in a visitor's browser, on the allowed domains only. It can list events and start checkouts.
    </p>
    <p><code class="secret">${client.publishableKey}</code></p>
    ${writable ? postButton(view, 'publishable-key', 'Regenerate publishable key') : ''}
    ${domainSection(view, 'allowed_domains', writable)} ${domainSection(view, 'return_url_domains', writable)}
    ${
      writable
        ? html`<h2>Client secret</h2>
            <p class="muted">
              The secret was shown once, when it was made. Rotating makes a new one and the old one stops
              getting tokens at once; tokens already issued work until they expire (at most an hour).
            </p>
            ${postButton(view, 'rotate-secret', 'Rotate secret')}
            <h2>Revoke</h2>
            <p class="muted">
              Revoking cuts off the secret, the publishable key and every token at once. It cannot be undone.
            </p>
            <p><a class="button danger" href="/developers/clients/${client.id}/revoke">Revoke</a></p>`
        : ''
    }`;
  return page({
    title: client.name,
    main,
    viewer: view.viewer,
    section: 'developers',
    hasErrors: Object.keys(view.errors).length > 0,
  });
}

export function renderRevokeConfirmation(viewer: Viewer, client: ApiClientRow): string {
  const main = html`<p><a href="/developers/clients/${client.id}">${client.name}</a></p>
    <h1>Revoke ${client.name}?</h1>
    <p class="notice warn">
      Its secret, its publishable key and every token it holds stop working on their next request. Websites
      and servers using it will fail until they get a new client. This cannot be undone.
    </p>
    <form method="post" action="/developers/clients/${client.id}/revoke" class="actions">
      ${csrfInput(viewer.current.session.csrfToken)}
      <button type="submit" class="danger primary">Revoke API client</button>
      <a href="/developers/clients/${client.id}">Cancel</a>
    </form>`;
  return page({ title: `Revoke ${client.name}`, main, viewer, section: 'developers' });
}
