// Closing a payment attempt for the buyer (resend, another number or network, cancel): no prompt
// of the order is then open, so a new one may be sent, but the attempt stays unsettled. The job
// keeps asking the provider, and a success still pays the order (or is listed for refund when
// the order was paid another way or released meanwhile): nothing a buyer paid for is lost.
import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { lockOrder } from '../orders/index.ts';
import type { Tx } from '../platform/index.ts';
import type { PaymentAttemptRow } from './payment-attempts.ts';
import { RESEND_AFTER_MS } from './payment-schedule.ts';
import { paymentAttempts } from './payments.schema.ts';

/**
 * In the caller's transaction: marks the order's open attempt (submitting or pending) `closed`
 * and returns it as it was, or null when no prompt was open. The order row is locked first, as
 * startPayment and the settling paths do, so closing never races a new attempt for the order.
 */
async function closeOpenAttempt(
  tx: Tx,
  options: { organizationId: string; orderId: string; reason: string },
): Promise<PaymentAttemptRow | null> {
  const order = await lockOrder(tx, options.orderId);
  if (!order || order.organizationId !== options.organizationId) return null;
  const [open] = await tx
    .select()
    .from(paymentAttempts)
    .where(
      and(eq(paymentAttempts.orderId, order.id), inArray(paymentAttempts.status, ['submitting', 'pending'])),
    )
    .for('update');
  if (!open) return null;
  await tx
    .update(paymentAttempts)
    .set({ status: 'closed', failureMessage: options.reason.slice(0, 500) })
    .where(eq(paymentAttempts.id, open.id));
  return open;
}

/** closeOpenAttempt in a transaction of its own. */
export async function closePaymentAttempt(
  ctx: AppContext,
  options: { organizationId: string; orderId: string; reason: string },
): Promise<PaymentAttemptRow | null> {
  return ctx.database.transaction((tx) => closeOpenAttempt(tx, options));
}

/** When the buyer may ask for the prompt again: RESEND_AFTER_MS after it was sent (time-scaled). */
export function resendOpensAt(ctx: AppContext, attempt: PaymentAttemptRow): Date {
  return new Date(attempt.createdAt.getTime() + RESEND_AFTER_MS * ctx.gateway.timeScale);
}
