// The SDK's pure parts without a service: Retry-After parsing, the backoff schedule, and the token
// cache's renewal time, single flight and invalidation on a fake clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TicketingClient, TicketingError } from '../../packages/sdk/src/index.ts';
import { backoffDelay, isRetryableStatus, parseRetryAfter } from '../../packages/sdk/src/retry.ts';
import { TokenCache, type IssuedToken } from '../../packages/sdk/src/token-cache.ts';

describe('retry schedule', () => {
  test('Retry-After in seconds or as an HTTP date; anything else is ignored', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a past date means now');
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-1', now), undefined);
  });

  test('backoff doubles from 0.5 s to at most 8 s, jittered within the upper half of each step', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, undefined, () => 0)),
      [250, 500, 1000, 2000, 4000, 4000],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, undefined, () => 1)),
      [500, 1000, 2000, 4000, 8000, 8000],
    );
    assert.equal(
      backoffDelay(0, 2500, () => 0.5),
      2500,
      "the server's Retry-After wins",
    );
  });

  test('only 429 and 5xx are retryable statuses', () => {
    assert.deepEqual(
      [400, 401, 403, 404, 409, 422, 429, 500, 502, 503].filter(isRetryableStatus),
      [429, 500, 502, 503],
    );
  });
});

describe('token cache', () => {
  function cacheWith(lifetimeSeconds: number) {
    let now = 1_000_000;
    let issued = 0;
    let release: (() => void) | null = null;
    const cache = new TokenCache(
      () =>
        new Promise<IssuedToken>((resolve) => {
          issued++;
          const token = { accessToken: `t${issued}`, expiresInSeconds: lifetimeSeconds };
          release = () => resolve(token);
        }),
      () => now,
    );
    return {
      cache,
      issued: () => issued,
      release: () => release?.(),
      advance: (ms: number) => (now += ms),
    };
  }

  test('concurrent callers share one request; the token is reused until a minute before expiry', async () => {
    const c = cacheWith(3600);
    const waiting = [c.cache.get(), c.cache.get(), c.cache.get()];
    c.release();
    assert.deepEqual(await Promise.all(waiting), ['t1', 't1', 't1']);
    assert.equal(c.issued(), 1);
    c.advance(3540_000 - 1);
    assert.equal(await c.cache.get(), 't1');
    c.advance(1);
    const renewing = c.cache.get();
    c.release();
    assert.equal(await renewing, 't2');
    assert.equal(c.issued(), 2);
  });

  test('invalidate drops only the refused token, not a newer one', async () => {
    const c = cacheWith(3600);
    const first = c.cache.get();
    c.release();
    assert.equal(await first, 't1');
    c.cache.invalidate('t1');
    const second = c.cache.get();
    c.release();
    assert.equal(await second, 't2');
    c.cache.invalidate('t1'); // a late refusal of the old token
    assert.equal(await c.cache.get(), 't2');
    assert.equal(c.issued(), 2);
  });

  test('a failed token request is not cached: the next call asks again', async () => {
    let calls = 0;
    const cache = new TokenCache(async () => {
      calls++;
      if (calls === 1) throw new Error('token endpoint down');
      return { accessToken: 'ok', expiresInSeconds: 3600 };
    });
    await assert.rejects(cache.get(), /token endpoint down/);
    assert.equal(await cache.get(), 'ok');
  });

  test('a short-lived token renews at half its life', async () => {
    const c = cacheWith(60);
    const first = c.cache.get();
    c.release();
    await first;
    c.advance(29_999);
    assert.equal(await c.cache.get(), 't1');
    c.advance(1);
    const next = c.cache.get();
    c.release();
    assert.equal(await next, 't2');
  });
});

describe('waiting limits', () => {
  test('a Retry-After beyond maxRetryAfterMs is not waited for: the error says how long', async () => {
    let attempts = 0;
    const client = new TicketingClient({
      clientId: 'cli_x',
      clientSecret: 'secret',
      baseUrl: 'http://127.0.0.1:9',
      maxRetryAfterMs: 5_000,
      fetch: async (input) => {
        if (String(input).endsWith('/oauth/token')) {
          return Response.json({ access_token: 'pat_x', token_type: 'Bearer', expires_in: 3600, scope: '' });
        }
        attempts++;
        return Response.json(
          { code: 429, message: 'slow down', error_code: 'rate_limited', request_id: 'req_1' },
          { status: 429, headers: { 'retry-after': '120' } },
        );
      },
    });
    const error = await client.events.page().catch((e: unknown) => e);
    assert.ok(error instanceof TicketingError);
    assert.equal(error.errorCode, 'rate_limited');
    assert.equal(error.retryAfterMs, 120_000);
    assert.equal(error.requestId, 'req_1');
    assert.equal(attempts, 1);
  });
});

describe('aborting', () => {
  test('an abort during the wait before a retry ends the call at once', async (t) => {
    // The 30 s wait is a mocked timer that never fires: only the abort can end the call.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let calls = 0;
    let answered!: () => void;
    const attempted = new Promise<void>((resolve) => (answered = resolve));
    const client = new TicketingClient({
      clientId: 'cli_x',
      clientSecret: 'secret',
      baseUrl: 'http://127.0.0.1:9',
      fetch: async (input) => {
        calls++;
        if (String(input).endsWith('/oauth/token')) {
          return Response.json({ access_token: 'pat_x', token_type: 'Bearer', expires_in: 3600, scope: '' });
        }
        answered();
        return new Response('{}', { status: 503, headers: { 'retry-after': '30' } });
      },
    });
    const controller = new AbortController();
    const outcome = client.events.page({}, { signal: controller.signal }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    await attempted;
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user gave up'));
    const first = await Promise.race([
      outcome,
      new Promise((resolve) => setImmediate(() => resolve('still waiting'))),
    ]);
    assert.equal(first, 'user gave up');
    assert.equal(calls, 2, 'the token and one attempt');
  });
});
