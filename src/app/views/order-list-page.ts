// The orders list: its filters (a GET form, no script needed), a page at a time newest first, and
// the same filters as an Excel or CSV download. Buyers' email and phone only for roles that see them.
import { can } from '../../members/index.ts';
import { ORDER_CHANNELS, ORDER_STATUSES, type OrderListRow } from '../../orders/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import { nationalPhone } from '../../site/index.ts';
import type { FieldErrors } from '../form-body.ts';
import type { OrderFilterValues } from '../order-filters.ts';
import { filterQuery } from '../order-filters.ts';
import { buyerErased, contactLine, ERASED_BUYER } from './buyer-erasure-pages.ts';
import { errorSummary, fieldId, formatPrice, formatTime } from './fields.ts';
import { orderStatusText } from './order-status.ts';
import { page, type Viewer } from './layout.ts';
import { CHANNEL_LABELS } from './order-pages.ts';

export interface OrdersView {
  viewer: Viewer;
  values: OrderFilterValues;
  errors: FieldErrors;
  rows: OrderListRow[];
  /** the `after` value of the next page, when there is one */
  next: string | null;
  events: { id: string; name: string }[];
  clients: { id: string; name: string }[];
}

function select(
  name: keyof OrderFilterValues,
  label: string,
  options: [string, string][],
  view: OrdersView,
): Html {
  const id = fieldId(name);
  const error = view.errors[name];
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">${label}</label>
    ${error ? html`<p class="error" id="${id}-error">Error: ${error}</p>` : ''}
    <select id="${id}" name="${name}" ${attr('aria-describedby', error ? `${id}-error` : null)}>
      <option value="">All</option>
      ${options.map(([value, text]) => html`<option value="${value}" ${attr('selected', view.values[name] === value)}>${text}</option>`)}
    </select>
  </div>`;
}

function textInput(name: keyof OrderFilterValues, label: string, view: OrdersView, hint?: string): Html {
  const id = fieldId(name);
  const error = view.errors[name];
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">${label}</label>
    ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
    ${error ? html`<p class="error" id="${id}-error">Error: ${error}</p>` : ''}
    <input
      type="text"
      id="${id}"
      name="${name}"
      value="${view.values[name]}"
      ${attr('aria-describedby', describedBy || null)}${attr('aria-invalid', error ? 'true' : null)}
    />
  </div>`;
}

function filterForm(view: OrdersView): Html {
  const { values, errors } = view;
  // Folded unless one is set or wrong: on a phone the search and the list come first.
  const more = (['event', 'status', 'channel', 'client', 'from', 'to'] as const).some(
    (name) => values[name] !== '' || errors[name] !== undefined,
  );
  return html`<form method="get" action="/orders" class="filters" novalidate>
    ${textInput('q', 'Search', view, 'Order code, name, e-mail or phone number')}
    <details class="more-filters" ${attr('open', more)}>
      <summary>More filters</summary>
      <div class="filter-grid">
        ${select(
          'event',
          'Event',
          view.events.map((e) => [e.id, e.name]),
          view,
        )}
        ${select(
          'status',
          'Status',
          ORDER_STATUSES.map((s) => [s, s]),
          view,
        )}
        ${select(
          'channel',
          'Channel',
          ORDER_CHANNELS.map((c) => [c, CHANNEL_LABELS[c]]),
          view,
        )}
        ${select(
          'client',
          'Partner',
          view.clients.map((c) => [c.id, c.name]),
          view,
        )}
        ${textInput('from', 'Created from', view, `YYYY-MM-DD, in ${view.viewer.current.timeZone}`)}
        ${textInput('to', 'Created to', view, `YYYY-MM-DD, in ${view.viewer.current.timeZone}`)}
      </div>
    </details>
    <div class="actions">
      <button type="submit" class="primary">Show orders</button>
      <a href="/orders">Clear</a>
    </div>
  </form>`;
}

function orderRow(
  row: OrderListRow,
  names: { events: Map<string, string>; clients: Map<string, string> },
  contacts: boolean,
): Html {
  const channel = CHANNEL_LABELS[row.channel];
  const client = row.apiClientId ? names.clients.get(row.apiClientId) : undefined;
  return html`<tr>
    <td data-label="Order">
      <a href="/orders/${row.id}"><code>${row.orderCode}</code></a>
    </td>
    <td data-label="Created" class="nowrap">
      <time datetime="${row.createdAt.toISOString()}">${formatTime(row.createdAt)}</time>
    </td>
    <td data-label="Event">${names.events.get(row.eventId) ?? row.eventId}</td>
    <td data-label="Buyer">
      ${
        buyerErased(row)
          ? ERASED_BUYER
          : contacts
            ? html`${row.buyerName}<br /><span class="muted"
                  >${contactLine(row.buyerEmail, nationalPhone(row.buyerPhone))}</span
                >`
            : row.buyerName
      }
    </td>
    <td data-label="Tickets">${row.tickets}</td>
    <td data-label="Total" class="nowrap">${formatPrice(row.total, row.currency)}</td>
    <td data-label="Status">${orderStatusText(row)}</td>
    <td data-label="Channel">${channel}${client ? html`<br /><span class="muted">${client}</span>` : ''}</td>
  </tr>`;
}

export function renderOrders(view: OrdersView): string {
  const names = {
    events: new Map(view.events.map((e) => [e.id, e.name])),
    clients: new Map(view.clients.map((c) => [c.id, c.name])),
  };
  const query = filterQuery(view.values);
  const { role } = view.viewer.current;
  const contacts = can(role, 'buyer_contacts');
  const hasErrors = Object.keys(view.errors).length > 0;
  const main = html`<h1>Orders</h1>
    ${errorSummary(view.errors)} ${filterForm(view)}
    ${
      can(role, 'exports')
        ? html`<p class="actions">
              <a class="button" href="/orders.xlsx${query}" download>Download these orders (Excel)</a>
              <a class="button" href="/orders.csv${query}" download>Download these orders (CSV)</a>
            </p>
            <p class="muted">
              Every order the filters match, times in the event's time
              zone${contacts ? '' : ", without buyers' email and phone"}.
            </p>`
        : ''
    }
    ${
      view.rows.length === 0
        ? html`<p>No orders match.</p>`
        : html`<div class="table-wrap" role="region" aria-label="Orders, newest first" tabindex="0">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Created</th>
                  <th scope="col">Event</th>
                  <th scope="col">Buyer</th>
                  <th scope="col">Tickets</th>
                  <th scope="col">Total</th>
                  <th scope="col">Status</th>
                  <th scope="col">Channel</th>
                </tr>
              </thead>
              <tbody>
                ${view.rows.map((row) => orderRow(row, names, contacts))}
              </tbody>
            </table>
          </div>`
    }
    ${view.next ? html`<p><a href="/orders${filterQuery(view.values, { after: view.next })}">Older orders</a></p>` : ''}`;
  return page({ title: 'Orders', main, viewer: view.viewer, section: 'orders', hasErrors });
}
