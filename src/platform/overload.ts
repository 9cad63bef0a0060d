// Load shedding's monitor (its hooks are in shed-requests.ts): when this process has more work in
// hand than it can answer in time, new requests on the public hosts are answered 503
// service_unavailable with Retry-After at once, and /readyz says unready so that a load balancer
// drains the instance. Requests already taken in are never shed. What counts is the service's own
// work: the requests in hand, and how long those of a new request's route have waited for their
// turn; the event loop's delay (which another process on the machine raises too) only when its
// setting is given. Settings and why: docs/decisions/load-shedding.md.
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { ApiError } from './errors.ts';

export interface OverloadSettings {
  /** p99 event-loop delay over one window above which new requests are shed; 0 = off */
  maxEventLoopDelayMs: number;
  /** requests in hand (arrived, not answered; waiting for admission included) at which new ones are shed; 0 = off */
  maxQueued: number;
  /** how long a request in hand may wait for its work to start before new ones are shed; 0 = off */
  maxQueueTimeMs: number;
  /** the Retry-After of a shed request and of /readyz while shedding */
  retryAfterSeconds: number;
}

/** How often the delay is read (and its histogram started again), and the end of shedding considered. */
export const OVERLOAD_WINDOW_MS = 500;
/** Shedding ends once no signal has been over its threshold this long: one episode, not a flicker. */
export const OVERLOAD_CALM_MS = 2_000;

/** The event loop's delay over a window. */
export interface DelaySampler {
  start(): void;
  /** the p99 delay in ms since the last call (or start), and a new window begins */
  take(): number;
  stop(): void;
}

/**
 * perf_hooks' histogram of each turn of the loop. Sampled per iteration: the default timer-based
 * histogram takes no sample while the loop is held, so it misses the very turns that matter.
 */
export function eventLoopDelaySampler(): DelaySampler {
  let histogram: ELDHistogram | null = null;
  return {
    start() {
      histogram ??= monitorEventLoopDelay({ samplePerIteration: true });
      histogram.enable();
      histogram.reset();
    },
    take() {
      if (!histogram || histogram.count === 0) return 0;
      const p99 = histogram.percentile(99) / 1e6;
      histogram.reset();
      return p99;
    },
    stop() {
      histogram?.disable();
    },
  };
}

export interface OverloadMonitorOptions {
  sampler?: DelaySampler;
  /** milliseconds, for waits and episodes (default performance.now; the service's clock in a service) */
  now?: () => number;
  log?: Logger;
}

export type ShedReason = 'queued' | 'queue time' | 'event loop delay';

/** The requests of one route in hand whose work has not started, and the pace at which they stop waiting. */
class Waiting {
  /** by when each arrived: the oldest first */
  readonly since = new Map<InHand, number>();
  /** requests that stopped waiting (their work started, or they were answered) this window */
  left = 0;
  /** how long some request was waiting this window, in ms; and since when one is, if one is */
  busyMs = 0;
  busySince: number | null = null;
  /** requests per ms that stopped waiting while some waited, over the last window; null if too few */
  pace: number | null = null;

  add(request: InHand, now: number): void {
    this.busySince ??= now;
    this.since.set(request, now);
  }

  remove(request: InHand, now: () => number): void {
    if (!this.since.delete(request)) return;
    this.left++;
    if (this.since.size > 0 || this.busySince === null) return;
    this.busyMs += now() - this.busySince;
    this.busySince = null;
  }

  oldestMs(now: number): number {
    if (this.since.size === 0) return 0;
    for (const since of this.since.values()) return now - since;
    return 0;
  }

  /** how long a new one would wait behind those waiting, at the last window's pace (0: none known) */
  expectedMs(): number {
    return this.pace === null ? 0 : this.since.size / this.pace;
  }

  /** A pace only when some were waiting for at least half the window: a burst's is not known yet. */
  endWindow(now: number): void {
    if (this.busySince !== null) {
      this.busyMs += now - this.busySince;
      this.busySince = now;
    }
    this.pace = this.busyMs >= OVERLOAD_WINDOW_MS / 2 && this.left > 0 ? this.left / this.busyMs : null;
    this.left = 0;
    this.busyMs = 0;
  }

