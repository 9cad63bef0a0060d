// Payment attempt rows: reading them, marking one failed or timed out for the buyer, and counting
// how attempts end (payment_attempts_total).
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { cancelPendingOrder, showPaymentFailure, type FailureKind } from '../orders/index.ts';
import type { Database, Executor, Tx } from '../platform/index.ts';
import { paymentAttempts } from './payments.schema.ts';

export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;

/**
 * Attempts the provider may still settle: the job keeps asking about these. timed_out and closed
 * (by the buyer: close-attempt.ts) are no longer awaited by the buyer, but a success still counts.
 */
export const UNSETTLED = ['pending', 'timed_out', 'closed'] as const;

export function isUnsettled(status: string): boolean {
  return (UNSETTLED as readonly string[]).includes(status);
}

export async function openAttempt(db: Executor, orderId: string): Promise<PaymentAttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentAttempts)
    .where(
      and(eq(paymentAttempts.orderId, orderId), inArray(paymentAttempts.status, ['submitting', 'pending'])),
    );
  return row;
}

/** Whether a payment prompt for the order is out: an attempt being submitted or pending. */
export async function hasOpenAttempt(db: Executor, orderId: string): Promise<boolean> {
  const [prompt] = await db
    .select({ id: paymentAttempts.id })
    .from(paymentAttempts)
    .where(
      and(eq(paymentAttempts.orderId, orderId), inArray(paymentAttempts.status, ['submitting', 'pending'])),
    )
    .limit(1);
  return prompt !== undefined;
}

export async function findAttempt(
  db: Executor,
  reference: string,
  lock = false,
): Promise<PaymentAttemptRow | undefined> {
  const query = db.select().from(paymentAttempts).where(eq(paymentAttempts.reference, reference));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Every attempt of an order, oldest first (the organizer's order timeline). */
export async function attemptsOfOrder(db: Executor, orderId: string): Promise<PaymentAttemptRow[]> {
  return db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId))
    .orderBy(asc(paymentAttempts.createdAt), asc(paymentAttempts.id));
}

/** The latest attempt of an order (for the wait screen and the order read). */
export async function latestAttempt(db: Executor, orderId: string): Promise<PaymentAttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId))
    .orderBy(desc(paymentAttempts.createdAt))
    .limit(1);
  return row;
}

export async function failAttempt(
  tx: Tx,
  attempt: PaymentAttemptRow,
  kind: FailureKind,
  message: string,
  now: Date,
) {
  await tx
    .update(paymentAttempts)
    .set({ status: 'failed', failureKind: kind, failureMessage: message.slice(0, 500), finalizedAt: now })
    .where(eq(paymentAttempts.id, attempt.id));
  // A timed-out attempt was already shown as a failure, and a closed one the buyer left: either
  // way the buyer may since have paid again, and this failure is not theirs to see.
  if (attempt.status !== 'timed_out' && attempt.status !== 'closed') {
    await showPaymentFailure(tx, attempt.orderId, kind, now);
    await releaseAfterFailures(tx, attempt.orderId, now);
  }
}

/**
 * Failed payments after which an order's places go back on sale at once: a buyer who has been
 * declined this often cannot pay this order, and holding its places for the rest of the hold would
 * keep them from others (docs/decisions/places-back-after-failed-payments.md).
 */
export const FAILED_PAYMENTS_PER_ORDER = 3;

/** How many of the order's payments failed. */
export async function failedPaymentsOf(db: Executor, orderId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(paymentAttempts)
    .where(and(eq(paymentAttempts.orderId, orderId), eq(paymentAttempts.status, 'failed')));
  return Number(row?.n ?? 0);
}

/**
 * Cancels the pending order once FAILED_PAYMENTS_PER_ORDER of its payments failed, releasing its
 * places; not while any payment of it may still succeed (a timed-out or closed one the provider
 * has not settled), which the hold then covers as before.
 */
async function releaseAfterFailures(tx: Tx, orderId: string, now: Date): Promise<void> {
  if ((await failedPaymentsOf(tx, orderId)) < FAILED_PAYMENTS_PER_ORDER) return;
  const [unsettled] = await tx
    .select({ id: paymentAttempts.id })
    .from(paymentAttempts)
    .where(
      and(
        eq(paymentAttempts.orderId, orderId),
        inArray(paymentAttempts.status, ['submitting', ...UNSETTLED]),
      ),
    )
    .limit(1);
  if (!unsettled) await cancelPendingOrder(tx, orderId, now);
}

/**
 * The prompt window ended with no answer: the buyer is told the payment timed out and may pay
 * again, but the attempt stays unsettled and the job keeps asking the provider.
 */
export async function timeOutAttempt(tx: Tx, attempt: PaymentAttemptRow, now: Date) {
  await tx
    .update(paymentAttempts)
    .set({
      status: 'timed_out',
      failureKind: 'payment_timeout',
      failureMessage: 'not approved within the prompt window; still asking the provider',
    })
    .where(eq(paymentAttempts.id, attempt.id));
  await showPaymentFailure(tx, attempt.orderId, 'payment_timeout', now);
}

/**
 * Counts an attempt that ended (paid, or failed with `outcome`) in payment_attempts_total, when the
 * service has metrics. Called beside the write that ends it, in its transaction: one rolled back
 * after this (rare: the write went through) is counted again when the attempt is settled again.
 */
export function countAttemptEnd(
  ctx: AppContext,
  attempt: PaymentAttemptRow,
  outcome: 'successful' | FailureKind,
): void {
  ctx.metrics?.paymentAttempts.inc({ provider: attempt.method, outcome });
}

/** Payment attempts in all organizations (cli db restore's check of what a backup held). */
export async function countPaymentAttempts(database: Database): Promise<number> {
  const [row] = await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${paymentAttempts}`);
  return row!.n;
}
