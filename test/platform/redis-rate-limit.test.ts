// The Redis rate limiter: its counters are shared by every process with the same key prefix, and
// by no one else. Needs Redis, so it runs when TEST_REDIS_URL is set (as in CI).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { RedisRateLimiter } from '../../src/platform/rate-limit.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const limit = { rate: 1, burst: 2 };

describe('Redis rate limiter', { skip: redisUrl ? false : 'needs Redis (TEST_REDIS_URL)' }, () => {
  const run = randomBytes(4).toString('hex');
  const limiters: RedisRateLimiter[] = [];
  const limiter = (prefix: string) => {
    const made = new RedisRateLimiter(redisUrl!, prefix);
    limiters.push(made);
    return made;
  };
  after(() => Promise.all(limiters.map((l) => l.close())));

  const allowed = async (l: RedisRateLimiter, key: string, hits: number) => {
    const results = [];
    for (let i = 0; i < hits; i++) results.push((await l.hit(key, limit)).allowed);
    return results;
  };

  test('two processes with one prefix share a counter', async () => {
    const [a, b] = [limiter(`t-${run}-shared:`), limiter(`t-${run}-shared:`)];
    assert.deepEqual(await allowed(a, 'site:127.0.0.1', 2), [true, true]);
    const refused = await b.hit('site:127.0.0.1', limit);
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfter >= 1, String(refused.retryAfter));
  });

  test('another prefix never sees those counts', async () => {
    const [a, b] = [limiter(`t-${run}-a:`), limiter(`t-${run}-b:`)];
    assert.deepEqual(await allowed(a, 'site:127.0.0.1', 3), [true, true, false]);
    assert.deepEqual(await allowed(b, 'site:127.0.0.1', 3), [true, true, false]);
  });
});
