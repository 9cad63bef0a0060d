// The audit log page: newest first, a page at a time, each entry as who did what to which object
// (by its name where it still exists), its details written out as words (roles, scopes, origins,
// amounts in their currency, lists of ranges and counts), and the address it came from.
import { AUDIT_ACTIONS, type AuditEventRow } from '../../audit/index.ts';
import { isMemberRole } from '../../members/index.ts';
import { formatMajor, html, type Html } from '../../platform/index.ts';
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
  event_id: 'Event',
  order_id: 'Order',
  order_code: 'Order',
  price_minor: 'Price',
  amount_minor: 'Amount',
  capacity: 'Places',
  changed: 'Changed',
  ranges: 'Ranges',
  assigned: 'Numbers given',
  ticket_types: 'Ticket types',
  kind: 'Kind',
  method: 'Method',
  starts_at: 'Starts',
  provider_reference: 'Provider reference',
  failure_reason: 'Reason',
  choices: 'Choices',
  runners: 'Runners',
  reason: 'Reason given',
  void_ticket: 'Ticket voided',
  new_ticket: 'Ticket issued',
};

/** Kept for the amounts beside them, not shown on their own. */
const HIDDEN_DETAILS = new Set(['currency', 'refund_id']);

/** What the page knows about the objects entries name by id. */
export interface AuditLookups {
  /** an object's name (an event's, a client's, an order's code…) by its id */
  names: ReadonlyMap<string, string>;
  /** the currency of an event or ticket type by its id */
  currencies: ReadonlyMap<string, string>;
}

const LIST_NAMES: Record<string, string> = {
  allowed_domains: 'Allowed domains',
  return_url_domains: 'Return URL domains',
};

function words(action: string): string {
  return (AUDIT_ACTIONS as Record<string, string>)[action] ?? action;
}

/** A list of objects ({ticket_type, first, last}, {ticket_type, assigned, without_number}) in words. */
function recordWords(value: Record<string, unknown>): string {
  // a choice changed: {tshirt: {before: 'M', after: 'L'}}
  const changes = Object.entries(value).filter(
    ([, v]) => typeof v === 'object' && v !== null && 'before' in v && 'after' in v,
  ) as [string, { before: unknown; after: unknown }][];
  if (changes.length > 0 && changes.length === Object.keys(value).length)
    return changes
      .map(([k, v]) => `${k}: ${String(v.before ?? 'none')} to ${String(v.after ?? 'none')}`)
      .join('; ');
  const { ticket_type: name, ...rest } = value;
  const parts =
    'first' in rest && 'last' in rest
      ? [`${String(rest.first)} to ${String(rest.last)}`]
      : Object.entries(rest).map(([k, v]) => `${String(v)} ${k.replace(/_/g, ' ')}`);
  return `${name === undefined ? '' : `${String(name)}: `}${parts.join(', ')}`;
}

function detailValue(
  key: string,
  value: unknown,
  entry: AuditEventRow,
  lookups: AuditLookups,
): Html | string {
  const all = (entry.details ?? {}) as Record<string, unknown>;
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    if (value.every((v) => typeof v === 'object' && v !== null))
      return value.map((v) => recordWords(v as Record<string, unknown>)).join('; ');
    if (key === 'changed') return value.map((v) => String(v).replace(/_/g, ' ')).join(', ');
    // a refund's runners, by name
    if (key === 'runners') return value.map(String).join(', ');
    return html`${value.map((v, i) => html`${i > 0 ? ', ' : ''}<code>${String(v)}</code>`)}`;
  }
  if (typeof value === 'number' && key.endsWith('_minor')) {
    const currency =
      typeof all.currency === 'string'
        ? all.currency
        : lookups.currencies.get(String(all.event_id ?? entry.targetId));
    return currency ? `${currency} ${formatMajor(value, currency)}` : value.toLocaleString('en-GB');
  }
  if (typeof value === 'string' && (key === 'event_id' || key === 'order_id')) {
    return lookups.names.get(value) ?? html`<code>${value}</code>`;
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
  if (typeof value === 'object') return recordWords(value as Record<string, unknown>);
  return typeof value === 'number' ? value.toLocaleString('en-GB') : String(value);
}

function details(entry: AuditEventRow, lookups: AuditLookups): Html {
  // jsonb keeps its own key order: show them in the order of DETAIL_LABELS, others after.
  const order = Object.keys(DETAIL_LABELS);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const pairs = Object.entries(entry.details ?? {})
    .filter(([key]) => !HIDDEN_DETAILS.has(key))
    .sort(([a], [b]) => rank(a) - rank(b));
  if (pairs.length === 0) return html``;
  return html`${pairs.map(
    ([key, value]) =>
      html`<br /><span class="muted"
          >${DETAIL_LABELS[key] ?? key.replace(/_/g, ' ')}: ${detailValue(key, value, entry, lookups)}</span
        >`,
  )}`;
}

function entryRow(entry: AuditEventRow, lookups: AuditLookups): Html {
  const name = lookups.names.get(entry.targetId);
  return html`<tr>
    <td data-label="When">${formatTime(entry.createdAt)}</td>
    <td data-label="Who">${entry.actorLabel}</td>
    <td data-label="What">
      ${words(entry.action)}: ${TARGETS[entry.targetType] ?? entry.targetType}
      ${name === undefined ? html`<code>${entry.targetId}</code>` : html`<strong>${name}</strong>`}
      ${details(entry, lookups)}
    </td>
    <td data-label="IP">${entry.ip ?? html`<span class="muted">none</span>`}</td>
  </tr>`;
}

export interface AuditView {
  viewer: Viewer;
  entries: AuditEventRow[];
  lookups: AuditLookups;
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
                ${view.entries.map((entry) => entryRow(entry, view.lookups))}
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
