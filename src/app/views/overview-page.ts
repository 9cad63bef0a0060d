// The organization's home page: who you are, then sales at a glance for one event (paid tickets
// per day per ticket type, places left, money by payment method and by channel or partner) and
// the organization's payments needing attention.
import { html, type Html } from '../../platform/index.ts';
import type { AttentionItem, MoneyLine, SalesOverview } from '../../sales/index.ts';
import { formatDate, formatMoney } from '../../site/index.ts';
import { renderCapacityBars, renderStackedBarChart } from './charts.ts';
import { formatTime } from './fields.ts';
import { page, type Viewer } from './layout.ts';

const DAY_MS = 24 * 3600 * 1000;

/** Every calendar day from `first` to `last` (YYYY-MM-DD), so quiet days show as gaps. */
export function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= end && days.length < 3660; t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

const shortDay = (day: string) =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(
    new Date(`${day}T00:00:00Z`),
  );
const longDay = (day: string) =>
  new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${day}T00:00:00Z`));

function dailyChart(sales: SalesOverview): Html {
  const event = sales.event!;
  if (sales.daily.length === 0) return html`<p class="muted">No paid registrations yet.</p>`;
  const days = daysBetween(sales.daily[0]!.day, sales.daily.at(-1)!.day);
  const byDay = new Map(sales.daily.map((d) => [d.day, d.tickets]));
  const total = sales.daily.reduce((sum, d) => sum + Object.values(d.tickets).reduce((a, b) => a + b, 0), 0);
  return renderStackedBarChart({
    id: 'daily-chart',
    title: `Paid registrations per day, ${event.name}`,
    description:
      `${total} paid registrations from ${longDay(days[0]!)} to ${longDay(days.at(-1)!)}, ` +
      `one bar per day stacked by ticket type. Days in ${event.timezone} time.`,
    categories: days.map(shortDay),
    categoryNames: days.map(longDay),
    categoryHeading: 'Day',
    series: sales.ticketTypes.map((tt) => ({
      name: tt.name,
      values: days.map((d) => byDay.get(d)?.[tt.id] ?? 0),
    })),
  });
}

function moneyTable(caption: string, heading: string, lines: MoneyLine[], currency: string): Html {
  if (lines.length === 0) return html`<p class="muted">No paid orders yet.</p>`;
  return html`<div class="table-wrap">
    <table class="stack">
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">${heading}</th>
          <th scope="col" class="num">Orders</th>
          <th scope="col" class="num">Paid by buyers</th>
          <th scope="col" class="num">Fees</th>
        </tr>
      </thead>
      <tbody>
        ${lines.map(
          (line) =>
            html`<tr>
              <th scope="row">${line.label}</th>
              <td class="num" data-label="Orders">${line.orders}</td>
              <td class="num nowrap" data-label="Paid by buyers">
                ${formatMoney(line.totalMinor, currency)}
              </td>
              <td class="num nowrap" data-label="Fees">${formatMoney(line.feesMinor, currency)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

const REASONS: Record<AttentionItem['reason'], { label: string; hint: string }> = {
  paid_after_expiry: {
    label: 'Paid after expiry',
    hint: 'The payment arrived after the places were released and none were left: refund it from its order.',
  },
  duplicate_payment: {
    label: 'Duplicate payment',
    hint: 'The order was already paid by an earlier payment: refund this one from its order.',
  },
  refund_failed: {
    label: 'Refund failed',
    hint: 'The network refused the refund or did not confirm it: try again, or pay the buyer back another way.',
  },
  pending_too_long: {
    label: 'Pending too long',
    hint: 'The prompt went out longer ago than the approval window and no answer came yet.',
  },
};

/** A payment to refund opens its order at the "Refund this payment" action. */
const orderAnchor = (item: AttentionItem) =>
  item.reason === 'paid_after_expiry' || item.reason === 'duplicate_payment' ? '#refunds-due' : '';

function attention(sales: SalesOverview): Html {
  const { items, more } = sales.attention;
  if (items.length === 0) return html`<p class="notice good">Nothing needs attention.</p>`;
  return html`<div class="table-wrap">
      <table class="stack">
        <caption class="visually-hidden">
          Payments needing attention, all events
        </caption>
        <thead>
          <tr>
            <th scope="col">Problem</th>
            <th scope="col">Order</th>
            <th scope="col">Event</th>
            <th scope="col">Method</th>
            <th scope="col" class="num">Amount</th>
            <th scope="col">Since</th>
          </tr>
        </thead>
        <tbody>
          ${items.map(
            (item) =>
              html`<tr>
                <td data-label="Problem"><strong>${REASONS[item.reason].label}</strong></td>
                <td data-label="Order">
                  <a href="/orders/${item.orderId}${orderAnchor(item)}"><code>${item.orderCode}</code></a>
                </td>
                <td data-label="Event">${item.eventName}</td>
                <td data-label="Method">${item.method}</td>
                <td data-label="Amount" class="num nowrap">
                  ${formatMoney(item.amountMinor, item.currency)}
                </td>
                <td data-label="Since" class="nowrap">${formatTime(item.at)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${more ? html`<p class="muted">More payments need attention than shown here: the oldest come first.</p>` : ''}
    <ul class="hints">
      ${[...new Set(items.map((i) => i.reason))].map(
        (reason) => html`<li><strong>${REASONS[reason].label}</strong>: ${REASONS[reason].hint}</li>`,
      )}
    </ul>`;
}

function eventFilter(sales: SalesOverview): Html {
  return html`<form method="get" action="/" class="filter">
    <label for="event">Event</label>
    <select id="event" name="event">
      ${sales.events.map(
        (e) =>
          html`<option value="${e.id}" ${e.id === sales.event?.id ? html`selected` : ''}>
            ${e.name} (${formatDate(e.startsAt, e.timezone)})
          </option>`,
      )}
    </select>
    <button type="submit">Show</button>
  </form>`;
}

function eventSales(sales: SalesOverview): Html {
  const event = sales.event;
  if (!event) return html`<p class="panel">No events yet: sales show here once an event has orders.</p>`;
  return html`${eventFilter(sales)}
    <p class="muted">
      ${event.name}, ${formatDate(event.startsAt, event.timezone)}. Days in ${event.timezone} time.
    </p>
    <section aria-labelledby="daily-heading" class="panel">
      <h3 id="daily-heading">Paid registrations per day</h3>
      ${dailyChart(sales)}
    </section>
    <section aria-labelledby="capacity-heading" class="panel">
      <h3 id="capacity-heading">Places per ticket type</h3>
      ${
        sales.ticketTypes.length > 0
          ? renderCapacityBars(sales.ticketTypes)
          : html`<p class="muted">This event has no ticket types.</p>`
      }
    </section>
    <div class="panel">
      <h3 id="method-heading">Money by payment method</h3>
      ${moneyTable('Money by payment method', 'Method', sales.byMethod, event.currency)}
      <h3 id="channel-heading">Money by channel or partner</h3>
      ${moneyTable('Money by channel or partner', 'Channel', sales.byChannel, event.currency)}
    </div>`;
}

export function renderOverview(viewer: Viewer, roleDescription: string, sales: SalesOverview): string {
  const { current } = viewer;
  const main = html`<h1>${current.organizationName}</h1>
    <p>
      Signed in as <strong>${current.member.email}</strong>, with the role <strong>${current.role}</strong>.
      <span class="muted">${roleDescription}</span>
    </p>
    <h2>Sales at a glance</h2>
    ${eventSales(sales)}
    <h2>Payments needing attention</h2>
    <p class="muted">Across all events.</p>
    ${attention(sales)}
    <h2>Where to go</h2>
    <ul>
      <li><a href="/orders">Orders</a>: find one, refund it, or download a selection as CSV.</li>
      <li><a href="/events">Events</a>: create and edit them, and their start lists and bib numbers.</li>
      <li><a href="/developers">API clients</a>: their keys, scopes and allowed domains.</li>
      <li><a href="/account">Your password and sessions</a>: where you are signed in.</li>
    </ul>`;
  return page({ title: current.organizationName, main, viewer, section: 'overview' });
}
