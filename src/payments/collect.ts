// Collecting a payment for an order: send the prompt, then learn the outcome by status queries
// only, and settle the order in one transaction. Callbacks are hints: they may make a status query
// come sooner, never count against the job's schedule, and never end it. No double prompt for one
// order (a unique index allows one open attempt), no payment ever lost (the job asks for 24 hours;
// a late success is honoured or listed for refund), no amount accepted that differs from the order
// total, and none asked above the provider's per-payment maximum.
//
// This file holds the attempt's job (reconcileAttempt); starting a payment is start-payment.ts,
// settling it settle-payment.ts, callbacks note-callback.ts, the schedule payment-schedule.ts.
import type { AppContext } from '../context.ts';
import type { OutsideJobHandler } from '../platform/index.ts';
import { findAttempt, isUnsettled, timeOutAttempt } from './payment-attempts.ts';
import { providerOf } from './payment-gateway.ts';
import { nextQueryAt, PAYMENT_JOB } from './payment-schedule.ts';
import { refundJobHandlers } from './process-refund.ts';
import type { StatusResult } from './provider.ts';
import { applyStatus } from './settle-payment.ts';
import { submitAttempt } from './start-payment.ts';

/**
 * The attempt's job: submits the prompt if it was never sent, then asks the provider for the
 * outcome. Returns when to ask next, or null when the attempt is settled.
 */
export async function reconcileAttempt(ctx: AppContext, reference: string): Promise<Date | null> {
  const gateway = ctx.gateway;
  let attempt = await findAttempt(ctx.database.db, reference);
  if (attempt?.status === 'submitting') {
    await submitAttempt(ctx, reference);
    attempt = await findAttempt(ctx.database.db, reference);
    if (attempt && isUnsettled(attempt.status)) {
      return nextQueryAt(attempt, attempt.polls, ctx.clock.now(), gateway.timeScale);
    }
  }
  if (!attempt || !isUnsettled(attempt.status)) return null;
  let status: StatusResult;
  try {
    status = await providerOf(gateway, attempt.method).getStatus(reference, attempt.providerReference, {
      amount: attempt.amount,
      currency: attempt.currency,
    });
  } catch (error) {
    // The provider cannot be asked (the runner retries with backoff); the buyer still hears of
    // the timeout when the prompt window is over.
    if (attempt.status === 'pending' && ctx.clock.now() >= attempt.promptExpiresAt) {
      await ctx.database.transaction(async (tx) => {
        const locked = await findAttempt(tx, reference, true);
        if (locked?.status === 'pending') await timeOutAttempt(tx, locked, ctx.clock.now());
      });
    }
    throw error;
  }
  return ctx.database.transaction(async (tx) => {
    const locked = await findAttempt(tx, reference, true);
    if (!locked || !isUnsettled(locked.status)) return null; // settled meanwhile: duplicates are harmless
    return applyStatus(ctx, tx, locked, status, ctx.clock.now());
  });
}

export function paymentJobHandlers(ctx: AppContext): Record<string, OutsideJobHandler> {
  // Provider calls happen outside any transaction; the job row is rescheduled or removed after.
  return {
    ...refundJobHandlers(ctx),
    [PAYMENT_JOB]: {
      outsideTransaction: true,
      run: async ({ job }) => {
        const next = await reconcileAttempt(ctx, String(job.payload.reference));
        return next ? { retryAt: next } : undefined;
      },
    },
  };
}
