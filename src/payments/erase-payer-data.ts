// Payments' part of retention and erasure (src/privacy/ drives both): the payer's number of an
// order's payment attempts, and the reasons given for its refunds (free text that may name
// someone), are replaced by the marker (amounts, references and outcomes stay, so refunds and the
// provider's statements still reconcile), and an unpaid order deleted after it
// ended takes its failed attempts with it, unless money is in play.
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { ERASED, type Executor } from '../platform/index.ts';
import { paymentAttempts, refunds } from './payments.schema.ts';

/**
 * Replaces the payer's number of these orders' payment attempts, and their refunds' reasons;
 * counts the attempts changed.
 */
export async function redactPayerNumbers(tx: Executor, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  await tx
    .update(refunds)
    .set({ reason: ERASED })
    .where(and(inArray(refunds.orderId, orderIds), sql`${refunds.reason} <> ${ERASED}`));
  const changed = await tx
    .update(paymentAttempts)
    .set({ msisdn: ERASED })
    .where(and(inArray(paymentAttempts.orderId, orderIds), sql`${paymentAttempts.msisdn} <> ${ERASED}`))
    .returning({ id: paymentAttempts.id });
  return changed.length;
}

/**
 * Of these orders, those with money in play: a payment attempt that did not fail (approved, or
 * still awaited: the provider may yet settle it), or a refund. Such an order is never deleted.
 */
export async function ordersWithMoney(db: Executor, orderIds: string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const [attempts, refunded] = await Promise.all([
    db
      .selectDistinct({ orderId: paymentAttempts.orderId })
      .from(paymentAttempts)
      .where(and(inArray(paymentAttempts.orderId, orderIds), ne(paymentAttempts.status, 'failed'))),
    db.selectDistinct({ orderId: refunds.orderId }).from(refunds).where(inArray(refunds.orderId, orderIds)),
  ]);
  return new Set([...attempts, ...refunded].map((r) => r.orderId));
}

/** Deletes the failed payment attempts of these orders (to be deleted themselves); counts them. */
export async function deleteFailedAttempts(tx: Executor, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  const deleted = await tx
    .delete(paymentAttempts)
    .where(and(inArray(paymentAttempts.orderId, orderIds), eq(paymentAttempts.status, 'failed')))
    .returning({ id: paymentAttempts.id });
  return deleted.length;
}
