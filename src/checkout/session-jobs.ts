// Background work of checkout sessions, run by the shared job runner.
import { and, eq, sql } from 'drizzle-orm';
import type { JobHandler } from '../platform/index.ts';
import { checkoutSessions } from './checkout.schema.ts';

export const SESSION_SWEEP_JOB = 'checkout_session.expire_due';
const SESSION_SWEEP_EVERY_MS = 5 * 60_000;

export const checkoutJobHandlers: Record<string, JobHandler> = {
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
