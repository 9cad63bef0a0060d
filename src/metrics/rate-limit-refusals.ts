// rate_limit_refusals_total{limiter}: every check of a rate limit goes through ctx.limiter, so the
// service wraps its limiter once (service.ts) and counts each refusal under the limiter its key
// names: the callers key their buckets `token:…`, `bearer:…`, `pk:…`, and so on. The hosted page's
// tickets per IP are counted in the database, not by the limiter: that refusal is counted where
// it is answered (countRefusal).
import type { AppContext } from '../context.ts';
import type { RateLimiter } from '../platform/index.ts';
import type { Metrics, RateLimiterName } from './metrics.ts';

/** The limiter of each key prefix, as the callers write their keys (auth, payments, site, members). */
const LIMITER_OF_PREFIX: Readonly<Record<string, RateLimiterName>> = {
  token: 'token',
  bearer: 'bearer',
  pk: 'publishable',
  site: 'site',
  callback: 'callback',
  'sign-in-account': 'sign_in_account',
  'sign-in-ip': 'sign_in_ip',
  prompt: 'prompt_per_phone',
};

/** The limiter a key belongs to; `other` for a prefix of no known limiter, so the label stays bounded. */
export function limiterOfKey(key: string): RateLimiterName | 'other' {
  const prefix = key.slice(0, Math.max(0, key.indexOf(':')));
  return Object.hasOwn(LIMITER_OF_PREFIX, prefix) ? LIMITER_OF_PREFIX[prefix]! : 'other';
}

/**
 * The limiter, counting each check it refuses. A request refused by two limiters at once (a
 * sign-in past both its account's and its IP's) counts once under each.
 */
export function countRefusals(limiter: RateLimiter, metrics: Metrics): RateLimiter {
  const refusals = metrics.rateLimitRefusals;
  return {
    async hit(key, setting) {
      const result = await limiter.hit(key, setting);
      if (!result.allowed) refusals.inc({ limiter: limiterOfKey(key) });
      return result;
    },
    degraded: () => limiter.degraded(),
    close: () => limiter.close(),
  };
}

/** One refusal of a limit that is not checked through ctx.limiter (the hosted page's holds per IP). */
export function countRefusal(ctx: AppContext, limiter: RateLimiterName): void {
  ctx.metrics?.rateLimitRefusals.inc({ limiter });
}
