// Payments that bought nothing and must be returned, for operators (admin API and CLI): a success
// confirmed after its order stopped holding tickets with no capacity left (the order is flagged
// paid_after_expiry), and a second success for an order another payment already paid. Derived
// from the attempts and their orders, so no path can forget to list one; a payment leaves the list
// while its refund is under way or done (actions/refund-order.ts), and comes back if the refund fails.
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import { union } from 'drizzle-orm/pg-core';
import { findOrders, paidAfterExpiryOrderIds, type OrderRow } from '../orders/index.ts';
import type { Executor } from '../platform/index.ts';
import type { PaymentAttemptRow } from './payment-attempts.ts';
import { paymentAttempts, refunds } from './payments.schema.ts';

export type RefundReason = 'paid_after_expiry' | 'duplicate_payment';

export interface PaymentNeedingRefund {
  reason: RefundReason;
  attempt: PaymentAttemptRow;
  order: OrderRow;
}

/** Longest list one call returns; hasMore says there are more (oldest first, so none is skipped). */
export const REFUND_LIST_LIMIT = 500;

// the status spelled in the SQL, not bound: a generic plan can use the partial index only so
const successfulOf = (organizationId: string) =>
  and(eq(paymentAttempts.organizationId, organizationId), sql`${paymentAttempts.status} = 'successful'`);

/** The organization's successful payments that must be refunded, the longest-waiting first. */
export async function listPaymentsNeedingRefund(
  db: Executor,
  organizationId: string,
  limit = REFUND_LIST_LIMIT,
): Promise<{ payments: PaymentNeedingRefund[]; hasMore: boolean }> {
  // The few orders concerned first, each kind from an index: orders paid twice or more (one
  // pass over payment_attempts_successful_idx) and successes of orders flagged paid_after_expiry
  // (orders_paid_after_expiry_idx). The query below then reads only their attempts, so its
  // EXISTS runs for them alone, not for every success of the organization.
  const successful = successfulOf(organizationId);
  const candidates = await union(
    db
      .select({ orderId: paymentAttempts.orderId })
      .from(paymentAttempts)
      .where(successful)
      .groupBy(paymentAttempts.orderId)
      .having(sql`count(*) > 1`),
    db
      .select({ orderId: paymentAttempts.orderId })
      .from(paymentAttempts)
      .where(and(successful, inArray(paymentAttempts.orderId, paidAfterExpiryOrderIds(organizationId)))),
  );
  return paymentsDue(
    db,
    organizationId,
    candidates.map((c) => c.orderId),
    limit,
  );
}

/** The payments of one order of the organization that must be refunded (the organizer's order page). */
export async function paymentsNeedingRefundOfOrder(
  db: Executor,
  organizationId: string,
  orderId: string,
): Promise<PaymentNeedingRefund[]> {
  return (await paymentsDue(db, organizationId, [orderId], REFUND_LIST_LIMIT)).payments;
}

/** Of these orders' successful payments, those to refund: one rule for the list and the order page. */
async function paymentsDue(
  db: Executor,
  organizationId: string,
  orderIds: string[],
  limit: number,
): Promise<{ payments: PaymentNeedingRefund[]; hasMore: boolean }> {
  if (orderIds.length === 0) return { payments: [], hasMore: false };
  // A paid order's first success bought its tickets; every later one is a second payment.
  const paidEarlier = sql<boolean>`EXISTS (
    SELECT 1 FROM ${paymentAttempts} AS earlier
    WHERE earlier.order_id = ${paymentAttempts.orderId} AND earlier.status = 'successful'
      AND (earlier.finalized_at, earlier.id) < (${paymentAttempts.finalizedAt}, ${paymentAttempts.id}))`;
  const rows = await db
    .select()
    .from(paymentAttempts)
    .where(
      and(
        successfulOf(organizationId),
        inArray(paymentAttempts.orderId, orderIds),
        or(inArray(paymentAttempts.orderId, paidAfterExpiryOrderIds(organizationId)), paidEarlier),
        sql`NOT EXISTS (SELECT 1 FROM ${refunds} WHERE ${refunds.attemptId} = ${paymentAttempts.id}
          AND ${refunds.status} IN ('pending', 'succeeded'))`,
      ),
    )
    .orderBy(asc(paymentAttempts.finalizedAt), asc(paymentAttempts.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const ordersById = new Map(
    (await findOrders(db, organizationId, [...new Set(page.map((a) => a.orderId))])).map((o) => [o.id, o]),
  );
  return {
    payments: page.flatMap((attempt) => {
      const order = ordersById.get(attempt.orderId);
      if (!order) return [];
      const reason: RefundReason = order.paidAfterExpiry ? 'paid_after_expiry' : 'duplicate_payment';
      return [{ reason, attempt, order }];
    }),
    hasMore: rows.length > limit,
  };
}
