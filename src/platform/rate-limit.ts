// Rate limiting with GCRA (a token bucket without a refill timer): `rate` per second sustained,
// `burst` at once. Counters live in memory, or in Redis when REDIS_URL is set so that every
// process shares them.
import { Redis } from 'ioredis';
import type { FastifyReply } from 'fastify';
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
  close(): Promise<void>;
}

/** One GCRA step: given the stored theoretical arrival time, decide and return the new one. */
export function gcra(
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

export class MemoryRateLimiter implements RateLimiter {
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

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(url: string, keyPrefix = '') {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      lazyConnect: false,
      keyPrefix,
    });
    this.redis.defineCommand('gcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
  }

  async hit(key: string, limit: RateLimitSetting): Promise<RateLimitResult> {
    const interval = 1000 / limit.rate;
    const tolerance = interval * limit.burst;
    const run = (
      this.redis as unknown as Record<string, (...a: unknown[]) => Promise<[number, string, string]>>
    ).gcra;
    const [ok, a, b] = await run!.call(this.redis, `rl:${key}`, interval, tolerance);
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

  async close(): Promise<void> {
    await this.redis.quit();
  }
}

export function createRateLimiter(redisUrl: string | undefined, keyPrefix = ''): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, keyPrefix) : new MemoryRateLimiter();
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
