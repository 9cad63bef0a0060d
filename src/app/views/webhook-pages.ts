// Webhook endpoint pages: the form adding one (URL and one checkbox per event type, all checked by
// default), the page showing its signing secret once, the endpoint's page (facts, edit form,
// enable/disable, rotate, send a test event, delivery log) and the delete confirmation.
import { html, attr, type Html } from '../../platform/index.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEndpointRow, type WebhookEventType } from '../../webhooks/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { copyable } from './developer-pages.ts';
import { errorSummary, fieldId, formatTime, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { endpointStatus, eventList, statusText } from './webhook-list.ts';
import { deliveryLog, sentNotice, type DeliveryLog, type SentResult } from './webhook-log.ts';

/** One line per event type, next to its checkbox; a new type must say when it is sent. */
const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'order.paid': 'An order is paid and its tickets are issued',
  'order.refunded': "An order's payment is returned to the buyer and its tickets are released",
};

const NOTICES: Record<string, string> = {
  updated: 'The endpoint was saved. New deliveries use the new URL and event types.',
  disabled: 'The endpoint was disabled. Its pending deliveries were cancelled.',
  enabled: 'The endpoint was enabled. Cancelled deliveries are not resent: retry them one by one.',
};

function eventCheckboxes(checked: readonly string[], errors: FieldErrors): Html {
  const error = errors.events;
  const id = fieldId('events');
  return html`<fieldset
    class="${error ? 'invalid' : ''}"
    ${attr('aria-describedby', error ? `${id}-error` : null)}
  >
    <legend id="${id}">Events to send</legend>
    ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
    ${WEBHOOK_EVENT_TYPES.map(
      (type) =>
        html`<div class="check">
          <input
            type="checkbox"
            id="event-${type.replace('.', '-')}"
            name="events"
            value="${type}"
            ${attr('checked', checked.includes(type))}
          />
          <label for="event-${type.replace('.', '-')}"
            ><code>${type}</code>: ${EVENT_DESCRIPTIONS[type]}</label
          >
        </div>`,
    )}
  </fieldset>`;
}

const URL_HINT =
  'An https URL on your server that answers 2xx quickly, such as https://shop.example.org/webhooks.';

export interface NewEndpointView {
  viewer: Viewer;
  url: string;
  events: readonly string[];
  errors: FieldErrors;
}

export function renderNewEndpoint(view: NewEndpointView): string {
  const main = html`<p><a href="/developers">Developer settings</a></p>
    <h1>Add webhook endpoint</h1>
    <p>We send a signed POST to this URL when an event happens (Standard Webhooks signatures).</p>
    ${errorSummary(view.errors)}
    <form method="post" action="/developers/webhooks" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${input({ name: 'url', label: 'Endpoint URL', type: 'url', value: view.url, hint: URL_HINT, errors: view.errors, required: true })}
      ${eventCheckboxes(view.events, view.errors)}
      <div class="actions">
        <button type="submit" class="primary">Add webhook endpoint</button>
        <a href="/developers">Cancel</a>
      </div>
    </form>`;
  return page({
    title: 'Add webhook endpoint',
    main,
    viewer: view.viewer,
    section: 'developers',
    hasErrors: Object.keys(view.errors).length > 0,
  });
}

export interface EndpointSecretView {
  viewer: Viewer;
  endpoint: WebhookEndpointRow;
  secret: string;
  kind: 'created' | 'rotated';
}

export function renderEndpointSecret(view: EndpointSecretView): string {
  const { endpoint } = view;
  const title = view.kind === 'created' ? 'Webhook endpoint added' : 'New signing secret';
  const overlap =
    view.kind === 'rotated' && endpoint.previousSecretExpiresAt
      ? html`<p>
          The old secret keeps signing too, alongside the new one, for 24 hours: until
          ${formatTime(endpoint.previousSecretExpiresAt)}. Switch your receiver to the new secret before then.
        </p>`
      : '';
  const main = html`<h1>${title}</h1>
    <p class="notice warn">
      <strong>Copy the signing secret now: it will not be shown again.</strong> Keep it on your server only.
      Your receiver verifies every request with it; if it is lost, rotate the secret to get a new one.
    </p>
    <div class="panel">
      <p>Endpoint URL: <code>${endpoint.url}</code></p>
      ${copyable('signing-secret', 'Signing secret', view.secret)}
      <p id="copy-status" role="status" class="muted"></p>
      ${overlap}
    </div>
    <p><a class="button" href="/developers/webhooks/${endpoint.id}">Continue to the endpoint</a></p>`;
  return page({ title, main, viewer: view.viewer, section: 'developers', script: true });
}

export interface EndpointView {
  viewer: Viewer;
  canWrite: boolean;
  endpoint: WebhookEndpointRow;
  now: Date;
  log: DeliveryLog;
  errors: FieldErrors;
  /** a key of NOTICES, after a change */
  notice: string | null;
  /** a send just made from this page */
  sent: SentResult | null;
  /** a problem with the whole endpoint (it is disabled) */
  problem?: string | null;
  /** the edit form as submitted, when it came back with errors */
  form?: { url: string; events: readonly string[] };
}

