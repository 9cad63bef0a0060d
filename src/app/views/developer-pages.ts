// Developer settings: the organization's API clients and its webhook endpoints (listed by
// webhook-list.ts), the form creating a client (a name, an optional display name for buyers, and
// one checkbox per scope, the four a checkout needs checked by default), and the page showing a client id and a secret
// once, each with a copy button.
import { ALL_SCOPES, SCOPE_DESCRIPTIONS, type ApiClientRow, type Scope } from '../../auth/index.ts';
import type { WebhookEndpointRow } from '../../webhooks/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, fieldId, formatTime, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { endpointsSection } from './webhook-list.ts';

export function statusBadge(client: ApiClientRow): Html {
  const status = client.revokedAt ? 'revoked' : 'active';
  return html`<span class="status ${status}">${status}</span>`;
}

function clientRow(client: ApiClientRow): Html {
  return html`<tr>
    <td><a href="/developers/clients/${client.id}">${client.name}</a></td>
    <td>${statusBadge(client)}</td>
    <td>
      ${client.scopes.length > 0 ? client.scopes.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`) : html`<span class="muted">none</span>`}
    </td>
    <td>${formatTime(client.createdAt)}</td>
  </tr>`;
}

const NOTICES: Record<string, string> = {
  webhook_deleted: 'The webhook endpoint was deleted.',
};

export function renderDevelopers(
  viewer: Viewer,
  clients: ApiClientRow[],
  canWrite: boolean,
  endpoints: WebhookEndpointRow[] = [],
  done?: string,
): string {
  const notice = NOTICES[done ?? ''];
  const main = html`<h1>Developer settings</h1>
    ${notice ? html`<p class="notice good" role="status">${notice}</p>` : ''}
    <p>
      API clients let your own systems use the partner API: a client id and secret get a token on the server,
      and the publishable key works in a browser on your allowed domains.
    </p>
    ${
      canWrite
        ? html`<p><a class="button primary" href="/developers/clients/new">Create API client</a></p>`
        : html`<p class="notice">Your role can see these settings but not change them.</p>`
    }
    <h2>API clients</h2>
    ${
      clients.length === 0
        ? html`<p>No API clients yet.</p>`
        : html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                ${clients.map(clientRow)}
              </tbody>
            </table>
          </div>`
    }
    ${endpointsSection(endpoints, canWrite)}
    <h2>Request log</h2>
    <p>
      The last 100 API requests made with your credentials, refusals included, with their status, error code
      and request id: <a href="/developers/requests">open the request log</a>.
    </p>`;
  return page({ title: 'Developer settings', main, viewer, section: 'developers' });
}

/** When a scope left out of the defaults is worth ticking (docs/decisions/least-privilege-clients.md). */
const OPT_IN_HINTS: Partial<Record<Scope, string>> = {
  'orders:write': 'Only if you build your own checkout form instead of ours.',
  'webhooks:write': 'Only if your server registers its endpoints itself: you can add them on this page.',
};

/** A fieldset of one checkbox per scope. */
export function scopeCheckboxes(checked: readonly string[], errors: FieldErrors, legend = 'Scopes'): Html {
  const error = errors.scopes;
  const id = fieldId('scopes');
  return html`<fieldset
    class="${error ? 'invalid' : ''}"
    ${attr('aria-describedby', error ? `${id}-error` : null)}
  >
    <legend id="${id}">${legend}</legend>
    ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
    ${ALL_SCOPES.map(
      (scope) =>
        html`<div class="check">
          <input
            type="checkbox"
            id="scope-${scope.replace(':', '-')}"
            name="scopes"
            value="${scope}"
            ${attr('checked', checked.includes(scope))}
          />
          <label for="scope-${scope.replace(':', '-')}"
            ><code>${scope}</code>:
            ${SCOPE_DESCRIPTIONS[scope]}${
              OPT_IN_HINTS[scope] ? html`<span class="hint">${OPT_IN_HINTS[scope]}</span>` : ''
            }</label
          >
        </div>`,
    )}
  </fieldset>`;
}

/** The display name's line of help, on the create form and the client's page. */
export const DISPLAY_NAME_HINT = "Shown to buyers in the checkout, e.g. on 'Back to …' buttons";

export interface NewClientView {
  viewer: Viewer;
  name: string;
  /** as typed; empty: none */
  displayName: string;
  scopes: readonly string[];
  errors: FieldErrors;
  /** a refusal of the whole form, such as the organization's limit of clients */
  problem?: string | null;
}

export function renderNewClient(view: NewClientView): string {
  const main = html`<p><a href="/developers">All API clients</a></p>
    <h1>Create API client</h1>
    ${errorSummary(view.errors, view.problem)}
    <form method="post" action="/developers/clients" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${input({ name: 'name', label: 'Name', value: view.name, hint: 'For you: where it is used, such as "Shop website".', errors: view.errors, required: true })}
      ${input({ name: 'display_name', label: 'Display name (optional)', value: view.displayName, hint: `${DISPLAY_NAME_HINT}. Without one, buyers see your site's host name.`, errors: view.errors })}
      ${scopeCheckboxes(view.scopes, view.errors)}
      <div class="actions">
        <button type="submit" class="primary">Create API client</button>
        <a href="/developers">Cancel</a>
      </div>
    </form>`;
  return page({
    title: 'Create API client',
    main,
    viewer: view.viewer,
    section: 'developers',
    hasErrors: Object.keys(view.errors).length > 0 || Boolean(view.problem),
  });
}

export function copyable(id: string, label: string, value: string): Html {
  return html`<h2 id="${id}-label">${label}</h2>
    <div class="copy-row">
      <code class="secret" id="${id}">${value}</code>
      <button type="button" data-copy="${id}" data-label="Copy ${label.toLowerCase()}" hidden>
        Copy ${label.toLowerCase()}
      </button>
    </div>`;
}

export interface SecretView {
  viewer: Viewer;
  client: ApiClientRow;
  secret: string;
  /** created: a new client; rotated: a new secret of an existing one */
  kind: 'created' | 'rotated';
}

export function renderSecret(view: SecretView): string {
  const { client } = view;
  const title = view.kind === 'created' ? 'API client created' : 'New client secret';
  const main = html`<h1>${title}</h1>
    <p class="notice warn">
      <strong>Copy the client secret now: it will not be shown again.</strong> Keep it on your server only,
      never in a browser, an app or source control. If it is lost, rotate the secret to get a new one.
    </p>
    <div class="panel">
      <p>${client.name}</p>
      ${copyable('client-id', 'Client ID', client.id)}
      ${copyable('client-secret', 'Client secret', view.secret)}
      <p id="copy-status" role="status" class="muted"></p>
    </div>
    <p><a class="button" href="/developers/clients/${client.id}">Continue to the client's settings</a></p>`;
  return page({ title, main, viewer: view.viewer, section: 'developers', script: true });
}
