// Pure rules: the retry schedule, Retry-After, what an answer means, and Standard Webhooks
// signatures checked by the independent standardwebhooks package.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import {
  decideOutcome,
  MAX_ATTEMPTS,
  parseRetryAfter,
  retryDelayMs,
  RETRY_SCHEDULE_MS,
} from '../../src/webhooks/delivery-schedule.ts';
import { excerptOf } from '../../src/webhooks/send-webhook.ts';
import { newWebhookSecret, signWebhook, webhookHeaders } from '../../src/webhooks/sign-webhook.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const DAY = 24 * H;

describe('retry schedule', () => {
  test('is the documented one: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h after the first attempt', () => {
    const noJitter = () => 0;
    const delays = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) =>
      retryDelayMs(i + 1, { random: noJitter }),
    );
    assert.deepEqual(delays, [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H]);
    assert.equal(retryDelayMs(MAX_ATTEMPTS, { random: noJitter }), null, 'ten attempts in all');
  });

  test('jitter only lengthens a delay, by at most 10 %, so retries last at least 3 days', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 0.999999, noNaN: true }), { minLength: 9, maxLength: 9 }),
        (rs) => {
          let total = 0;
          rs.forEach((r, i) => {
            const delay = retryDelayMs(i + 1, { random: () => r })!;
            assert.ok(delay >= RETRY_SCHEDULE_MS[i]! && delay <= RETRY_SCHEDULE_MS[i]! * 1.1 + 1);
            total += delay;
          });
          assert.ok(total >= 3 * DAY, `${total / DAY} days`);
        },
      ),
    );
  });

  test('the time scale shrinks every delay', () => {
    assert.equal(retryDelayMs(1, { random: () => 0, scale: 0.001 }), 5);
    assert.equal(retryDelayMs(9, { random: () => 0, scale: 0.0001 }), 8640);
  });

  test('Retry-After can slow a retry down, up to a day, but never speed it up', () => {
    const at = (attempts: number, retryAfterMs: number) =>
      retryDelayMs(attempts, { random: () => 0, retryAfterMs });
    assert.equal(at(1, 60 * S), 60 * S);
    assert.equal(at(1, 1 * S), 5 * S);
    assert.equal(at(2, 10 * DAY), DAY);
    assert.equal(at(9, 2 * DAY), DAY);
  });

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = new Date('2026-03-01T10:00:00.000Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 10:05:00 GMT', now), 300_000);
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 09:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter('-5', now), null);
    assert.equal(parseRetryAfter(undefined, now), null);
  });
});

describe('decideOutcome', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  const base = { attempts: 1, failingSince: null, now, random: () => 0 };

  test('any 2xx delivers and makes the endpoint healthy', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      assert.deepEqual(decideOutcome({ ...base, status }), {
        delivery: 'delivered',
        nextAttemptAt: null,
        endpoint: 'healthy',
      });
    }
  });

  test('anything else is retried on the schedule: 3xx (redirects are not followed), 4xx, 5xx, no answer', () => {
    for (const status of [301, 302, 400, 401, 404, 429, 500, 503, null]) {
      const outcome = decideOutcome({ ...base, status });
      assert.equal(outcome.delivery, 'pending', String(status));
      assert.equal(outcome.endpoint, 'failing');
      assert.equal(outcome.nextAttemptAt!.getTime(), now.getTime() + 5 * S);
    }
  });

  test('the tenth failed attempt ends the delivery as failed', () => {
    assert.deepEqual(decideOutcome({ ...base, status: 500, attempts: 10 }), {
      delivery: 'failed',
      nextAttemptAt: null,
      endpoint: 'failing',
    });
  });

  test('410 Gone disables the endpoint', () => {
    assert.equal(decideOutcome({ ...base, status: 410 }).endpoint, 'disable_gone');
  });

  test('a failure after 5 days of failures disables the endpoint; 4 days do not', () => {
    const since = (days: number) => new Date(now.getTime() - days * DAY);
    assert.equal(decideOutcome({ ...base, status: 500, failingSince: since(5) }).endpoint, 'disable_failing');
    assert.equal(
      decideOutcome({ ...base, status: null, failingSince: since(6) }).endpoint,
      'disable_failing',
    );
    assert.equal(decideOutcome({ ...base, status: 500, failingSince: since(4.9) }).endpoint, 'failing');
    assert.equal(decideOutcome({ ...base, status: 200, failingSince: since(6) }).endpoint, 'healthy');
  });
});

describe('signing', () => {
  test('standardwebhooks verifies what we sign, for any body', () => {
    const secret = newWebhookSecret();
    const receiver = new Webhook(secret);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const body = JSON.stringify({ type: 'order.paid', timestamp: new Date().toISOString(), data: value });
        const headers = webhookHeaders({ id: 'msg_2ZxKq9', at: new Date(), body, secrets: [secret] });
        assert.deepEqual(receiver.verify(body, headers), JSON.parse(body));
      }),
      { numRuns: 200 },
    );
  });

  test('matches the Standard Webhooks reference signature', () => {
    // The example of the specification's reference libraries.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    assert.equal(
      signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  test('during a rotation both secrets sign, and either verifies alone', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"type":"test"}';
    const headers = webhookHeaders({ id: 'msg_a', at: new Date(), body, secrets: [newSecret, oldSecret] });
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    new Webhook(oldSecret).verify(body, headers);
    new Webhook(newSecret).verify(body, headers);
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers), /No matching signature/);
  });

  test('a tampered body, id or timestamp does not verify', () => {
    const secret = newWebhookSecret();
    const body = '{"type":"test"}';
    const headers = webhookHeaders({ id: 'msg_a', at: new Date(), body, secrets: [secret] });
    const wh = new Webhook(secret);
    assert.throws(() => wh.verify('{"type":"tesT"}', headers));
    assert.throws(() => wh.verify(body, { ...headers, 'webhook-id': 'msg_b' }));
    assert.throws(() =>
      wh.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }),
    );
  });

  test('secrets are whsec_ and 32 random bytes in base64', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  });
});

describe('response excerpts', () => {
  test('keep at most 1 KB, never a broken character or a NUL', () => {
    assert.equal(excerptOf(Buffer.from('x'.repeat(5000))).length, 1024);
    const euro = Buffer.from('€'.repeat(400)); // 3 bytes each: 1024 cuts one in half
    const cut = excerptOf(euro);
    assert.ok(!cut.includes('\uFFFD'));
    assert.equal(cut, '€'.repeat(341));
    assert.equal(excerptOf(Buffer.from('a\u0000b')), 'ab');
  });
});
