// Erasing a buyer's personal data from an order's page (owners and admins): the question, which
// says plainly what goes and what stays, and the answer, with what was erased. Also how the
// order pages show a buyer whose data was erased.
import type { OrderRow } from '../../orders/index.ts';
import { html, isErased, type Html } from '../../platform/index.ts';
import type { BuyerErasure } from '../../privacy/index.ts';
import { formatMoney } from '../../site/index.ts';
import { csrfInput, page, type Viewer } from './layout.ts';

/** An order's buyer whose name, email and phone were all erased. */
export function buyerErased(order: Pick<OrderRow, 'buyerName' | 'buyerEmail' | 'buyerPhone'>): boolean {
  return isErased(order.buyerName) && isErased(order.buyerEmail) && isErased(order.buyerPhone);
}

/** A buyer's contact details in a line: a free registration may have no phone (''). */
export function contactLine(...parts: string[]): string {
  return parts.filter((part) => part !== '').join(', ');
}

/** What the order pages show in place of an erased buyer's contact details. */
export const ERASED_BUYER = html`<span class="muted">Personal data erased</span>`;

/** The question before erasing: whose data, what goes, what stays, and that it cannot be undone. */
export function renderBuyerErasureConfirmation(view: { viewer: Viewer; order: OrderRow }): string {
  const { order } = view;
  const main = html`<p>
      <a href="/orders/${order.id}">Order <code>${order.orderCode}</code></a>
    </p>
    <h1>Erase the personal data of ${order.buyerName}?</h1>
    <p>
      Every order of this organization placed with <strong>${order.buyerEmail}</strong>, this one included,
      loses its personal data. This cannot be undone.
    </p>
    <h2>What is erased</h2>
    <ul>
      <li>The buyer's name, email address and phone number.</li>
      <li>Each participant's name, date of birth and answers to the event's questions.</li>
      <li>The mobile money number of each payment.</li>
      <li>The address on each confirmation email record, and the details a partner passed to checkout.</li>
      <li>The same data in the webhook events this service keeps, and what receivers answered to them.</li>
    </ul>
    <h2>What is kept</h2>
    <ul>
      <li>
        Each order with its code, status, amounts (this one: ${formatMoney(order.total, order.currency)}),
        dates and payment references, for the accounts.
      </li>
      <li>The number of tickets and registrations, their prices, statuses and bib numbers.</li>
      <li>An entry in the audit log saying you erased a buyer's data, with the counts: never the data.</li>
    </ul>
    <p>
      What partners already received through webhooks or the API is theirs to erase: tell them if the person
      asked. Backups made before today still hold the data until they expire.
    </p>
    <form method="post" action="/orders/${order.id}/erase-buyer" class="actions">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <button type="submit" class="danger">Erase this buyer's personal data</button>
      <a href="/orders/${order.id}">Keep it</a>
    </form>`;
  return page({
    title: `Erase the buyer of order ${order.orderCode}`,
    main,
    viewer: view.viewer,
    section: 'orders',
  });
}

function countLine(n: number, one: string, many: string): Html | '' {
  return n > 0 ? html`<li>${n} ${n === 1 ? one : many}</li>` : '';
}

/** The answer: what the erasure changed in this organization. */
export function renderBuyerErased(view: { viewer: Viewer; order: OrderRow; erasure: BuyerErasure }): string {
  const { order } = view;
  const c = view.erasure.counts;
  const lines = [
    countLine(c.orders, 'order', 'orders'),
    countLine(c.registrations, 'registration', 'registrations'),
    countLine(c.paymentAttempts, 'payment', 'payments'),
    countLine(c.orderMails, 'confirmation email record', 'confirmation email records'),
    countLine(c.checkoutSessions, 'checkout session', 'checkout sessions'),
    countLine(c.webhookEvents, 'webhook event', 'webhook events'),
    countLine(c.webhookResponses, "receiver's answer", "receivers' answers"),
    countLine(c.storedResponses, 'stored API response', 'stored API responses'),
  ].filter((line) => line !== '');
  const main = html`<p>
      <a href="/orders/${order.id}">Order <code>${order.orderCode}</code></a>
    </p>
    <h1>The buyer's personal data is erased</h1>
    ${
      lines.length > 0
        ? html`<p class="notice good" role="status">Erased from:</p>
            <ul>
              ${lines}
            </ul>`
        : html`<p class="notice good" role="status">There was nothing left to erase.</p>`
    }
    <p>
      Amounts and counts are kept. The audit log names this erasure <code>${view.erasure.erasureId}</code>.
    </p>
    <p><a href="/orders/${order.id}">Back to the order</a></p>`;
  return page({ title: 'Buyer data erased', main, viewer: view.viewer, section: 'orders' });
}
