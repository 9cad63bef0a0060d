// GET /orders/:orderId/payments/:paymentId/refund asks, POST refunds one payment of the order that
// bought nothing (paid after expiry, or a second payment) through the network that took it
// (refundPayment in src/payments/actions/refund-order.ts); the order itself does not change. Owners and
// admins only; another organization's order, or a payment of another order, is the same 404 page.
// A refusal (refunded already, being refunded, or the payment that paid the order) is the order
// page with its message, and changes nothing: a second click never refunds twice.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { OrderRow } from '../../orders/index.ts';
import {
  attemptsOfOrder,
  paymentsNeedingRefundOfOrder,
  refundPayment,
  refundsOfOrder,
  type PaymentAttemptRow,
} from '../../payments/index.ts';
import { PageError } from '../app-access.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderPaymentRefundConfirmation } from '../views/order-activity.ts';
import { orderPage } from './order-detail.ts';
import { askRefund, refundableOrder } from './order-refund.ts';
import { PaymentParams, paramsOf } from '../app-input.ts';

/** The payment in the path, if it is one of the order's. */
async function paymentOf(ctx: AppContext, request: FastifyRequest, order: OrderRow) {
  const { paymentId } = paramsOf(request, PaymentParams);
  const attempt = (await attemptsOfOrder(ctx.database.db, order.id)).find((a) => a.id === paymentId);
  if (!attempt) throw new PageError('not_found', 'payment');
  return attempt;
}

/** Why a payment of the order is not waiting for a refund, in refundPayment's words. */
async function notDueReason(ctx: AppContext, order: OrderRow, attempt: PaymentAttemptRow) {
  if (attempt.status !== 'successful') return 'Only a successful payment can be refunded.';
  const live = (await refundsOfOrder(ctx.database.db, order.organizationId, order.id)).find(
    (r) => r.attemptId === attempt.id && (r.status === 'pending' || r.status === 'succeeded'),
  );
  if (live?.status === 'pending') return 'The payment is being refunded already.';
  if (live) return 'The payment was refunded already.';
  return 'This payment paid its order: refund the order instead.';
}

export function confirmPaymentRefund(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await refundableOrder(ctx, request);
    const attempt = await paymentOf(ctx, request, order);
    const due = (await paymentsNeedingRefundOfOrder(ctx.database.db, order.organizationId, order.id)).find(
      (d) => d.attempt.id === attempt.id,
    );
    if (!due) {
      const problem = await notDueReason(ctx, order, attempt);
      return orderPage(ctx, request, reply, { status: 409, problem });
    }
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderPaymentRefundConfirmation({ viewer, due }));
  };
}

export function submitPaymentRefund(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await refundableOrder(ctx, request);
    const attempt = await paymentOf(ctx, request, order);
    // The order's lock and the one-live-refund-per-payment index make a second click a 409.
    return askRefund(ctx, request, reply, order.id, (asker) =>
      refundPayment(ctx, { ...asker, reference: attempt.reference }),
    );
  };
}
