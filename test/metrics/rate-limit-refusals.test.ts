// rate_limit_refusals_total{limiter}: each limit's 429 is counted under its own limiter and under no
// other, through the routes that answer it (token endpoint, bearer and publishable credentials,
// checkout pages, payment callbacks, the hosted page's tickets per IP) or the domain functions the
// organizer app and the hosted page share (sign-in, payment prompts per phone).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { RATE_LIMITERS, type RateLimiterName } from '../../src/metrics/metrics.ts';
import { limiterOfKey } from '../../src/metrics/rate-limit-refusals.ts';
import { signIn } from '../../src/members/sign-in.ts';
import { claimPromptSlot } from '../../src/site/buyer-limits.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { parseMetrics, type Samples } from './parse-metrics.ts';

const SHOP = 'https://shop.example.org';
const SLOW = '0.001';

let h: Harness;
let metricsUrl: string;

before(async () => {
  h = await startHarness({
    env: {
      METRICS_PORT: '0',
      RATE_LIMIT_TOKEN_RATE: SLOW,
      RATE_LIMIT_TOKEN_BURST: '1',
      RATE_LIMIT_BEARER_RATE: SLOW,
      RATE_LIMIT_BEARER_BURST: '2',
      RATE_LIMIT_PUBLISHABLE_RATE: SLOW,
      RATE_LIMIT_PUBLISHABLE_BURST: '1',
      RATE_LIMIT_SITE_RATE: SLOW,
      RATE_LIMIT_SITE_BURST: '5',
      RATE_LIMIT_CALLBACK_RATE: SLOW,
      RATE_LIMIT_CALLBACK_BURST: '1',
      RATE_LIMIT_SIGN_IN_ACCOUNT_RATE: SLOW,
      RATE_LIMIT_SIGN_IN_ACCOUNT_BURST: '1',
      RATE_LIMIT_SIGN_IN_IP_RATE: SLOW,
      RATE_LIMIT_SIGN_IN_IP_BURST: '2',
      PROMPT_LIMIT_PER_PHONE: '1',
      HOLD_LIMIT_TICKETS_PER_IP: '10',
    },
  });
  const urls = await h.service.listen({ api: 0, site: 0, app: 0 });
  metricsUrl = urls.metrics!;
});
after(async () => {
  await h.close();
});

async function scrape(): Promise<Samples> {
  const res = await fetch(metricsUrl);
  assert.equal(res.status, 200);
  return parseMetrics(await res.text());
}

/** Runs `act`; asserts the refusals it added, by limiter, and that no other limiter counted any. */
async function expectRefusals(
  expected: Partial<Record<RateLimiterName, number>>,
  act: () => Promise<void>,
): Promise<void> {
  const before = await scrape();
  await act();
  const after = await scrape();
  const rise: Record<string, number> = {};
  for (const limiter of [...RATE_LIMITERS, 'other']) {
    const key = `rate_limit_refusals_total{limiter="${limiter}"}`;
    rise[limiter] = (after.get(key) ?? 0) - (before.get(key) ?? 0);
  }
  assert.deepEqual(rise, {
    ...Object.fromEntries([...RATE_LIMITERS, 'other'].map((l) => [l, 0])),
    ...expected,
  });
}

const api = (options: InjectOptions) => h.service.api.inject(options);