  /**
   * One has waited past the budget, or a new one would: looked ahead only once the oldest has
   * waited half of it, so that a burst taken whole (whose first window's pace is low, before
   * admission gets going) does not shed the stragglers that follow it.
   */
  overBudget(now: number, budgetMs: number): boolean {
    const oldest = this.oldestMs(now);
    return oldest > budgetMs || (oldest >= budgetMs / 2 && this.expectedMs() > budgetMs);
  }
}

/** A request in hand, from OverloadMonitor.begin until end: what the monitor knows of it. */
export class InHand {
  /** until its work starts: the route's requests it waits with */
  waiting: Waiting | null;
  ended = false;

  constructor(waiting: Waiting) {
    this.waiting = waiting;
  }
}

/**
 * One per service, shared by its hosts. Each new request is refused while a signal is over its
 * threshold: requests in hand at OVERLOAD_MAX_QUEUED; a request of the same route waiting longer
 * than OVERLOAD_MAX_QUEUE_TIME_MS for its work to start, or (once one has waited half that) the new
 * one expected to, behind those waiting at the pace they have been leaving, so that the crowds let
 * in meanwhile do not wait past the budget. A route's own waits, because a request waits only
 * behind its own kind: creations queue for write admission, while a payment or a read behind them
 * waits for nothing. Both are read on the arrival itself, so that the next request is taken as
 * soon as there is room. When its setting is given, a window's event-loop delay too (held until
 * the delay has stayed under half for OVERLOAD_CALM_MS). A shedding episode starts with the first
 * signal over and ends once none has been for OVERLOAD_CALM_MS: one warn line each, the last with
 * how many requests were shed.
 */
