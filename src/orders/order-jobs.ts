// Background work of the commerce core, run by the shared job runner.
import { and, eq, sql } from 'drizzle-orm';
import { checkoutSessions } from '../checkout/checkout.schema.ts';
import type { JobHandler } from '../platform/jobs.ts';
import { HOLD_EXPIRY_JOB } from './create-order.ts';
import { expireOrderHold } from './order-lifecycle.ts';

export const SESSION_SWEEP_JOB = 'checkout_session.expire_due';
const SESSION_SWEEP_EVERY_MS = 5 * 60_000;

export const orderJobHandlers: Record<string, JobHandler> = {
  [HOLD_EXPIRY_JOB]: async ({ job, tx, now }) => {
    const result = await expireOrderHold(tx, String(job.payload.order_id), now);
    return result === 'done' ? undefined : result;
  },
  // Recurring: marks sessions past their 24 hours as expired in storage (reads already say so by time).
  [SESSION_SWEEP_JOB]: async ({ tx, now }) => {
    await tx
      .update(checkoutSessions)
      .set({ status: 'expired' })
      .where(
        and(
          eq(checkoutSessions.status, 'open'),
          sql`${checkoutSessions.expiresAt} <= ${now.toISOString()}::timestamptz`,
        ),
      );
    return { retryAt: new Date(now.getTime() + SESSION_SWEEP_EVERY_MS) };
  },
};