function postButton(view: EndpointView, action: string, label: string, kind = ''): Html {
  return html`<form method="post" action="/developers/webhooks/${view.endpoint.id}/${action}" class="inline">
    ${csrfInput(view.viewer.current.session.csrfToken)}
    <button type="submit" class="${kind}">${label}</button>
  </form>`;
}

function facts(endpoint: WebhookEndpointRow, now: Date): Html {
  const overlap = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return html`<dl class="facts panel">
    <dt>URL</dt>
    <dd><code>${endpoint.url}</code></dd>
    <dt>Events</dt>
    <dd>${eventList(endpoint.eventTypes)}</dd>
    <dt>Status</dt>
    <dd>
      ${statusText(endpoint)} ${endpoint.disabledAt ? html` since ${formatTime(endpoint.disabledAt)}` : ''}
    </dd>
    ${
      endpoint.failingSince
        ? html`<dt>Failing since</dt>
            <dd>${formatTime(endpoint.failingSince)}</dd>`
        : ''
    }
    <dt>Signing secret</dt>
    <dd>
      ${endpoint.secretRotatedAt ? `Rotated ${formatTime(endpoint.secretRotatedAt)}` : 'Never rotated'}
      ${overlap ? html`; the previous secret also signs until ${formatTime(endpoint.previousSecretExpiresAt!)}` : ''}
    </dd>
    <dt>Created</dt>
    <dd>${formatTime(endpoint.createdAt)}</dd>
  </dl>`;
}

function testSection(view: EndpointView): Html {
  const enabled = view.endpoint.status === 'enabled';
  return html`<h2>Send a test event</h2>
    <p class="muted">
      A signed <code>test</code> event, sent now; the answer shows above and in the log below.
    </p>
    ${enabled ? postButton(view, 'test', 'Send test event', 'primary') : html`<p>Enable the endpoint to send to it.</p>`}`;
}

function writeSections(view: EndpointView): Html {
  const { endpoint } = view;
  const enabled = endpoint.status === 'enabled';
  const form = view.form ?? { url: endpoint.url, events: endpoint.eventTypes };
  return html` <h2>Change the endpoint</h2>
    <form method="post" action="/developers/webhooks/${endpoint.id}" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${input({ name: 'url', label: 'Endpoint URL', type: 'url', value: form.url, hint: URL_HINT, errors: view.errors, required: true })}
      ${eventCheckboxes(form.events, view.errors)}
      <button type="submit">Save changes</button>
    </form>
    <h2>${enabled ? 'Disable' : 'Enable'}</h2>
    <p class="muted">
      ${
        enabled
          ? 'Nothing is sent while it is disabled, and pending deliveries are cancelled.'
          : 'Deliveries start again with the next event. Cancelled ones are not resent by themselves.'
      }
    </p>
    ${enabled ? postButton(view, 'disable', 'Disable endpoint') : postButton(view, 'enable', 'Enable endpoint')}
    <h2>Signing secret</h2>
    <p class="muted">
      Rotating makes a new secret, shown once. The old one keeps signing for 24 hours alongside it, so your
      receiver can switch without missing a delivery.
    </p>
    ${postButton(view, 'rotate-secret', 'Rotate secret')}
    <h2>Delete</h2>
    <p class="muted">Deleting removes the endpoint and its delivery log. It cannot be undone.</p>
    <p><a class="button danger" href="/developers/webhooks/${endpoint.id}/delete">Delete endpoint</a></p>`;
}

export function renderEndpoint(view: EndpointView): string {
  const { endpoint } = view;
  const notice = NOTICES[view.notice ?? ''];
  const main = html`<p><a href="/developers">Developer settings</a></p>
    <h1>Webhook endpoint ${endpointStatus(endpoint)}</h1>
    ${view.sent ? sentNotice(view.sent) : ''}
    ${notice ? html`<p class="notice good" role="status">${notice}</p>` : ''}
    ${errorSummary(view.errors, view.problem)}
    ${!view.canWrite ? html`<p class="notice">Your role can see this endpoint but not change it.</p>` : ''}
    ${facts(endpoint, view.now)} ${view.canWrite ? testSection(view) : ''}
    ${deliveryLog(endpoint, view.log, view.canWrite ? { csrf: view.viewer.current.session.csrfToken } : null)}
    ${view.canWrite ? writeSections(view) : ''}`;
  return page({
    title: 'Webhook endpoint',
    main,
    viewer: view.viewer,
    section: 'developers',
    hasErrors: Object.keys(view.errors).length > 0 || !!view.problem,
  });
}

export function renderDeleteEndpoint(viewer: Viewer, endpoint: WebhookEndpointRow): string {
  const main = html`<p><a href="/developers/webhooks/${endpoint.id}">Webhook endpoint</a></p>
    <h1>Delete this webhook endpoint?</h1>
    <p><code>${endpoint.url}</code></p>
    <p class="notice warn">
      Nothing more is sent to it, and its delivery log is deleted with it. This cannot be undone; to stop
      deliveries for a while, disable it instead.
    </p>
    <form method="post" action="/developers/webhooks/${endpoint.id}/delete" class="actions">
      ${csrfInput(viewer.current.session.csrfToken)}
      <button type="submit" class="danger primary">Delete webhook endpoint</button>
      <a href="/developers/webhooks/${endpoint.id}">Cancel</a>
    </form>`;
  return page({ title: 'Delete webhook endpoint', main, viewer, section: 'developers' });
}
