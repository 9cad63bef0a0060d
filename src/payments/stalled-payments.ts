// Payments an organizer should look at because they are stuck: a pending order whose prompt has
// been out longer than the buyer's approval window (the provider never answered, or our
// reconciliation is behind). Read for the sales overview; refunds.ts lists the ones to pay back.
import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { findOrders, pendingOrderIds, type OrderRow } from '../orders/index.ts';
import type { Executor } from '../platform/index.ts';
import type { PaymentAttemptRow } from './payment-attempts.ts';
import { paymentAttempts } from './payments.schema.ts';

export interface StalledPayment {
  attempt: PaymentAttemptRow;
  order: OrderRow;
}

/**
 * Attempts still awaiting the provider's word, as payment_attempts_awaited_idx is defined (spelled
 * in the SQL, not bound, so that even a generic plan can use that partial index). closed is left
 * out: the buyer gave that prompt up (another number, cancel), so the order no longer waits on it.
 */
const AWAITED = sql`${paymentAttempts.status} IN ('submitting', 'pending', 'timed_out')`;

/**
 * The organization's pending orders with an attempt past its prompt window and not settled, the
 * longest waiting first, at most `limit` (hasMore says there are more).
 */
export async function listStalledPayments(
  db: Executor,
  options: { organizationId: string; now: Date; limit: number },
): Promise<{ payments: StalledPayment[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(paymentAttempts)
    .where(
      and(
        eq(paymentAttempts.organizationId, options.organizationId),
        inArray(paymentAttempts.orderId, pendingOrderIds(options.organizationId)),
        AWAITED,
        lt(paymentAttempts.promptExpiresAt, options.now),
        // only the order's latest attempt: an older one timed out while the buyer tries again
        sql`NOT EXISTS (SELECT 1 FROM ${paymentAttempts} AS later
          WHERE later.order_id = ${paymentAttempts.orderId}
            AND (later.created_at, later.id) > (${paymentAttempts.createdAt}, ${paymentAttempts.id}))`,
      ),
    )
    .orderBy(asc(paymentAttempts.promptExpiresAt), asc(paymentAttempts.id))
    .limit(options.limit + 1);
  const page = rows.slice(0, options.limit);
  const ordersById = new Map(
    (await findOrders(db, options.organizationId, [...new Set(page.map((a) => a.orderId))])).map((o) => [
      o.id,
      o,
    ]),
  );
  return {
    payments: page.flatMap((attempt) => {
      const order = ordersById.get(attempt.orderId);
      return order ? [{ attempt, order }] : [];
    }),
    hasMore: rows.length > options.limit,
  };
}
