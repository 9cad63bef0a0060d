// Load shedding: when this process falls behind (event-loop delay, or too many requests in hand),
// new requests on the public hosts are answered 503 service_unavailable with Retry-After at once,
// and /readyz says unready so that a load balancer drains the instance. Requests already taken in
// are never shed. The thresholds are settings (docs/decisions.md, "Overload"); 0 turns one off.
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AppContext } from '../context.ts';
import { bodyArrived } from './client-errors.ts';
import { ApiError } from './errors.ts';
import type { Host } from './http.ts';

export interface OverloadSettings {
  /** p99 event-loop delay over one window above which the process is overloaded; 0 = off */
  maxEventLoopDelayMs: number;
  /** requests in hand (worked on or waiting for admission) at which new ones are shed; 0 = off */
  maxQueued: number;
  /** the Retry-After of a shed request and of /readyz while overloaded */
  retryAfterSeconds: number;
}

/** How often the delay is read (and its histogram started again), and leaving is considered. */
export const OVERLOAD_WINDOW_MS = 500;
/** Both signals must stay under half their thresholds this long before shedding stops: no flapping. */
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
  /** milliseconds, for the calm period; tests move it */
  now?: () => number;
  log?: Logger;
}

/**
 * One per service, shared by its hosts. Enters overload as soon as either signal passes its
 * threshold (requests in hand: on arrival; the delay: once a window); leaves once both have stayed
 * under half their thresholds for OVERLOAD_CALM_MS.
 */
export class OverloadMonitor {
  readonly settings: OverloadSettings;
  readonly #sampler: DelaySampler;
  readonly #now: () => number;
  readonly #log: Logger | undefined;
  #queued = 0;
  #overloaded = false;
  #calmSince: number | null = null;
  #lastDelayMs = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(settings: OverloadSettings, options: OverloadMonitorOptions = {}) {
    this.settings = settings;
    this.#sampler = options.sampler ?? eventLoopDelaySampler();
    this.#now = options.now ?? Date.now;
    this.#log = options.log;
  }

  get enabled(): boolean {
    return this.settings.maxEventLoopDelayMs > 0 || this.settings.maxQueued > 0;
  }

  get overloaded(): boolean {
    return this.#overloaded;
  }

  /** requests taken in and not answered yet */
  get queued(): number {
    return this.#queued;
  }

  /** A new request: false when it is to be shed. */
  accepts(): boolean {
    const { maxQueued } = this.settings;
    if (!this.#overloaded && maxQueued > 0 && this.#queued >= maxQueued) this.#enter('queued');
    return !this.#overloaded;
  }

  /** A request is in hand (its body is all here); `end` when it is answered. */
  begin(): void {
    this.#queued++;
  }

  end(): void {
    this.#queued--;
  }

  /** One window: reads the delay, enters overload past a threshold, leaves after a calm period. */
  sample(): void {
    const { maxEventLoopDelayMs, maxQueued } = this.settings;
    const delayMs = maxEventLoopDelayMs > 0 ? this.#sampler.take() : 0;
    this.#lastDelayMs = delayMs;
    if (!this.#overloaded) {
      if (maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs) this.#enter('event loop delay');
      else if (maxQueued > 0 && this.#queued >= maxQueued) this.#enter('queued');
      return;
    }
    const calm = delayMs <= maxEventLoopDelayMs / 2 && (maxQueued === 0 || this.#queued <= maxQueued / 2);
    if (!calm) {
      this.#calmSince = null;
      return;
    }
    const now = this.#now();
    this.#calmSince ??= now;
    if (now - this.#calmSince < OVERLOAD_CALM_MS) return;
    this.#overloaded = false;
    this.#calmSince = null;
    this.#log?.info(this.#signals(), 'overload over: taking new requests again');
  }

  /** Starts (or, once the hosts are ready, starts again) the window; a no-op when both are off. */
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

  /** The 503 a shed request (and /readyz while overloaded) gets. */
  error(): ApiError {
    return new ApiError('service_unavailable', 'The service is overloaded; retry in a few seconds.', {
      headers: { 'Retry-After': String(this.settings.retryAfterSeconds) },
    });
  }

  #enter(reason: string): void {
    this.#overloaded = true;
    this.#calmSince = null;
    this.#log?.warn(
      { reason, ...this.#signals(), retry_after_seconds: this.settings.retryAfterSeconds },
      'overloaded: answering new requests 503 service_unavailable until the load falls',
    );
  }

  #signals() {
    return { event_loop_delay_ms: Math.round(this.#lastDelayMs), queued: this.#queued };
  }
}

interface Shared {
  monitor: OverloadMonitor;
  /** hosts built and not yet closed: the last to close stops the timer */
  hosts: number;
}
const monitors = new WeakMap<AppContext, Shared>();

/** The service's overload monitor, shared by every host built on its context. */
export function overloadMonitor(ctx: AppContext): OverloadMonitor {
  let shared = monitors.get(ctx);
  if (!shared) {
    const log = ctx.log.child({ component: 'overload' });
    shared = { monitor: new OverloadMonitor(ctx.config.overload, { log }), hosts: 0 };
    monitors.set(ctx, shared);
  }
  return shared.monitor;
}

/**
 * Every host: the monitor runs from the moment the host is ready (building it blocks the loop,
 * which is not load) until the last host of the service closes.
 */
export function watchOverload(app: Host, ctx: AppContext): OverloadMonitor {
  const monitor = overloadMonitor(ctx);
  const shared = monitors.get(ctx)!;
  shared.hosts++;
  app.addHook('onReady', async () => monitor.start());
  app.addHook('onClose', async () => {
    if (--shared.hosts === 0) monitor.stop();
  });
  return monitor;
}

/** true while a request is counted in hand, false once its answer has started */
const inHand = new WeakMap<FastifyRequest, boolean>();

/**
 * A public host: each new request is shed while overloaded (except /healthz and /readyz, which
 * answer for the balancer), and is counted in hand from when its body is all here until its answer
 * starts (an event stream counts only until it opens). A slow sender is not counted: it costs no
 * work, and a few hundred of them must not make the instance refuse everyone.
 */
export function shedUnderOverload(app: Host, monitor: OverloadMonitor): void {
  if (!monitor.enabled) return;
  const begin = (request: FastifyRequest, reply: FastifyReply) => {
    if (inHand.has(request)) return;
    inHand.set(request, true);
    monitor.begin();
    // A response may never be sent (a client gone while it waits for admission): its close ends it.
    reply.raw.once('close', () => finish(request));
  };
  const finish = (request: FastifyRequest) => {
    if (inHand.get(request) !== true) return;
    inHand.set(request, false);
    monitor.end();
  };
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.routeOptions.url;
    if (path === '/healthz' || path === '/readyz') return done();
    if (!monitor.accepts()) return done(monitor.error());
    if (bodyArrived(request.raw)) begin(request, reply);
    done();
  });
  // A body still arriving is counted once it is in (before the route's own hooks: admission).
  const bodyIn = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    begin(request, reply);
    done();
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const own = route.preValidation;
    route.preValidation = [bodyIn, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    finish(request);
    done(null, payload);
  });
}
