// The integration checker: a site origin (and an API client when there are several) checked
// against the client's allowed domains and return URL domains, with what to change; the exact
// checkout.js tag and the Content-Security-Policy the partner site needs; and a signed test webhook
// per enabled endpoint, with what the receiver answered.
import type { ApiClientRow } from '../../auth/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import type { WebhookEndpointRow } from '../../webhooks/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { DOMAIN_LISTS, type DomainList } from './client-page.ts';
import { errorSummary, fieldId, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { eventList, statusText } from './webhook-list.ts';
import { answered2xx, attemptSummary, sentNotice, type SentResult } from './webhook-log.ts';

/** The origin as typed, and either its canonical form or what is wrong with it. */
export interface OriginCheck {
  typed: string;
  origin: string | null;
  message: string | null;
}

export interface IntegrationView {
  viewer: Viewer;
  canWrite: boolean;
  /** the organization's live (not revoked) API clients */
  clients: ApiClientRow[];
  client: ApiClientRow | null;
  origin: OriginCheck;
  site: string;
  api: string;
  scriptUrl: string;
  endpoints: WebhookEndpointRow[];
  sent: (SentResult & { endpoint: WebhookEndpointRow }) | null;
  problem: string | null;
}

/** What each list is needed for, and what breaks when the origin is missing from it. */
const NEEDS: Record<DomainList, { yes: string; no: string }> = {
  allowed_domains: {
    yes: 'checkout.js can use the publishable key and show the embedded checkout on this site.',
    no: 'checkout.js cannot start a checkout here: the API refuses the publishable key from this origin and the checkout will not show in a frame on it.',
  },
  return_url_domains: {
    yes: 'hosted checkouts can send buyers back to pages on this site (on_success_url, on_cancel_url).',
    no: 'a hosted checkout whose on_success_url or on_cancel_url is on this site is refused when it is created.',
  },
};

function originErrors(view: IntegrationView): FieldErrors {
  return view.origin.message ? { origin: view.origin.message } : {};
}

function checkForm(view: IntegrationView): Html {
  const errors = originErrors(view);
  const selectId = fieldId('client');
  return html`<form method="get" action="/developers/integration" novalidate class="panel">
    ${input({
      name: 'origin',
      label: 'Site origin',
      type: 'url',
      value: view.origin.typed,
      hint: 'The origin of the site that will sell tickets: https://shop.example.org, or http://localhost:5173 while developing.',
      errors,
    })}
    ${
      view.clients.length > 1
        ? html`<div class="field">
            <label for="${selectId}">API client</label>
            <select id="${selectId}" name="client">
              ${view.clients.map(
                (c) =>
                  html`<option value="${c.id}" ${attr('selected', c.id === view.client?.id)}>
                    ${c.name}
                  </option>`,
              )}
            </select>
          </div>`
        : ''
    }
    <button type="submit" class="primary">Check</button>
  </form>`;
}

function listCheck(view: IntegrationView, client: ApiClientRow, origin: string, list: DomainList): Html {
  const meta = DOMAIN_LISTS[list];
  /** "allowed domains", "return URL domains" */
  const name = meta.title.charAt(0).toLowerCase() + meta.title.slice(1);
  const entries = list === 'allowed_domains' ? client.allowedDomains : client.returnUrlDomains;
  const listed = entries.includes(origin);
  const addIt =
    view.canWrite && !listed
      ? html`<form method="post" action="/developers/clients/${client.id}/domains/add" class="inline">
          ${csrfInput(view.viewer.current.session.csrfToken)}
          <input type="hidden" name="list" value="${list}" />
          <input type="hidden" name="${meta.field}" value="${origin}" />
          <button type="submit">Add ${origin} to ${name}</button>
        </form>`
      : '';
  return html`<li>
    <h3 class="${listed ? 'ok' : 'fail'}">${listed ? 'In' : 'Not in'} ${name}</h3>
    <p>
      <strong>${origin}</strong> ${listed ? 'is' : 'is not'} in the ${name} of ${client.name}:
      ${listed ? NEEDS[list].yes : NEEDS[list].no}
    </p>
    ${
      listed
        ? ''
        : html`<p>
              What to change: add it on
              <a href="/developers/clients/${client.id}">${client.name}'s settings</a>.
            </p>
            ${addIt}`
    }
  </li>`;
}

function results(view: IntegrationView): Html {
  const { client, origin } = view;
  if (!client || !origin.origin) return html``;
  return html`<h2 id="result">Result for ${origin.origin}</h2>
    <ul class="entries results" aria-labelledby="result">
      ${listCheck(view, client, origin.origin, 'allowed_domains')}
      ${listCheck(view, client, origin.origin, 'return_url_domains')}
    </ul>`;
}

function snippet(id: string, label: string, text: string): Html {
  return html`<div class="copy-row">
    <pre class="snippet" id="${id}">${text}</pre>
    <button type="button" data-copy="${id}" data-label="Copy ${label}" hidden>Copy ${label}</button>
  </div>`;
}

function embedSection(view: IntegrationView): Html {
  const tag = `<script src="${view.scriptUrl}"></script>`;
  const csp = [
    `script-src 'self' ${view.site}`,
    `frame-src ${view.site}`,
    `connect-src 'self' ${view.api}`,
  ].join(';\n');
  return html`<h2>checkout.js</h2>
    <p>
      Load it with exactly this tag, from this address: a copy served from elsewhere or bundled into your own
      script reports <code>misconfigured</code> and opens nothing.
    </p>
    ${snippet('script-tag', 'script tag', tag)}
    <h3>Content-Security-Policy</h3>
    <p>
      If your site sends a Content-Security-Policy, add these sources to its directives: checkout.js itself
      (<code>script-src</code>), the checkout it shows in a frame (<code>frame-src</code>), and the API it
      calls to start a checkout with your publishable key (<code>connect-src</code>). It needs no
      <code>style-src</code>.
    </p>
    ${snippet('csp', 'CSP directives', csp)}
    <p id="copy-status" role="status" class="muted"></p>`;
}

function sentDetails(sent: NonNullable<IntegrationView['sent']>): Html {
  const { attempt } = sent;
  return html`${sentNotice(sent)}
  ${
    attempt
      ? html`<dl class="facts panel">
          <dt>Endpoint</dt>
          <dd><code>${sent.endpoint.url}</code></dd>
          <dt>Answer</dt>
          <dd class="${answered2xx(attempt) ? 'ok' : 'fail'}">${attemptSummary(attempt)}</dd>
          <dt>Response</dt>
          <dd>
            ${attempt.responseExcerpt ? html`<pre class="excerpt">${attempt.responseExcerpt.slice(0, 300)}</pre>` : html`<span class="muted">empty</span>`}
          </dd>
        </dl>`
      : ''
  }`;
}

function webhookSection(view: IntegrationView): Html {
  const testForm = (endpoint: WebhookEndpointRow) =>
    html`<form method="post" action="/developers/integration/webhooks/${endpoint.id}/test" class="inline">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <input type="hidden" name="origin" value="${view.origin.typed}" />
      ${view.client ? html`<input type="hidden" name="client" value="${view.client.id}" />` : ''}
      <button type="submit">
        Send a signed test webhook<span class="visually-hidden"> to ${endpoint.url}</span>
      </button>
    </form>`;
  return html`<h2 id="webhooks">Webhooks</h2>
    ${view.sent ? sentDetails(view.sent) : ''}
    ${
      view.endpoints.length === 0
        ? html`<p>
            No webhook endpoints yet.
            ${view.canWrite ? html`<a href="/developers/webhooks/new">Add webhook endpoint</a>` : ''}
          </p>`
        : html`<ul class="entries" aria-label="Webhook endpoints">
            ${view.endpoints.map(
              (endpoint) =>
                html`<li>
                  <span
                    ><a href="/developers/webhooks/${endpoint.id}"><code>${endpoint.url}</code></a
                    ><br />
                    ${eventList(endpoint.eventTypes)} · ${statusText(endpoint)}</span
                  >
                  ${view.canWrite && endpoint.status === 'enabled' ? testForm(endpoint) : ''}
                </li>`,
            )}
          </ul>`
    }`;
}

export function renderIntegration(view: IntegrationView): string {
  const errors = originErrors(view);
  const main = html`<p><a href="/developers">Developer settings</a></p>
    <h1>Integration checker</h1>
    <p>Check that a site can sell tickets with your API client, and that your webhook receivers answer.</p>
    ${errorSummary(errors, view.problem)}
    ${
      view.clients.length === 0
        ? html`<p class="notice">
            There is no live API client yet.
            ${view.canWrite ? html`<a href="/developers/clients/new">Create API client</a>` : ''}
          </p>`
        : checkForm(view)
    }
    ${results(view)} ${embedSection(view)} ${webhookSection(view)}`;
  return page({
    title: 'Integration checker',
    main,
    viewer: view.viewer,
    section: 'developers',
    script: true,
    hasErrors: Object.keys(errors).length > 0 || !!view.problem,
  });
}
