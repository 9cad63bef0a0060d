// The sender: in each process that runs background work, new events are taken from the outbox
// queue and due retries claimed from the deliveries, in batches; up to WEBHOOK_CONCURRENCY sends
// are kept in flight over kept-alive connections, no more than WEBHOOK_SEND_RATE start per second,
// and their outcomes are recorded in batches. A slow receiver holds one place in flight, never the
// others: a freed place is filled by the next batch. Several processes share the work through the
// leases on queue rows and on deliveries.
import type { AppContext } from '../context.ts';
import type { WorkQueue } from '../platform/index.ts';
import {
  claimDeliveries,
  sendDelivery,
  takeFreshDeliveries,
  type ClaimedDelivery,
  type FinishedAttempt,
  type QueuePlace,
} from './deliver-webhook.ts';
import { recordAttempts } from './record-attempts.ts';
import { keepAliveAgents, type SendAgents } from './send-webhook.ts';
import type { OutboxFollower } from './webhook-deliveries.ts';

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
  /** the first attempts of each taken event (by queue row) not yet recorded */
  private readonly unfinished = new Map<number, number>();
  /** taken events with a first attempt that could not be recorded: their rows stay */
  private readonly kept = new Set<number>();
  private recording: Promise<void> = Promise.resolve();
  private recordTimer: NodeJS.Timeout | null = null;

  private readonly ctx: AppContext;
  private readonly followers: readonly OutboxFollower[];
  /** how long to wait before taking again after a batch came back short */
  readonly pollMs: number;

  /** `followers`: other modules' jobs made from outbox events (webhook-deliveries.ts OutboxFollower). */
  constructor(ctx: AppContext, followers: readonly OutboxFollower[] = [], pollMs = 500) {
    this.ctx = ctx;
    this.followers = followers;
    this.pollMs = pollMs;
    this.width = ctx.config.webhooks.concurrency;
    this.claimStep = Math.ceil(this.width / 2);
    this.gapMs = 1000 / ctx.config.webhooks.sendRate;
    this.agents = keepAliveAgents(this.width);
  }

  /**
   * Sends what is due, taking more as places free up, until a batch finds nothing and no send is
   * in flight (or `stopping()` holds and the sends in flight are done); every outcome is recorded
   * before it returns. Returns how many deliveries it sent.
   */
  async runDue(stopping: () => boolean = () => false): Promise<number> {
    const inFlight = new Set<Promise<void>>();
    let sent = 0;
    /** after a short batch, when to take again while sends are still in flight */
    let takeAfter = 0;
    /** after a short claim of retries, when to claim them again; new events are taken meanwhile */
    let retryAfter = 0;
    /** the pace: no batch before this, so that sends start at WEBHOOK_SEND_RATE at most */
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
        const wantBatch = idle || room >= this.claimStep;
        const batchAt = Math.max(idle ? 0 : takeAfter, paceAt);
        if (wantBatch && Date.now() >= batchAt) {
          const batch: ClaimedDelivery[] = [];
          try {
            // New events and due retries share the places: while both wait, new events get half,
            // so that neither an endpoint's retries after an outage nor a burst of sales holds
            // the other up. Retries are not claimed again for a while after a claim came back short.
            const retrying = Date.now() >= retryAfter;
            const freshShare = retrying ? Math.ceil(room / 2) : room;
            const fresh = await this.takeFresh(freshShare);
            batch.push(...fresh);
            if (retrying && batch.length < room) {
              if (place && Date.now() - placeSince > RESTART_PLACE_MS) place = null;
              const want = room - batch.length;
              const retries = await claimDeliveries(this.ctx, { limit: want, after: place });
              if (place === null) placeSince = Date.now();
              place = retries.length < want ? null : retries.at(-1)!;
              if (retries.length < want) retryAfter = Date.now() + this.pollMs;
              batch.push(...retries);
              // more new events than their share, and places the retries left
              if (fresh.length >= freshShare && batch.length < room)
                batch.push(...(await this.takeFresh(room - batch.length)));
            }
          } catch (error) {
            failure = error; // the sends in flight are still finished and recorded
          }
          takeAfter = batch.length < room ? Date.now() + this.pollMs : 0;
          if (batch.length === 0 && idle) break;
          // Unused pace is kept for one batch's worth at most: a burst never exceeds a batch.
          paceAt = Math.max(paceAt, Date.now() - this.claimStep * this.gapMs) + batch.length * this.gapMs;
          for (const delivery of batch) {
            const send: Promise<void> = this.send(delivery).finally(() => inFlight.delete(send));
            inFlight.add(send);
          }
          sent += batch.length;
          continue;
        }
        await this.nextChange(inFlight, wantBatch ? batchAt : null);
      }
    } finally {
      await this.recordNow();
    }
    if (failure !== null) throw failure;
    return sent;
  }

  /** New events' first attempts, each event's counted until they are all finished. */
  private async takeFresh(limit: number): Promise<ClaimedDelivery[]> {
    const fresh = await takeFreshDeliveries(this.ctx, limit, this.followers);
    for (const { fresh: origin } of fresh)
      this.unfinished.set(origin!.seq, (this.unfinished.get(origin!.seq) ?? 0) + 1);
    return fresh;
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

  /**
   * Records every finished attempt, after the records already under way (one at a time), with the
   * queue rows of the events whose first attempts are all recorded. An event with a first attempt
   * left unrecorded keeps its row, taken again when the lease runs out.
   */
  private recordNow(): Promise<void> {
    if (this.recordTimer) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    const finished = this.unrecorded.splice(0);
    this.recording = this.recording
      .then(async () => {
        const released: number[] = [];
        for (const { delivery } of finished) {
          if (!delivery.fresh) continue;
          const { seq } = delivery.fresh;
          const left = this.unfinished.get(seq)! - 1;
          this.unfinished.set(seq, left);
          if (left === 0 && !this.kept.has(seq)) released.push(seq);
        }
        const unrecorded = await recordAttempts(this.ctx, finished, released);
        for (const { delivery } of unrecorded) if (delivery.fresh) this.kept.add(delivery.fresh.seq);
        for (const { delivery } of finished) {
          const seq = delivery.fresh?.seq;
          if (seq !== undefined && this.unfinished.get(seq) === 0) {
            this.unfinished.delete(seq);
            this.kept.delete(seq);
          }
        }
      })
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
