// The order page's parts about what happened around the order: each webhook delivery its
// partner was sent, as timeline entries with every attempt, and the payments of the order waiting
// for a refund, each with its "Refund this payment" action and the question asked before it.
import type { OrderRow } from '../../orders/index.ts';
import type { PaymentNeedingRefund, RefundReason } from '../../payments/index.ts';
import { html, type Html } from '../../platform/index.ts';
import { formatMoney, maskPhone, METHOD_NAMES } from '../../site/index.ts';
import type { DeliveryAbout } from '../../webhooks/index.ts';
import { formatTime } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { answered2xx, attemptSummary } from './webhook-log.ts';
import { paidBy, paidOnProviderPage } from './payer-words.ts';

export interface OrderActivity {
  /** newest first, each with the delivery log page that shows it */
  deliveries: (DeliveryAbout & { logHref: string })[];
  /** older deliveries exist beyond those shown */
  moreDeliveries: boolean;
  shownLimit: number;
  refundsDue: PaymentNeedingRefund[];
}

function deliveryState(d: DeliveryAbout): Html {
  const { delivery } = d;
  const tries = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  const next = delivery.nextAttemptAt ? html`, next attempt ${formatTime(delivery.nextAttemptAt)}` : '';
  const text: Record<string, Html | string> = {
    delivered: `after ${tries}`,
    failed: `after ${tries}; no more will be made`,
    cancelled: `after ${tries}`,
    pending: delivery.attempts === 0 ? html`no attempt yet${next}` : html`${tries} so far${next}`,
  };
  return html`<span class="status ${delivery.status}">${delivery.status}</span>
    ${text[delivery.status] ?? ''}`;
}

/** Attempts come seconds apart: their times are shown to the second. */

function deliveryText(d: DeliveryAbout & { logHref: string }): Html {
  return html`Webhook <code>${d.delivery.eventType}</code> to <code>${d.endpointUrl}</code>:
    ${deliveryState(d)} (<a href="${d.logHref}">delivery log</a>)
    ${
      d.attempts.length > 0
        ? html`<ol class="attempts" aria-label="Attempts of this delivery">
            ${d.attempts.map(
              (a) =>
                html`<li>
                  <time datetime="${a.attemptedAt.toISOString()}"
                    >${formatTime(a.attemptedAt, { seconds: true })}</time
                  >
                  <strong class="${answered2xx(a) ? 'ok' : 'fail'}">${attemptSummary(a)}</strong>
                </li>`,
            )}
          </ol>`
        : ''
    }`;
}

/** The deliveries as timeline entries, at the time each was made. */
export function webhookEntries(activity: OrderActivity): { at: Date; text: Html }[] {
  return activity.deliveries.map((d) => ({ at: d.delivery.createdAt, text: deliveryText(d) }));
}

/** Under the timeline when deliveries were left out. */
export function deliveriesNote(activity: OrderActivity): Html {
  if (!activity.moreDeliveries) return html``;
  return html`<p class="muted">
    The timeline shows the latest ${activity.shownLimit} webhook deliveries of this order; each endpoint's
    delivery log has them all.
  </p>`;
}

const REASONS: Record<RefundReason, { label: string; why: string }> = {
  paid_after_expiry: {
    label: 'Paid after expiry',
    why: 'The payment arrived after the order stopped holding its places, and none were left.',
  },
  duplicate_payment: {
    label: 'Duplicate payment',
    why: 'The order was already paid by an earlier payment.',
  },
};

const paymentRefundPath = (due: PaymentNeedingRefund) =>
  `/orders/${due.order.id}/payments/${due.attempt.id}/refund`;

/** The order's payments waiting for a refund, with the action for owners and admins. */
export function refundsDueSection(view: {
  order: OrderRow;
  activity: OrderActivity;
  mayRefund: boolean;
}): Html {
  const due = view.activity.refundsDue;
  if (due.length === 0) return html``;
  return html`<h2 id="refunds-due">Payments to refund</h2>
    <p>These payments bought nothing: the money goes back to the number or card that paid.</p>
    <ul class="refunds-due">
      ${due.map(
        (d) =>
          html`<li class="panel">
            <strong>${REASONS[d.reason].label}</strong>: ${formatMoney(d.attempt.amount, d.attempt.currency)}
            by ${paidBy(d.attempt)}, confirmed ${formatTime(d.attempt.finalizedAt ?? d.attempt.createdAt)}.
            ${REASONS[d.reason].why}
            ${
              view.mayRefund
                ? html`<p><a class="button" href="${paymentRefundPath(d)}">Refund this payment</a></p>`
                : html`<p class="muted">An owner or an admin can refund it.</p>`
            }
          </li>`,
      )}
    </ul>`;
}

/** The question before refunding one payment: what goes back, to which number, and why. */
export function renderPaymentRefundConfirmation(view: { viewer: Viewer; due: PaymentNeedingRefund }): string {
  const { order, attempt, reason } = view.due;
  const amount = formatMoney(attempt.amount, attempt.currency);
  const main = html`<p>
      <a href="/orders/${order.id}">Order <code>${order.orderCode}</code></a>
    </p>
    <h1>Refund this payment?</h1>
    <p>${REASONS[reason].why}</p>
    <p>
      ${amount} goes back through ${METHOD_NAMES[attempt.method] ?? attempt.method} to
      ${paidOnProviderPage(attempt.method) ? 'the card that paid' : html`${maskPhone(attempt.msisdn)}, the number that paid`}.
      The order itself does not change. This cannot be undone.
    </p>
    <form method="post" action="${paymentRefundPath(view.due)}" class="actions">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <button type="submit" class="danger">Refund ${amount}</button>
      <a href="/orders/${order.id}">Back to the order</a>
    </form>`;
  return page({
    title: `Refund a payment of order ${order.orderCode}`,
    main,
    viewer: view.viewer,
    section: 'orders',
  });
}
