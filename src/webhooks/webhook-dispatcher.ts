// The dispatcher: in each process that runs background work, new outbox events are fanned out to
// deliveries (and to other modules' jobs) in small transactions, paced at twice the sender's rate,
// so that a backlog of events becomes deliveries a slice at a time rather than in one burst that
// takes the CPU requests need. Several processes share the outbox queue through its row locks.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../context.ts';
import type { WorkQueue } from '../platform/jobs.ts';
import { dispatchOutbox, type OutboxFollower } from './webhook-deliveries.ts';

/** events per transaction: a few statements each, whatever the number */
const SLICE = 50;

/** How often the outbox is read when idle: every second, faster under a time scale but not a busy loop. */
export function dispatchIntervalMs(timeScale: number): number {
  return Math.max(50, Math.round(1000 * timeScale));
}

export class WebhookDispatcher implements WorkQueue {
  readonly name = 'webhook dispatch';
  readonly pollMs: number;
  private readonly ctx: AppContext;
  private readonly followers: readonly OutboxFollower[];
  /** the pause after a full slice: fan-out stays ahead of the sends, at twice their rate */
  private readonly sliceGapMs: number;

  /** `followers`: other modules' jobs made from outbox events (webhook-deliveries.ts OutboxFollower). */
  constructor(ctx: AppContext, followers: readonly OutboxFollower[] = []) {
    this.ctx = ctx;
    this.followers = followers;
    this.pollMs = dispatchIntervalMs(ctx.config.webhooks.timeScale);
    this.sliceGapMs = (SLICE * 1000) / (2 * ctx.config.webhooks.sendRate);
  }

  /** Fans out what the outbox queue holds, a slice per transaction, until a slice comes back short. */
  async runDue(stopping: () => boolean = () => false): Promise<number> {
    let total = 0;
    for (;;) {
      const taken = await this.ctx.database.transaction((tx) =>
        dispatchOutbox(tx, this.ctx.clock.now(), SLICE, this.followers),
      );
      total += taken;
      if (taken < SLICE || stopping()) return total;
      await sleep(this.sliceGapMs);
    }
  }
}
