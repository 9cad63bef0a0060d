// Settling a payment attempt on the provider's answer to a status query: only a final success of
// the amount asked pays the order; a pending answer counts a poll and says when to ask next.
import { eq } from 'drizzle-orm';
import { completeCheckoutSessions } from '../checkout/index.ts';
import type { AppContext } from '../context.ts';
import { confirmOrderPaid, type PayOutcome } from '../orders/index.ts';
import type { Tx } from '../platform/index.ts';
import { countAttemptEnd, failAttempt, timeOutAttempt, type PaymentAttemptRow } from './payment-attempts.ts';
import { nextQueryAt, reconcileEnd } from './payment-schedule.ts';
import { paymentAttempts } from './payments.schema.ts';
import type { StatusResult } from './provider.ts';

/**
 * Pays an order in the caller's transaction (confirmOrderPaid) and completes its checkout session,
 * if it has one, when this payment paid it.
 */
export async function settleOrderPaid(tx: Tx, orderId: string, now: Date): Promise<PayOutcome> {
  const outcome = await confirmOrderPaid(tx, orderId, now);
  const sessionId = outcome.order.checkoutSessionId;
  if (outcome.kind === 'paid' && sessionId) await completeCheckoutSessions(tx, [{ sessionId, at: now }]);
  return outcome;
}

/**
 * Applies a final answer of a status query (from the job or after a callback). Only this marks an
 * order paid, and only when the amount and currency the provider reports equal what we asked for.
 */
export async function applyFinalStatus(
  ctx: AppContext,
  tx: Tx,
  attempt: PaymentAttemptRow,
  status: Extract<StatusResult, { status: 'successful' | 'failed' }>,
  now: Date,
): Promise<void> {
  if (status.status === 'failed') {
    await failAttempt(tx, attempt, status.failureKind, status.message, now);
    countAttemptEnd(ctx, attempt, status.failureKind);
    return;
  }
  // A provider that reports no amount (Airtel's status enquiry) cannot contradict us; one that
  // reports a different amount or currency is never accepted.
  const amountDiffers = status.amount !== null && status.amount !== attempt.amount;
  const currencyDiffers = status.currency !== null && status.currency !== attempt.currency;
  if (amountDiffers || currencyDiffers) {
    ctx.log.error(
      {
        reference: attempt.reference,
        order_id: attempt.orderId,
        expected: { amount: attempt.amount, currency: attempt.currency },
        reported: { amount: status.amount, currency: status.currency },
      },
      'payment amount mismatch: not accepted, needs review',
    );
    await failAttempt(
      tx,
      attempt,
      'provider_error',
      'amount reported by the provider differs from the order total',
      now,
    );
    countAttemptEnd(ctx, attempt, 'provider_error');
    return;
  }
  await tx
    .update(paymentAttempts)
    .set({ status: 'successful', providerTransactionId: status.providerTransactionId, finalizedAt: now })
    .where(eq(paymentAttempts.id, attempt.id));
  countAttemptEnd(ctx, attempt, 'successful');
  const outcome = await settleOrderPaid(tx, attempt.orderId, now);
  // Both are listed by listPaymentsNeedingRefund (admin API and CLI); the log says so at once.
  if (outcome.kind === 'paid_after_expiry') {
    ctx.log.error(
      { order_id: attempt.orderId, reference: attempt.reference },
      'payment arrived after the order stopped holding its tickets and capacity is gone: refund needed',
    );
  } else if (outcome.kind === 'already_paid') {
    ctx.log.error(
      { order_id: attempt.orderId, reference: attempt.reference },
      'a second payment for an order already paid: refund needed',
    );
  }
}

/**
 * Applies the job's status query. A final answer settles the attempt; a pending one counts one
 * poll, times the attempt out for the buyer once the prompt window has passed, and fails it only
 * when RECONCILE_FOR_MS has passed. Returns when to ask next, or null when the attempt is settled.
 */
export async function applyStatus(
  ctx: AppContext,
  tx: Tx,
  attempt: PaymentAttemptRow,
  status: StatusResult,
  now: Date,
): Promise<Date | null> {
  if (status.status === 'successful' || status.status === 'failed') {
    await applyFinalStatus(ctx, tx, attempt, status, now);
    return null;
  }
  // pending, or not_found (the provider has not recorded it yet): ask again later.
  const timeScale = ctx.gateway.timeScale;
  const polls = attempt.polls + 1;
  await tx.update(paymentAttempts).set({ polls }).where(eq(paymentAttempts.id, attempt.id));
  if (now.getTime() >= reconcileEnd(attempt, timeScale)) {
    await failAttempt(
      tx,
      attempt,
      'payment_timeout',
      'no final answer from the provider within 24 hours',
      now,
    );
    countAttemptEnd(ctx, attempt, 'payment_timeout');
    return null;
  }
  if (attempt.status === 'pending' && now.getTime() >= attempt.promptExpiresAt.getTime()) {
    await timeOutAttempt(tx, attempt, now);
  }
  return nextQueryAt(attempt, polls, now, timeScale);
}
