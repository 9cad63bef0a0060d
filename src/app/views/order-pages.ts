// One order of the organization: its runners (order-runners.ts), refunds and payments to refund, and a
// timeline of what happened to it (created, each payment attempt and its outcome, paid, closed,
// each webhook delivery). The orders list is in order-list-page.ts.
import { can } from '../../members/index.ts';
import type { OrderChannel, OrderRow } from '../../orders/index.ts';
import type { PaymentAttemptRow, RefundPreview, RefundRow } from '../../payments/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { formatMoney, METHOD_NAMES, nationalPhone } from '../../site/index.ts';
import { buyerErased, contactLine, ERASED_BUYER } from './buyer-erasure-pages.ts';
import { errorSummary, fieldId, formatPrice, formatTime, input } from './fields.ts';
import { orderStatusText } from './order-status.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { orderMailEntries, orderMailsSection, type OrderMailsView } from './order-mails.ts';
import { runnersSection, type RunnersView } from './order-runners.ts';
import { deliveriesNote, refundsDueSection, webhookEntries, type OrderActivity } from './order-activity.ts';
import { attemptStarted, attemptSubject, confirmerOf, refundTarget } from './payer-words.ts';

export const CHANNEL_LABELS: Record<OrderChannel, string> = {
  api: "Partner's server (API)",
  hosted: 'Hosted checkout page',
  embedded: 'Embedded checkout',
};

export interface OrderView {
  viewer: Viewer;
  order: OrderRow;
  runners: RunnersView;
  eventName: string;
  clientName: string | null;
  attempts: PaymentAttemptRow[];
  refunds: RefundRow[];
  /** the buyer's confirmation mails and their resend */
  mails: OrderMailsView;
  activity: OrderActivity;
  /** the member is an owner or an admin */
  mayRefund: boolean;
  /** the member may erase the buyer's personal data (an owner or an admin) */
  mayErase: boolean;
  notice: string | null;
  /** why a refund could not be asked */
  problem: string | null;
}

interface TimelineEntry {
  at: Date;
  text: Html | string;
}

/** What became of a prompt, once the network answered (or the buyer moved on). */
const ATTEMPT_OUTCOMES: Record<string, string> = {
  successful: 'approved',
  failed: 'declined or failed',
  timed_out: 'no answer within the approval window',
  closed: 'left by the buyer for another number or network',
};

function outcomeText(a: PaymentAttemptRow): Html {
  const outcome = ATTEMPT_OUTCOMES[a.status] ?? a.status;
  const kind = a.status === 'failed' && a.failureKind ? ` (${a.failureKind})` : '';
  const detail =
    a.status === 'failed' && a.failureMessage ? html` <span class="muted">${a.failureMessage}</span>` : '';
  return html`${attemptSubject(a)}: ${outcome}${kind}${detail}`;
}

function timeline(view: OrderView): TimelineEntry[] {
  const { order, attempts } = view;
  const entries: TimelineEntry[] = [{ at: order.createdAt, text: 'Order created' }];
  for (const a of attempts) {
    entries.push({
      at: a.createdAt,
      text: attemptStarted(a, formatMoney(a.amount, a.currency)),
    });
    if (a.finalizedAt) entries.push({ at: a.finalizedAt, text: outcomeText(a) });
  }
  if (order.paidAt)
    entries.push({ at: order.paidAt, text: order.paidAfterExpiry ? 'Paid after its hold ran out' : 'Paid' });
  if (order.closedAt && order.status !== 'paid' && order.status !== 'refunded') {
    entries.push({ at: order.closedAt, text: `Closed: ${order.status}` });
  }
  for (const r of view.refunds) {
    entries.push({
      at: r.createdAt,
      text: `Refund of ${REFUND_KINDS[r.kind] ?? r.kind}, ${formatMoney(r.amount, r.currency)}, asked by ${r.requestedByLabel}`,
    });
    if (r.finalizedAt) {
      entries.push({
        at: r.finalizedAt,
        text:
          r.status === 'succeeded'
            ? `Refund confirmed by ${confirmerOf(r.method)}`
            : `Refund failed${r.failureReason ? `: ${r.failureReason}` : ''}`,
      });
    }
  }
  entries.push(...orderMailEntries(view.mails.mails, can(view.viewer.current.role, 'buyer_contacts')));
  entries.push(...webhookEntries(view.activity));
  return entries.sort((x, y) => x.at.getTime() - y.at.getTime());
}

