// The audit log page: newest first, a page at a time, each entry as who did what to which object,
// its details written out as words (roles, scopes, origins), and the address it came from.
import { AUDIT_ACTIONS, type AuditEventRow } from '../../audit/index.ts';
import { isMemberRole } from '../../members/index.ts';
import { html, type Html } from '../../platform/index.ts';
import { formatTime } from './fields.ts';
import { page, type Viewer } from './layout.ts';
import { ROLE_LABELS } from './member-pages.ts';

const TARGETS: Record<string, string> = {
  member: 'Member',
  invitation: 'Invitation',
  client: 'API client',
  webhook_endpoint: 'Webhook endpoint',
  event: 'Event',
  ticket_type: 'Ticket type',
  order: 'Order',
  registration: 'Runner',
  refund: 'Refund',
  buyer: 'Buyer data, erasure',
  organization: 'Organization',
};

const DETAIL_LABELS: Record<string, string> = {
  email: 'Email',
  role: 'Role',
  from: 'From',
  to: 'To',
  name: 'Name',
  display_name: 'Display name',
  scopes: 'Scopes',
  list: 'List',
  origin: 'Origin',
  url: 'URL',
  events: 'Events',
  file: 'File',
  rows: 'Rows',
  buyer_contacts: "Buyers' email and phone",
  complete: 'Complete',
  order_code: 'Order',
  changed: 'Changed',
  choices: 'Choices',
  void_ticket: 'Ticket voided',
  new_ticket: 'Ticket issued',
};

const LIST_NAMES: Record<string, string> = {
  allowed_domains: 'Allowed domains',
  return_url_domains: 'Return URL domains',
};

function words(action: string): string {
  return (AUDIT_ACTIONS as Record<string, string>)[action] ?? action;
}

function detailValue(key: string, value: unknown): Html | string {
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    return html`${value.map((v, i) => html`${i > 0 ? ', ' : ''}<code>${String(v)}</code>`)}`;
  }
  if (typeof value === 'string') {
    if (isMemberRole(value) && ['role', 'from', 'to'].includes(key)) return ROLE_LABELS[value];
    if (key === 'list') return LIST_NAMES[value] ?? value;
    if (key === 'origin' || key === 'url') return html`<code>${value}</code>`;
    return value;
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  // a display name removed (or never given) is null
  if (value === null && key === 'display_name') return 'none';
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function details(entry: AuditEventRow): Html {
  // jsonb keeps its own key order: show them in the order of DETAIL_LABELS, others after.
  const order = Object.keys(DETAIL_LABELS);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const pairs = Object.entries(entry.details ?? {}).sort(([a], [b]) => rank(a) - rank(b));
  if (pairs.length === 0) return html``;
  return html`${pairs.map(
    ([key, value]) =>
      html`<br /><span class="muted">${DETAIL_LABELS[key] ?? key}: ${detailValue(key, value)}</span>`,
  )}`;
}

function entryRow(entry: AuditEventRow): Html {
  return html`<tr>
    <td data-label="When">${formatTime(entry.createdAt)}</td>
    <td data-label="Who">${entry.actorLabel}</td>
    <td data-label="What">
      ${words(entry.action)}: ${TARGETS[entry.targetType] ?? entry.targetType} <code>${entry.targetId}</code>
      ${details(entry)}
    </td>
    <td data-label="IP">${entry.ip ?? html`<span class="muted">none</span>`}</td>
  </tr>`;
}

export interface AuditView {
  viewer: Viewer;
  entries: AuditEventRow[];
  /** the id to pass as ?before= for older entries; null on the last page */
  olderBefore: number | null;
  /** this page is not the newest */
  paged: boolean;
}

export function renderAuditLog(view: AuditView): string {
  const empty = view.paged ? 'There are no older entries.' : 'Nothing has been recorded yet.';
  const main = html`<h1>Audit log</h1>
    <p>
      Every change to members, invitations, API clients, webhook endpoints, events and orders of this
      organization, and every download of runners or orders: who, when, and from which address. Newest first.
    </p>
    ${
      view.entries.length === 0
        ? html`<p>${empty}</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Audit log entries">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">IP</th>
                </tr>
              </thead>
              <tbody>
                ${view.entries.map(entryRow)}
              </tbody>
            </table>
          </div>`
    }
    <p class="actions">
      ${view.paged ? html`<a href="/audit-log">Newest entries</a>` : ''}
      ${view.olderBefore !== null ? html`<a href="/audit-log?before=${view.olderBefore}">Older entries</a>` : ''}
    </p>`;
  return page({ title: 'Audit log', main, viewer: view.viewer, section: 'audit' });
}
