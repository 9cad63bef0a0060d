// The webhooks module's background work on the shared job runner: a recurring dispatcher that fans
// new outbox events out to deliveries, and one job per delivery that sends it on the schedule.
import type { AppContext } from '../context.ts';
import { enqueueJob, type JobHandlerEntry } from '../platform/jobs.ts';
import { attemptDelivery } from './deliver-webhook.ts';
import { dispatchOutbox, WEBHOOK_DELIVER_JOB, type OutboxFollower } from './webhook-deliveries.ts';

export { WEBHOOK_DELIVER_JOB };
export const WEBHOOK_DISPATCH_JOB = 'webhook.dispatch';

/** events per dispatcher run: a few statements each run, whatever the number */
const DISPATCH_BATCH = 500;

/** How often the outbox is read: every second, faster under a time scale but not a busy loop. */
export function dispatchIntervalMs(timeScale: number): number {
  return Math.max(50, Math.round(1000 * timeScale));
}

/** `followers`: other modules' jobs made from outbox events (webhook-deliveries.ts OutboxFollower). */
export function webhookJobHandlers(
  ctx: AppContext,
  followers: readonly OutboxFollower[] = [],
): Record<string, JobHandlerEntry> {
  const interval = dispatchIntervalMs(ctx.config.webhooks.timeScale);
  return {
    [WEBHOOK_DISPATCH_JOB]: async ({ tx, now }) => {
      const taken = await dispatchOutbox(tx, now, DISPATCH_BATCH, followers);
      // A full batch means more may be waiting: go again at once.
      return { retryAt: new Date(now.getTime() + (taken === DISPATCH_BATCH ? 0 : interval)) };
    },
    [WEBHOOK_DELIVER_JOB]: {
      outsideTransaction: true,
      run: async ({ job }) => {
        const next = await attemptDelivery(ctx, String(job.payload.delivery_id));
        return next ? { retryAt: next } : undefined;
      },
    },
  };
}

/**
 * Deliveries mostly wait (on the receiver and the database), so the runner sends up to
 * WEBHOOK_CONCURRENCY at once; one at a time, a backlog drained at a few a second under checkout load (bench B5).
 */
export function webhookJobLanes(ctx: AppContext): Record<string, number> {
  return { [WEBHOOK_DELIVER_JOB]: ctx.config.webhooks.concurrency };
}

/** The dispatcher is one row whichever process runs it (dedupe key); each start makes it due now. */
export async function startWebhookDispatcher(ctx: AppContext): Promise<void> {
  await enqueueJob(ctx.database.db, {
    kind: WEBHOOK_DISPATCH_JOB,
    runAt: ctx.clock.now(),
    dedupeKey: `recurring:${WEBHOOK_DISPATCH_JOB}`,
    maxAttempts: 1000,
  });
}