/** What a refund gives back: the whole order, or a payment that bought nothing. */
const REFUND_KINDS: Record<string, string> = {
  order: 'the order',
  paid_after_expiry: 'a payment made after expiry',
  duplicate_payment: 'a second payment',
};

const REFUND_STATUS: Record<string, string> = {
  succeeded: 'Refunded',
  failed: 'Failed',
};

/** What a refund is of: a payment, or the order with the runners whose places it returns. */
function refundOf(r: RefundRow, names: Map<string, string>): string {
  if (r.kind !== 'order') return REFUND_KINDS[r.kind] ?? r.kind;
  if (r.registrationIds.length === 0) return 'An amount; every place kept';
  return r.registrationIds.map((id) => names.get(id) ?? id).join(', ');
}

function refundsSection(refunds: RefundRow[], runners: RunnersView): Html {
  if (refunds.length === 0) return html``;
  const names = new Map(runners.runners.map((r) => [r.registration.id, r.registration.participantName]));
  return html`<h2>Refunds</h2>
    <div class="table-wrap" role="region" aria-label="Refunds" tabindex="0">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Asked</th>
            <th scope="col">Of</th>
            <th scope="col">Amount</th>
            <th scope="col">Reason</th>
            <th scope="col">Status</th>
            <th scope="col">Asked by</th>
          </tr>
        </thead>
        <tbody>
          ${refunds.map(
            (r) =>
              html`<tr>
                <td data-label="Asked" class="nowrap">${formatTime(r.createdAt)}</td>
                <td data-label="Of">${refundOf(r, names)}</td>
                <td data-label="Amount">
                  <span class="nowrap">${formatMoney(r.amount, r.currency)}</span> by
                  ${METHOD_NAMES[r.method] ?? r.method}
                </td>
                <td data-label="Reason">${r.reason ?? ''}</td>
                <td data-label="Status">
                  ${r.status === 'pending' ? `Waiting for ${confirmerOf(r.method)}` : (REFUND_STATUS[r.status] ?? r.status)}${r.failureReason ? html`<br /><span class="muted">${r.failureReason}</span>` : ''}
                </td>
                <td data-label="Asked by">${r.requestedByLabel}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

/** What the refund form was given, as typed (kept on a refusal, carried by the confirmation). */
export interface RefundFormValues {
  /** the registrations ticked */
  runners: string[];
  /** the amount as typed, in major units; '' for none */
  amount: string;
  reason: string;
}

/** The refund form: the runners to tick (each with what its place gives back), an amount, a reason. */
export function renderRefundForm(view: {
  viewer: Viewer;
  preview: RefundPreview;
  values: RefundFormValues;
  errors: FieldErrors;
  problem: string | null;
}): string {
  const { order, runners, left } = view.preview;
  const { values, errors } = view;
  const method = order.paymentMethod
    ? (METHOD_NAMES[order.paymentMethod] ?? order.paymentMethod)
    : 'mobile money';
  const runnersError = errors.runners;
  const main = html`<p>
      <a href="/orders/${order.id}">Order <code>${order.orderCode}</code></a>
    </p>
    <h1>Refund order <code>${order.orderCode}</code></h1>
    ${errorSummary(errors, view.problem)}
    <p>
      ${formatMoney(left, order.currency)} of ${formatMoney(order.total, order.currency)} is left to refund.
      Money goes back to ${order.buyerName} through ${method}, to ${refundTarget(order.paymentMethod)}.
    </p>
    <form method="post" action="/orders/${order.id}/refund" novalidate>
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <input type="hidden" name="step" value="review" />
      <fieldset class="${runnersError ? 'invalid' : ''}" aria-describedby="${fieldId('runners')}-hint">
        <legend id="${fieldId('runners')}">Runners whose places go back</legend>
        <p class="hint" id="${fieldId('runners')}-hint">
          Each returns its ticket price and the service fee paid on it. Tick none to refund everything left.
        </p>
        ${runnersError ? html`<p class="error" id="${fieldId('runners')}-error">${runnersError}</p>` : ''}
        ${runners.map(({ registration: r, amount, refunded }) =>
          refunded
            ? html`<div class="check">
                <input type="checkbox" id="runner-${r.id}" disabled />
                <label for="runner-${r.id}"
                  >${r.participantName}, ${r.ticketLabel} <strong>Refunded</strong></label
                >
              </div>`
            : html`<div class="check">
                <input
                  type="checkbox"
                  id="runner-${r.id}"
                  name="runners"
                  value="${r.id}"
                  ${attr('checked', values.runners.includes(r.id))}
                />
                <label for="runner-${r.id}"
                  >${r.participantName}, ${r.ticketLabel}:
                  <span class="nowrap">${formatMoney(amount, order.currency)}</span> back</label
                >
              </div>`,
        )}
      </fieldset>
      ${input({
        name: 'amount',
        label: `Or an amount (${order.currency}, optional)`,
        hint: 'Given alone, this much goes back and every place stays. With runners ticked, it replaces what their places come to.',
        value: values.amount,
        errors,
        autocomplete: 'off',
      })}
      <div class="field${errors.reason ? ' invalid' : ''}">
        <label for="${fieldId('reason')}">Reason</label>
        <p class="hint" id="${fieldId('reason')}-hint">
          Kept with the refund and told to the buyer in their email.
        </p>
        ${errors.reason ? html`<p class="error" id="${fieldId('reason')}-error">${errors.reason}</p>` : ''}
        <textarea
          id="${fieldId('reason')}"
          name="reason"
          rows="3"
          maxlength="500"
          aria-describedby="${fieldId('reason')}-hint${errors.reason ? ` ${fieldId('reason')}-error` : ''}"
          ${attr('aria-invalid', errors.reason ? 'true' : null)}
        >
${values.reason}</textarea>
      </div>
      <div class="actions">
        <button type="submit">Review the refund</button>
        <a href="/orders/${order.id}">Keep the order</a>
      </div>
    </form>`;
  return page({
    title: `Refund order ${order.orderCode}`,
    main,
    viewer: view.viewer,
    section: 'orders',
    hasErrors: Object.keys(errors).length > 0 || view.problem !== null,
  });
}

/** The refund before it is asked: what goes back, whose places, why; it cannot be undone. */
export function renderRefundConfirmation(view: {
  viewer: Viewer;
  preview: RefundPreview;
  values: RefundFormValues;
}): string {
  const { order, plan, runners } = view.preview;
  const method = order.paymentMethod
    ? (METHOD_NAMES[order.paymentMethod] ?? order.paymentMethod)
    : 'mobile money';
  const places = runners.filter((r) => plan.registrationIds.includes(r.registration.id));
  const amount = formatMoney(plan.amount, order.currency);
  const main = html`<p>
      <a href="/orders/${order.id}">Order <code>${order.orderCode}</code></a>
    </p>
    <h1>Refund ${amount}?</h1>
    <dl class="facts">
      <dt>Goes back</dt>
      <dd>${amount} to ${order.buyerName} through ${method}, to ${refundTarget(order.paymentMethod)}</dd>
      <dt>Places cancelled</dt>
      <dd>
        ${
          places.length === 0
            ? 'None: every runner keeps their place'
            : html`<ul class="plain">
                ${places.map((p) => html`<li>${p.registration.participantName}, ${p.registration.ticketLabel}</li>`)}
              </ul>`
        }
      </dd>
      <dt>Reason</dt>
      <dd>${view.values.reason}</dd>
      <dt>Afterwards</dt>
      <dd>
        ${
          plan.completes
            ? 'The order is refunded in full.'
            : `The order stays paid, with ${formatMoney(view.preview.left - plan.amount, order.currency)} left to refund.`
        }
      </dd>
    </dl>
    <p>Cancelled places lose their tickets and are free to sell again. This cannot be undone.</p>
    <form method="post" action="/orders/${order.id}/refund" class="actions">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <input type="hidden" name="step" value="confirm" />
      ${view.values.runners.map((id) => html`<input type="hidden" name="runners" value="${id}" />`)}
      <input type="hidden" name="amount" value="${view.values.amount}" />
      <input type="hidden" name="reason" value="${view.values.reason}" />
      <button type="submit" class="danger">Refund ${amount}</button>
      <a href="/orders/${order.id}/refund">Change</a>
    </form>`;
  return page({ title: `Refund order ${order.orderCode}`, main, viewer: view.viewer, section: 'orders' });
}

export function renderOrder(view: OrderView): string {
  const { order } = view;
  const channel =
    CHANNEL_LABELS[
      order.checkoutMode === null ? 'api' : order.checkoutMode === 'embedded' ? 'embedded' : 'hosted'
    ];
  const refundable =
    view.mayRefund && order.status === 'paid' && order.total > 0 && order.refundedTotal < order.total;
  const main = html`<p><a href="/orders">Orders</a></p>
    <h1>Order <code>${order.orderCode}</code></h1>
    ${view.notice ? html`<p class="notice good" role="status">${view.notice}</p>` : ''}
    ${view.problem ? html`<p class="notice bad" role="alert">${view.problem}</p>` : ''}
    <dl class="facts">
      <dt>Status</dt>
      <dd>${orderStatusText(order)}</dd>
      <dt>Event</dt>
      <dd>${view.eventName}</dd>
      <dt>Total</dt>
      <dd>
        ${formatPrice(order.total, order.currency)}${order.paymentMethod ? ` by ${METHOD_NAMES[order.paymentMethod] ?? order.paymentMethod}` : ''}
      </dd>
      ${
        order.refundedTotal > 0
          ? html`<dt>Refunded</dt>
              <dd>${formatMoney(order.refundedTotal, order.currency)}</dd>`
          : ''
      }
      <dt>Buyer</dt>
      <dd>
        ${
          buyerErased(order)
            ? ERASED_BUYER
            : can(view.viewer.current.role, 'buyer_contacts')
              ? contactLine(order.buyerName, order.buyerEmail, nationalPhone(order.buyerPhone))
              : order.buyerName
        }
      </dd>
      <dt>Channel</dt>
      <dd>${channel}${view.clientName ? `, ${view.clientName}` : ''}</dd>
      ${
        order.partnerReference
          ? html`<dt>Partner reference</dt>
              <dd><code>${order.partnerReference}</code></dd>`
          : ''
      }
    </dl>
    ${runnersSection(view.runners)} ${refundsSection(view.refunds, view.runners)} ${refundsDueSection(view)}
    ${refundable ? html`<p><a class="button" href="/orders/${order.id}/refund">Refund this order</a></p>` : ''}
    ${orderMailsSection(order, view.mails, view.viewer.current.session.csrfToken)}
    <h2>Timeline</h2>
    <ol class="timeline">
      ${timeline(view).map(
        (e) => html`<li><time datetime="${e.at.toISOString()}">${formatTime(e.at)}</time>: ${e.text}</li>`,
      )}
    </ol>
    ${deliveriesNote(view.activity)}
    ${
      view.mayErase && !buyerErased(order)
        ? html`<h2>Personal data</h2>
            <p>
              <a class="button" href="/orders/${order.id}/erase-buyer">Erase this buyer's personal data</a>
            </p>
            <p class="hint">When the buyer asks: their orders keep amounts and counts, not who they are.</p>`
        : ''
    }`;
  return page({ title: `Order ${order.orderCode}`, main, viewer: view.viewer, section: 'orders' });
}
