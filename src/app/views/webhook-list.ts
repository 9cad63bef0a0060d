// The organization's webhook endpoints as the developer settings page lists them, and the status
// and event words the endpoint pages share.
import { html, type Html } from '../../platform/index.ts';
import type { WebhookEndpointRow } from '../../webhooks/index.ts';

const DISABLED_REASONS: Record<string, string> = {
  manual: 'Disabled by hand',
  gone: 'Disabled: the receiver answered 410 Gone',
  failing: 'Disabled: every attempt failed for 5 days',
};

/** "Enabled", or "Disabled" with its reason. */
export function statusText(endpoint: WebhookEndpointRow): string {
  if (endpoint.status === 'enabled') return 'Enabled';
  return DISABLED_REASONS[endpoint.disabledReason ?? 'manual'] ?? 'Disabled';
}

export function endpointStatus(endpoint: WebhookEndpointRow): Html {
  const enabled = endpoint.status === 'enabled';
  return html`<span class="status ${enabled ? 'active' : 'revoked'}"
    >${enabled ? 'enabled' : 'disabled'}</span
  >`;
}

export function eventList(types: readonly string[]): Html {
  return html`${types.map((t, i) => html`${i > 0 ? ', ' : ''}<code>${t}</code>`)}`;
}

function endpointRow(endpoint: WebhookEndpointRow): Html {
  return html`<tr>
    <td class="url"><code>${endpoint.url}</code></td>
    <td>${eventList(endpoint.eventTypes)}</td>
    <td>
      ${endpointStatus(endpoint)}
      ${endpoint.status === 'enabled' ? '' : html`<span class="muted">${statusText(endpoint)}</span>`}
    </td>
    <td>
      <a href="/developers/webhooks/${endpoint.id}"
        >Open<span class="visually-hidden"> ${endpoint.url}</span></a
      >
    </td>
  </tr>`;
}

/** The "Webhook endpoints" section of developer settings. */
export function endpointsSection(endpoints: WebhookEndpointRow[], canWrite: boolean): Html {
  return html`<h2 id="webhooks">Webhook endpoints</h2>
    <p>
      Your server is told when an order is paid by a signed POST to each endpoint. Check a whole integration
      (domains, the checkout.js tag, webhooks) with the
      <a href="/developers/integration">integration checker</a>.
    </p>
    ${canWrite ? html`<p><a class="button" href="/developers/webhooks/new">Add webhook endpoint</a></p>` : ''}
    ${
      endpoints.length === 0
        ? html`<p>No webhook endpoints yet.</p>`
        : html`<div class="table-wrap" role="region" aria-label="Webhook endpoints" tabindex="0">
            <table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  <th scope="col"><span class="visually-hidden">Link</span></th>
                </tr>
              </thead>
              <tbody>
                ${endpoints.map(endpointRow)}
              </tbody>
            </table>
          </div>`
    }`;
}
