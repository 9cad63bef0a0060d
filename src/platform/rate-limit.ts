// Rate limiting with GCRA (a token bucket without a refill timer): `rate` per second sustained,
// `burst` at once. Counters live in memory, or in Redis when REDIS_URL is set so that every
// process shares them; while Redis cannot be reached they live in this process's memory.
import { Redis } from 'ioredis';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { RateLimitSetting } from '../config.ts';
import { ApiError } from './errors.ts';

export interface RateLimitResult {
  allowed: boolean;
  /** whole seconds until a request would be allowed (0 when allowed) */
  retryAfter: number;
  /** requests that could still be made right now */
  remaining: number;
  /** seconds until the bucket is full again */
  reset: number;
}

export interface RateLimiter {
  hit(key: string, limit: RateLimitSetting): Promise<RateLimitResult>;
  /** the dependencies it cannot use now ('redis'), its limits then counted in memory; /readyz names them */
  degraded(): string[];
  close(): Promise<void>;
}

/** One GCRA step: given the stored theoretical arrival time, decide and return the new one. */
function gcra(
  tatMs: number | undefined,
  nowMs: number,
  limit: RateLimitSetting,
): { result: RateLimitResult; tatMs: number } {
  const interval = 1000 / limit.rate;
  const tolerance = interval * limit.burst;
  const tat = Math.max(tatMs ?? nowMs, nowMs);
  const newTat = tat + interval;
  const allowAt = newTat - tolerance;
  if (allowAt > nowMs) {
    return {
      tatMs: tat,
      result: {
        allowed: false,
        retryAfter: Math.max(1, Math.ceil((allowAt - nowMs) / 1000)),
        remaining: 0,
        reset: Math.ceil((tat - nowMs) / 1000),
      },
    };
  }
  return {
    tatMs: newTat,
    result: {
      allowed: true,
      retryAfter: 0,
      remaining: Math.max(0, Math.floor((tolerance - (newTat - nowMs)) / interval)),
      reset: Math.ceil((newTat - nowMs) / 1000),
    },
  };
}

class MemoryRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  private readonly sweep: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    // Forget buckets that have fully drained, so memory stays bounded.
    this.sweep = setInterval(() => {
      const t = this.now();
      for (const [key, tat] of this.tats) if (tat < t) this.tats.delete(key);
    }, 60_000);
    this.sweep.unref();
  }

  async hit(key: string, limit: RateLimitSetting): Promise<RateLimitResult> {
    const step = gcra(this.tats.get(key), this.now(), limit);
    this.tats.set(key, step.tatMs);
    return step.result;
  }

  degraded(): string[] {
    return [];
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
  }
}

// The same GCRA step, atomically in Redis. Time comes from Redis so every process agrees.
const GCRA_SCRIPT = `
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - tolerance
if allow_at > now then
  return {0, tostring(allow_at - now), tostring(tat - now)}
end
redis.call('SET', KEYS[1], tostring(new_tat), 'PX', math.ceil(new_tat - now) + 1000)
return {1, tostring(tolerance - (new_tat - now)), tostring(new_tat - now)}
`;

/** What the Redis limiter reports to the metrics (metrics/metrics.ts), when METRICS_PORT is set. */
export interface RedisLimiterObserver {
  /** whether its limits count in Redis now: false from the start until Redis first answers */
  redisUp(up: boolean): void;
  /** one check counted in this process's memory because Redis could not be used */
  countedInMemory(): void;
}

export interface RedisLimiterOptions {
  /** where the start and end of an outage are logged (one line each) */
  log?: Logger;
  observer?: RedisLimiterObserver;
}

// Every Redis call is bounded, so that no request waits long on a Redis that is gone: a command
// that gets no answer fails after COMMAND_TIMEOUT_MS (one does in well under a millisecond), a
// connection that answers nothing for SOCKET_TIMEOUT_MS is dropped, a connection attempt gives up
// after CONNECT_TIMEOUT_MS, and reconnection is tried at least every RECONNECT_MAX_MS.
const COMMAND_TIMEOUT_MS = 500;
const SOCKET_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 1000;
const RECONNECT_MAX_MS = 1000;
/** While Redis is down, how often it is asked whether it counts again (when connected). */
const PROBE_INTERVAL_MS = 1000;
/** The probe runs the limiter's own script on a key of its own, with a limit it never reaches. */
const PROBE_LIMIT: RateLimitSetting = { rate: 1000, burst: 1000 };
/**
 * At start, how long a check waits for Redis's first answer (or failure) before counting in
 * memory; a refusing port fails at once, a silent one by COMMAND_TIMEOUT_MS.
 */
const START_WAIT_MS = 1000;

/** What is logged of a Redis failure: its code and message, never the URL (it may hold a password). */
function describeFailure(error: unknown): { code?: string; reason: string } {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' && { code }),
    reason: typeof message === 'string' ? message : String(error),
  };
}