export class OverloadMonitor {
  readonly settings: OverloadSettings;
  readonly #sampler: DelaySampler;
  readonly #now: () => number;
  readonly #log: Logger | undefined;
  readonly #error: ApiError;
  #queued = 0;
  /** by route (method and pattern); the request's own, while it waits */
  readonly #routes = new Map<string, Waiting>();
  #lastDelayMs = 0;
  /** the delay went over its threshold and has not been calm since for OVERLOAD_CALM_MS */
  #delayOver = false;
  #delayCalmSince: number | null = null;
  #episode: { since: number; shed: number; reason: ShedReason } | null = null;
  /** the last time a signal was seen over its threshold */
  #lastOverAt = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(settings: OverloadSettings, options: OverloadMonitorOptions = {}) {
    this.settings = settings;
    this.#sampler = options.sampler ?? eventLoopDelaySampler();
    this.#now = options.now ?? (() => performance.now());
    this.#log = options.log;
    // One error for every shed request: nothing in it is the request's, and its stack is never read.
    this.#error = new ApiError('service_unavailable', 'The service is overloaded; retry in a few seconds.', {
      headers: { 'Retry-After': String(settings.retryAfterSeconds) },
    });
    shedErrors.add(this.#error);
  }

  get enabled(): boolean {
    const { maxEventLoopDelayMs, maxQueued, maxQueueTimeMs } = this.settings;
    return maxEventLoopDelayMs > 0 || maxQueued > 0 || maxQueueTimeMs > 0;
  }

  /** true while shedding: from the first signal over until none has been for OVERLOAD_CALM_MS */
  get overloaded(): boolean {
    return this.#episode !== null;
  }

  /** requests in hand: arrived and not answered yet */
  get queued(): number {
    return this.#queued;
  }

  /** how long the longest-waiting request in hand (of `route`, or of any) has waited for its work to start, in ms */
  oldestWaitMs(route?: string, now = this.#now()): number {
    if (route !== undefined) return this.#routes.get(route)?.oldestMs(now) ?? 0;
    let oldest = 0;
    for (const waiting of this.#routes.values()) oldest = Math.max(oldest, waiting.oldestMs(now));
    return oldest;
  }

  /** how long a request of `route` taken now would wait for its work to start, in ms (0: no estimate) */
  expectedWaitMs(route = ''): number {
    return this.#routes.get(route)?.expectedMs() ?? 0;
  }

  /** A new request of `route`: false when it is to be shed (and it is counted as shed). */
  accepts(route = ''): boolean {
    if (!this.enabled) return true;
    const now = this.#now();
    const reason = this.#over(now, route);
    if (reason === null) return true;
    this.#enter(reason, now, route).shed++;
    return false;
  }

  /** A request of `route` is in hand (it has arrived, its body all here); `end` it when it is answered. */
  begin(route = ''): InHand {
    this.#queued++;
    let waiting = this.#routes.get(route);
    if (waiting === undefined) {
      waiting = new Waiting();
      this.#routes.set(route, waiting);
    }
    const request = new InHand(waiting);
    waiting.add(request, this.#now());
    return request;
  }

  /** Its work starts: it no longer waits. */
  started(request: InHand): void {
    request.waiting?.remove(request, this.#now);
    request.waiting = null;
  }

  /** It is answered (or its client is gone); a second call changes nothing. */
  end(request: InHand): void {
    if (request.ended) return;
    request.ended = true;
    this.#queued--;
    this.started(request);
  }

  /** One window: reads the delay (when on) and each route's pace, and starts or ends an episode. */
  sample(): void {
    const now = this.#now();
    for (const waiting of this.#routes.values()) waiting.endWindow(now);
    const { maxEventLoopDelayMs } = this.settings;
    if (maxEventLoopDelayMs > 0) {
      const delayMs = this.#sampler.take();
      this.#lastDelayMs = delayMs;
      if (delayMs > maxEventLoopDelayMs) {
        this.#delayOver = true;
        this.#delayCalmSince = null;
      } else if (this.#delayOver && delayMs <= maxEventLoopDelayMs / 2) {
        this.#delayCalmSince ??= now;
        if (now - this.#delayCalmSince >= OVERLOAD_CALM_MS) this.#delayOver = false;
      } else {
        this.#delayCalmSince = null;
      }
    }
    const reason = this.#over(now, null);
    if (reason !== null) {
      this.#enter(reason, now, null);
      return;
    }
    const episode = this.#episode;
    if (episode === null || now - this.#lastOverAt < OVERLOAD_CALM_MS) return;
    this.#episode = null;
    this.#log?.warn(
      { shed: episode.shed, duration_ms: Math.round(now - episode.since), ...this.#signals(now, null) },
      `overload over: ${episode.shed} requests shed; taking new requests again`,
    );
  }

  /** Starts (or, once the hosts are ready, starts again) the window; a no-op when all are off. */
  start(): void {
    if (!this.enabled) return;
    if (this.settings.maxEventLoopDelayMs > 0) this.#sampler.start();
    if (this.#timer) return;
    this.#timer = setInterval(() => this.sample(), OVERLOAD_WINDOW_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#sampler.stop();
  }

  /** The 503 a shed request (and /readyz while shedding) gets. */
  error(): ApiError {
    return this.#error;
  }

  /** The first signal over its threshold now for a request of `route` (null: for any route), or null. */
  #over(now: number, route: string | null): ShedReason | null {
    const { maxQueued, maxQueueTimeMs } = this.settings;
    let reason: ShedReason | null = null;
    if (maxQueued > 0 && this.#queued >= maxQueued) reason = 'queued';
    else if (maxQueueTimeMs > 0 && this.#overBudget(now, route, maxQueueTimeMs)) reason = 'queue time';
    else if (this.#delayOver) reason = 'event loop delay';
    if (reason !== null) this.#lastOverAt = now;
    return reason;
  }

  #overBudget(now: number, route: string | null, budgetMs: number): boolean {
    if (route !== null) return this.#routes.get(route)?.overBudget(now, budgetMs) ?? false;
    for (const waiting of this.#routes.values()) if (waiting.overBudget(now, budgetMs)) return true;
    return false;
  }

  #enter(reason: ShedReason, now: number, route: string | null) {
    if (this.#episode !== null) return this.#episode;
    this.#episode = { since: now, shed: 0, reason };
    this.#log?.warn(
      { reason, ...this.#signals(now, route), retry_after_seconds: this.settings.retryAfterSeconds },
      'overloaded: answering new requests 503 service_unavailable until the load falls',
    );
    return this.#episode;
  }

  #signals(now: number, route: string | null) {
    return {
      ...(route !== null && { route }),
      queued: this.#queued,
      oldest_wait_ms: Math.round(this.oldestWaitMs(route ?? undefined, now)),
      ...(route !== null && { expected_wait_ms: Math.round(this.expectedWaitMs(route)) }),
      event_loop_delay_ms: Math.round(this.#lastDelayMs),
    };
  }
}

/** The errors of shed requests: answered, never logged (the episode's lines say it all). */
const shedErrors = new WeakSet<object>();

/** true for the error a shed request is answered with */
export function isShedError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && shedErrors.has(error);
}