describe('refusals are counted by limiter', () => {
  test('every limiter has a series from the start, at 0', async () => {
    const samples = await scrape();
    for (const limiter of RATE_LIMITERS) {
      assert.equal(samples.get(`rate_limit_refusals_total{limiter="${limiter}"}`), 0, limiter);
    }
  });

  test('the token endpoint, per client id and IP', async () => {
    const partner = await makePartner(h);
    const attempt = () =>
      api({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=client_credentials&client_id=${partner.clientId}&client_secret=wrong`,
        remoteAddress: '203.0.113.10',
      });
    await expectRefusals({ token: 2 }, async () => {
      assert.equal((await attempt()).statusCode, 401);
      assert.equal((await attempt()).statusCode, 429);
      assert.equal((await attempt()).statusCode, 429);
    });
  });

  test('bearer tokens, per API client', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    await expectRefusals({ bearer: 1 }, async () => {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await api({ method: 'GET', url: '/v1/events', headers: bearer(token) })).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 429]);
    });
  });

  test('publishable keys, per key and IP', async () => {
    const partner = await makePartner(h, { allowedDomains: [SHOP], returnUrlDomains: [SHOP] });
    const event = await makeEvent(h, partner);
    await expectRefusals({ publishable: 1 }, async () => {
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await publicSession(partner.publishableKey, event.id, '203.0.113.20')).statusCode);
      assert.deepEqual(statuses, [201, 429]);
    });
  });

  test('checkout pages, per IP', async () => {
    await expectRefusals({ site: 1 }, async () => {
      const statuses = [];
      for (let i = 0; i < 6; i++) {
        const res = await h.service.site.inject({
          method: 'GET',
          url: '/checkout/cs_doesnotexist',
          remoteAddress: '203.0.113.30',
        });
        statuses.push(res.statusCode);
      }
      assert.deepEqual(statuses, [404, 404, 404, 404, 404, 429]);
    });
  });

  test('payment provider callbacks, per IP', async () => {
    await expectRefusals({ callback: 1 }, async () => {
      const callback = () =>
        api({
          method: 'PUT',
          url: '/v1/payment-callbacks/momo/ref-unknown',
          headers: { 'content-type': 'application/json' },
          payload: '{}',
          remoteAddress: '203.0.113.40',
        });
      assert.equal((await callback()).statusCode, 200);
      assert.equal((await callback()).statusCode, 429);
    });
  });

  test('sign-in: a refusal counts under each limiter that refused it', async () => {
    const ctx = h.service.ctx;
    const ip = '203.0.113.50';
    await expectRefusals({ sign_in_account: 2, sign_in_ip: 2 }, async () => {
      const first = await signIn(ctx, { email: 'nobody@example.org', password: 'not it', ip });
      assert.deepEqual(first, { ok: false, reason: 'invalid' });
      // the account's one attempt is spent; the IP has one more
      const second = await signIn(ctx, { email: 'nobody@example.org', password: 'not it', ip });
      assert.equal(second.ok === false && second.reason, 'rate_limited');
      // the IP's are spent too, the other account's is not
      const third = await signIn(ctx, { email: 'someone@example.org', password: 'not it', ip });
      assert.equal(third.ok === false && third.reason, 'rate_limited');
      // both spent: one refusal, counted under each
      const fourth = await signIn(ctx, { email: 'nobody@example.org', password: 'not it', ip });
      assert.equal(fourth.ok === false && fourth.reason, 'rate_limited');
    });
  });

  test('payment prompts, per phone number', async () => {
    await expectRefusals({ prompt_per_phone: 1 }, async () => {
      assert.deepEqual(await claimPromptSlot(h.service.ctx, '256772987654'), { allowed: true });
      assert.equal((await claimPromptSlot(h.service.ctx, '256772987654')).allowed, false);
    });
  });

  test("the hosted page's tickets per IP", async () => {
    const partner = await makePartner(h, { allowedDomains: [SHOP], returnUrlDomains: [SHOP] });
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 }],
    });
    const token = await getToken(h, partner);
    const detail = await api({ method: 'GET', url: `/v1/events/${event.id}`, headers: bearer(token) });
    const ticket = (detail.json().data.ticket_types as { ticket_type_id: string }[])[0]!.ticket_type_id;
    const ip = '203.0.113.60';
    const order = async (n: number, sessionIp: string) => {
      const session = await publicSession(partner.publishableKey, event.id, sessionIp);
      assert.equal(session.statusCode, 201, session.body);
      return h.service.site.inject({
        method: 'POST',
        url: `/checkout/${session.json().data.id as string}/order`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(orderForm(ticket, n)).toString(),
        remoteAddress: ip,
      });
    };
    await expectRefusals({ holds_per_ip: 1 }, async () => {
      assert.equal((await order(10, '203.0.113.61')).statusCode, 303);
      const refused = await order(1, '203.0.113.62');
      assert.equal(refused.statusCode, 429);
      assert.match(refused.body, /data-error-code="hold_limit_reached"/);
    });
  });
});

describe('the limiter of a key', () => {
  test('is named by its prefix, and a key of no known limiter is other', () => {
    const cases: Array<[string, string]> = [
      ['token:cli_1:203.0.113.1', 'token'],
      ['bearer:cli_1', 'bearer'],
      ['pk:pk_test_1:203.0.113.1', 'publishable'],
      ['site:203.0.113.1', 'site'],
      ['callback:203.0.113.1', 'callback'],
      ['sign-in-account:a@example.org', 'sign_in_account'],
      ['sign-in-ip:203.0.113.1', 'sign_in_ip'],
      ['prompt:abc', 'prompt_per_phone'],
      ['probe', 'other'],
      ['constructor:x', 'other'],
      ['new-limiter:x', 'other'],
      [':x', 'other'],
    ];
    for (const [key, limiter] of cases) assert.equal(limiterOfKey(key), limiter, key);
  });
});

/** A checkout session as a browser script creates one: the publishable key and an allowed Origin. */
function publicSession(publishableKey: string, eventId: string, ip: string) {
  return api({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: {
      'content-type': 'application/json',
      'x-service-publishable-key': publishableKey,
      origin: SHOP,
    },
    payload: JSON.stringify({
      event_id: eventId,
      on_success_url: `${SHOP}/thanks`,
      on_cancel_url: `${SHOP}/cart`,
    }),
    remoteAddress: ip,
  });
}

/** The hosted page's form for `n` tickets, paid from a simulator number whose prompt stays pending. */
function orderForm(ticket: string, n: number): Record<string, string> {
  const fields: Record<string, string> = { [`qty.${ticket}`]: String(n) };
  for (let i = 0; i < n; i++) {
    fields[`items[${i}].ticket_type_id`] = ticket;
    fields[`items[${i}].participant_name`] = `Runner ${i + 1}`;
  }
  return {
    ...fields,
    'buyer.name': 'Amina Nakato',
    'buyer.email': 'amina@example.org',
    'buyer.phone': '0772123456',
    donation_minor: '',
    payment_method: 'momo',
    payment_phone: '0770000009',
    action: 'pay',
  };
}
