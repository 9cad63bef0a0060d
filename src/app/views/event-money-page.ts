// An event's money page: what the organizer receives, then the figures per payment provider (the
// mobile money networks, and Flutterwave for cards) and per ticket type, with the downloads (the
// figures as CSV, every payment and refund for reconciliation).
import { PAYMENT_METHOD_CATALOGUE } from '../../payments/index.ts';
import { html, type Html } from '../../platform/index.ts';
import type { EventMoney, NetworkMoney, TicketTypeMoney } from '../../sales/index.ts';
import { formatDate, formatMoney } from '../../site/index.ts';
import { page, type Viewer } from './layout.ts';
import { can } from '../../members/index.ts';

/** "MTN MoMo, Airtel Money, M-Pesa and Flutterwave": every provider whose statements the file matches. */
const STATEMENTS = ((names: string[]) => `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`)(
  PAYMENT_METHOD_CATALOGUE.map((m) => m.provider),
);

const cell = (label: string, value: string | number, strong = false) =>
  html`<td class="num nowrap" data-label="${label}">${strong ? html`<strong>${value}</strong>` : value}</td>`;

function networkRow(line: Omit<NetworkMoney, 'key'>, money: (minor: number) => string, total = false): Html {
  return html`<tr${total ? html` class="total"` : ''}>
    <th scope="row">${line.label}</th>
    ${cell('Orders', line.orders, total)} ${cell('Paid by buyers', money(line.paidMinor), total)}
    ${cell('Service fees', money(line.feesMinor), total)} ${cell('Donations', money(line.donationsMinor), total)}
    ${cell('Refunded', money(line.refundedMinor), total)} ${cell('You receive', money(line.netMinor), total)}
  </tr>`;
}

function byNetwork(view: EventMoney, money: (minor: number) => string): Html {
  if (view.byNetwork.length === 0) return html`<p class="muted">No paid orders yet.</p>`;
  return html`<div class="table-wrap">
    <table class="stack">
      <caption class="visually-hidden">
        Money by payment provider
      </caption>
      <thead>
        <tr>
          <th scope="col">Provider</th>
          <th scope="col" class="num">Orders</th>
          <th scope="col" class="num">Paid by buyers</th>
          <th scope="col" class="num">Service fees</th>
          <th scope="col" class="num">Donations</th>
          <th scope="col" class="num">Refunded</th>
          <th scope="col" class="num">You receive</th>
        </tr>
      </thead>
      <tbody>
        ${view.byNetwork.map((line) => networkRow(line, money))}
        ${view.byNetwork.length > 1 ? networkRow({ ...view.total, label: 'Total' }, money, true) : ''}
      </tbody>
    </table>
  </div>`;
}

function ticketRow(t: TicketTypeMoney, money: (minor: number) => string): Html {
  return html`<tr>
    <th scope="row">${t.name}</th>
    ${cell('Places sold', t.tickets)} ${cell('Ticket money', money(t.ticketMinor))}
    ${cell('Service fees', money(t.feesMinor))}
    ${cell('Refunded', t.refundedTickets > 0 ? `${money(t.refundedTicketMinor)} (${t.refundedTickets})` : money(0))}
    ${cell('You receive', money(t.netMinor))}
  </tr>`;
}

function byTicketType(view: EventMoney, money: (minor: number) => string): Html {
  if (view.byTicketType.length === 0) return html`<p class="muted">This event has no ticket types.</p>`;
  return html`<div class="table-wrap">
    <table class="stack">
      <caption class="visually-hidden">
        Money by ticket type
      </caption>
      <thead>
        <tr>
          <th scope="col">Ticket type</th>
          <th scope="col" class="num">Places sold</th>
          <th scope="col" class="num">Ticket money</th>
          <th scope="col" class="num">Service fees</th>
          <th scope="col" class="num">Refunded (runners)</th>
          <th scope="col" class="num">You receive</th>
        </tr>
      </thead>
      <tbody>
        ${view.byTicketType.map((t) => ticketRow(t, money))}
        <tr>
          <th scope="row">Donations</th>
          ${cell('Places sold', '—')} ${cell('Ticket money', money(view.total.donationsMinor))}
          ${cell('Service fees', '—')}
          ${cell('Refunded', money(view.total.donationsMinor - view.donationsNetMinor))}
          ${cell('You receive', money(view.donationsNetMinor))}
        </tr>
        ${
          view.otherRefundsMinor > 0
            ? html`<tr>
                <th scope="row">Refunds of an amount</th>
                ${cell('Places sold', '—')} ${cell('Ticket money', '—')} ${cell('Service fees', '—')}
                ${cell('Refunded', money(view.otherRefundsMinor))}
                ${cell('You receive', money(-view.otherRefundsMinor))}
              </tr>`
            : ''
        }
      </tbody>
    </table>
  </div>`;
}

export function renderEventMoney(viewer: Viewer, view: EventMoney): string {
  const { event, total } = view;
  const money = (minor: number) => formatMoney(minor, event.currency);
  const base = `/events/${event.id}`;
  const main = html`<p><a href="${base}">${event.name}</a></p>
    <h1>Money</h1>
    <p class="muted">
      ${event.name}, ${formatDate(event.startsAt, event.timezone)}. Paid orders and refunds so far, in
      ${event.currency}.
    </p>
    <dl class="facts">
      <div>
        <dt>Paid by buyers</dt>
        <dd>${money(total.paidMinor)}</dd>
      </div>
      <div>
        <dt>Service fees</dt>
        <dd>${money(total.feesMinor)}</dd>
      </div>
      <div>
        <dt>Donations</dt>
        <dd>${money(total.donationsMinor)}${event.donationsEnabled ? '' : ' (not offered now)'}</dd>
      </div>
      <div>
        <dt>Refunded</dt>
        <dd>${money(total.refundedMinor)}</dd>
      </div>
      <div>
        <dt>You receive</dt>
        <dd><strong>${money(total.netMinor)}</strong></dd>
      </div>
    </dl>
    <p class="muted">
      You receive what buyers paid, less the service fees and what refunds gave back of tickets and donations.
      Service fees a refund returns are ours to bear, not yours.
    </p>
    <h2>By payment provider</h2>
    ${byNetwork(view, money)}
    <h2>By ticket type</h2>
    ${byTicketType(view, money)}
    ${
      can(viewer.current.role, 'exports')
        ? html`<h2>Downloads</h2>
            <ul>
              <li><a href="${base}/money.csv" download>These figures (CSV)</a></li>
              <li>
                <a href="${base}/reconciliation.csv" download>Every payment and refund (CSV)</a>: with the
                provider's reference of each, to match against your ${STATEMENTS} statements.
              </li>
            </ul>`
        : ''
    }`;
  return page({ title: `Money: ${event.name}`, main, viewer, section: 'events' });
}