/**
 * Counts in Redis while Redis answers, and in this process's memory from the first failure until
 * Redis answers again: a request never waits on a Redis known to be down. Its state is `starting`
 * (no answer from Redis yet: a check waits for the first, at most START_WAIT_MS), `up` or `down`;
 * only `up` sends a request's check to Redis.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #memory = new MemoryRateLimiter();
  readonly #log: Logger | undefined;
  readonly #observer: RedisLimiterObserver | undefined;
  #state: 'starting' | 'up' | 'down' = 'starting';
  /** resolved once the start is decided (up or down), or after START_WAIT_MS */
  readonly #started: Promise<void>;
  #startDecided: () => void = () => {};
  #probe: NodeJS.Timeout | null = null;
  #probing = false;
  #closed = false;

  constructor(url: string, keyPrefix = '', options: RedisLimiterOptions = {}) {
    this.#log = options.log;
    this.#observer = options.observer;
    this.#started = new Promise((resolve) => (this.#startDecided = resolve));
    setTimeout(() => this.#startDecided(), START_WAIT_MS).unref();
    this.#observer?.redisUp(false);
    this.#redis = new Redis(url, {
      keyPrefix,
      lazyConnect: false,
      // Fail at once instead of queueing while disconnected, and never resend a check after a
      // reconnection (it was counted in memory meanwhile).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (times) => Math.min(times * 100, RECONNECT_MAX_MS),
    });
    this.#redis.defineCommand('gcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
    // Without a listener ioredis prints "Unhandled error event" to stderr on every failed attempt.
    this.#redis.on('error', (error: unknown) => this.#failed(error));
    this.#redis.on('close', () => {
      if (this.#state === 'up') this.#failed(new Error('connection to Redis closed'));
    });
    this.#redis.on('ready', () => void this.#check());
  }

  async hit(key: string, limit: RateLimitSetting): Promise<RateLimitResult> {
    // A process just started counts in Redis when Redis is there, so a restart grants no fresh burst.
    if (this.#state === 'starting') await this.#started;
    if (this.#state === 'up') {
      try {
        return await this.#redisHit(key, limit);
      } catch (error) {
        this.#failed(error);
      }
    }
    this.#observer?.countedInMemory();
    return this.#memory.hit(key, limit);
  }

  degraded(): string[] {
    return this.#state === 'up' ? [] : ['redis'];
  }

  async #redisHit(key: string, limit: RateLimitSetting): Promise<RateLimitResult> {
    const interval = 1000 / limit.rate;
    const tolerance = interval * limit.burst;
    const run = (
      this.#redis as unknown as Record<string, (...a: unknown[]) => Promise<[number, string, string]>>
    ).gcra;
    const [ok, a, b] = await run!.call(this.#redis, `rl:${key}`, interval, tolerance);
    if (ok === 1) {
      return {
        allowed: true,
        retryAfter: 0,
        remaining: Math.max(0, Math.floor(Number(a) / interval)),
        reset: Math.ceil(Number(b) / 1000),
      };
    }
    return {
      allowed: false,
      retryAfter: Math.max(1, Math.ceil(Number(a) / 1000)),
      remaining: 0,
      reset: Math.ceil(Number(b) / 1000),
    };
  }

  /** The first failure of an outage is logged and starts the probe; the rest are its echoes. */
  #failed(error: unknown): void {
    if (this.#closed || this.#state === 'down') return;
    this.#state = 'down';
    this.#startDecided();
    this.#observer?.redisUp(false);
    this.#log?.warn(
      describeFailure(error),
      "Redis unreachable: rate limits are counted in this process's memory until it is back",
    );
    this.#probe = setInterval(() => void this.#check(), PROBE_INTERVAL_MS);
    this.#probe.unref();
  }

  /**
   * Whether Redis counts again: the limiter's own script on a probe key, when connected (a
   * reconnection says so at once; a connection that stopped answering is asked every second).
   */
  async #check(): Promise<void> {
    if (this.#probing || this.#closed || this.#state === 'up' || this.#redis.status !== 'ready') return;
    this.#probing = true;
    try {
      await this.#redisHit('probe', PROBE_LIMIT);
      if (this.#closed) return;
      const wasDown = this.#state === 'down';
      this.#state = 'up';
      this.#startDecided();
      if (this.#probe) clearInterval(this.#probe);
      this.#probe = null;
      this.#observer?.redisUp(true);
      if (wasDown) this.#log?.info('Redis reachable again: rate limits are counted in Redis');
    } catch (error) {
      this.#failed(error);
    } finally {
      this.#probing = false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#startDecided();
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
    await this.#memory.close();
    if (this.#redis.status === 'ready') {
      // QUIT is bounded by the command timeout like any other command.
      await this.#redis.quit().catch(() => this.#redis.disconnect());
    } else {
      this.#redis.disconnect();
    }
  }
}

export function createRateLimiter(
  redisUrl: string | undefined,
  options: RedisLimiterOptions & { keyPrefix?: string } = {},
): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, options.keyPrefix, options) : new MemoryRateLimiter();
}

/** IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers) plus Retry-After when refused. */
export function rateLimitHeaders(
  name: string,
  limit: RateLimitSetting,
  r: RateLimitResult,
): Record<string, string> {
  const windowSeconds = Math.max(1, Math.round(limit.burst / limit.rate));
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${name}";q=${limit.burst};w=${windowSeconds}`,
    RateLimit: `"${name}";r=${r.remaining};t=${r.reset}`,
  };
  if (!r.allowed) headers['Retry-After'] = String(r.retryAfter);
  return headers;
}

/**
 * Counts one request against `key`, sets the RateLimit headers on the reply, and throws 429
 * rate_limited (with Retry-After) when the bucket is empty.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  reply: FastifyReply,
  options: { name: string; key: string; setting: RateLimitSetting },
): Promise<void> {
  const result = await limiter.hit(options.key, options.setting);
  const headers = rateLimitHeaders(options.name, options.setting, result);
  reply.headers(headers);
  if (!result.allowed) {
    throw new ApiError('rate_limited', 'Too many requests; retry after the time in Retry-After.', {
      headers,
    });
  }
}
