// The sender: in each process that runs background work, deliveries are claimed in batches
// straight from their table, up to WEBHOOK_CONCURRENCY sends are kept in flight over kept-alive
// connections, no more than WEBHOOK_SEND_RATE start per second, and their outcomes are recorded
// in batches. A slow receiver holds one place in flight, never the others: a freed place is filled
// by the next claim. Several processes share the work through the claims' leases.
import type { AppContext } from '../context.ts';
import type { WorkQueue } from '../platform/jobs.ts';
import {
  claimDeliveries,
  recordAttempts,
  sendDelivery,
  type ClaimedDelivery,
  type FinishedAttempt,
  type QueuePlace,
} from './deliver-webhook.ts';
import { keepAliveAgents, type SendAgents } from './send-webhook.ts';

/** How long claims may go on from the place of the last one before one starts over. */
const RESTART_PLACE_MS = 1000;

/** How long a finished attempt may wait for others to share its record statement. */
const RECORD_DELAY_MS = 50;

export class WebhookSender implements WorkQueue {
  readonly name = 'webhook sends';
  private readonly agents: SendAgents;
  /** sends in flight at most */
  private readonly width: number;
  /** a claim waits until this many places are free, so that claims come in batches */
  private readonly claimStep: number;
  /** WEBHOOK_SEND_RATE as the time one send takes from the pace */
  private readonly gapMs: number;
  /** finished attempts not yet recorded */
  private unrecorded: FinishedAttempt[] = [];
  private recording: Promise<void> = Promise.resolve();
  private recordTimer: NodeJS.Timeout | null = null;

  private readonly ctx: AppContext;
  /** how long to wait before claiming again after a claim found fewer than it asked for */
  readonly pollMs: number;

  constructor(ctx: AppContext, pollMs = 500) {
    this.ctx = ctx;
    this.pollMs = pollMs;
    this.width = ctx.config.webhooks.concurrency;
    this.claimStep = Math.ceil(this.width / 2);
    this.gapMs = 1000 / ctx.config.webhooks.sendRate;
    this.agents = keepAliveAgents(this.width);
  }

  /**
   * Sends what is due, claiming more as places free up, until a claim finds nothing due and no
   * send is in flight (or `stopping()` holds and the sends in flight are done); every outcome is
   * recorded before it returns. Returns how many deliveries it sent.
   */
  async runDue(stopping: () => boolean = () => false): Promise<number> {
    const inFlight = new Set<Promise<void>>();
    let sent = 0;
    /** after a short claim, when to claim again while sends are still in flight */
    let claimAfter = 0;
    /** the pace: no claim before this, so that sends start at WEBHOOK_SEND_RATE at most */
    let paceAt = 0;
    /**
     * Where the last full claim stopped: the next starts there rather than walking again over the
     * index entries of the deliveries sent since (dead until vacuum). A short claim starts over,
     * and so does the first after a second, so that a delivery committed behind the place (a late
     * commit) waits no longer than that.
     */
    let place: QueuePlace | null = null;
    let placeSince = 0;
    let failure: unknown = null;
    try {
      for (;;) {
        const idle = inFlight.size === 0;
        if (failure !== null || stopping()) {
          if (idle) break;
          await this.nextChange(inFlight, null);
          continue;
        }
        const room = this.width - inFlight.size;
        const wantClaim = idle || room >= this.claimStep;
        const claimAt = Math.max(idle ? 0 : claimAfter, paceAt);
        if (wantClaim && Date.now() >= claimAt) {
          let batch: ClaimedDelivery[] = [];
          try {
            if (place && Date.now() - placeSince > RESTART_PLACE_MS) place = null;
            batch = await claimDeliveries(this.ctx, { limit: room, after: place });
          } catch (error) {
            failure = error; // the sends in flight are still finished and recorded
          }
          const short = batch.length < room;
          claimAfter = short ? Date.now() + this.pollMs : 0;
          if (place === null) placeSince = Date.now();
          place = short ? null : batch.at(-1)!;
          if (batch.length === 0 && idle) break;
          // Unused pace is kept for one claim's worth at most: a burst never exceeds a claim.
          paceAt = Math.max(paceAt, Date.now() - this.claimStep * this.gapMs) + batch.length * this.gapMs;
          for (const delivery of batch) {
            const send: Promise<void> = this.send(delivery).finally(() => inFlight.delete(send));
            inFlight.add(send);
          }
          sent += batch.length;
          continue;
        }
        await this.nextChange(inFlight, wantClaim ? claimAt : null);
      }
    } finally {
      await this.recordNow();
    }
    if (failure !== null) throw failure;
    return sent;
  }

  /** Closes the kept-alive connections (after the last runDue). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    this.unrecorded.push(await sendDelivery(this.ctx, delivery, this.agents));
    if (this.unrecorded.length >= this.claimStep) void this.recordNow();
    else if (!this.recordTimer) {
      this.recordTimer = setTimeout(() => void this.recordNow(), RECORD_DELAY_MS);
      this.recordTimer.unref();
    }
  }

  /** Records every finished attempt, after the records already under way (one at a time). */
  private recordNow(): Promise<void> {
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    this.recording = this.recording
      .then(() => recordAttempts(this.ctx, this.unrecorded.splice(0)))
      .catch((err: unknown) => this.ctx.log.error({ err }, 'webhook attempts not recorded'));
    return this.recording;
  }

  /**
   * Waits until a send ends or, when `until` is given, until then (Date.now() time; at once if it
   * has passed). Either a send is in flight or `until` is given.
   */
  private async nextChange(inFlight: Set<Promise<void>>, until: number | null): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ...inFlight,
        ...(until === null
          ? []
          : [new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, until - Date.now()))))]),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
