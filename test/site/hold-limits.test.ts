// Hoarding through the public path is bounded: tickets held unpaid or taken free from one client IP
// per event (HOLD_LIMIT_TICKETS_PER_IP), and payment prompts per phone number per 10 minutes
// (PROMPT_LIMIT_PER_PHONE), both on the hosted checkout page that publishable-key sessions lead
// to. Server orders with a bearer token are not counted.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import {
  clientNetwork,
  formatWait,
  hashClientIp,
  holdLimitMessage,
  isExemptTestNumber,
} from '../../src/site/buyer-limits.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { flat, waitForStatus, type Page } from './site-helpers.ts';

const SHOP = 'https://shop.example.org';
const HOLD_SECONDS = 15 * 60;

interface Shop {
  token: string;
  publishableKey: string;
  eventId: string;
  ticket: string;
}

/** A partner and an event with one ticket type of 100 places, no questions and no waiver. */
async function makeShop(h: Harness, priceMinor = 30000): Promise<Shop> {
  const partner = await makePartner(h, { allowedDomains: [SHOP], returnUrlDomains: [SHOP] });
  const event = await makeEvent(h, partner, {
    ticket_types: [{ name: '10 km', price_minor: priceMinor, capacity: 100, distance_km: 10 }],
  });
  const token = await getToken(h, partner);
  const detail = await h.service.api.inject({
    method: 'GET',
    url: `/v1/events/${event.id}`,
    headers: bearer(token),
  });
  const types = detail.json().data.ticket_types as { ticket_type_id: string }[];
  return {
    token,
    publishableKey: partner.publishableKey,
    eventId: event.id,
    ticket: types[0]!.ticket_type_id,
  };
}

/** A session as a browser script creates one: the publishable key and an allowed Origin. */
async function publicSession(h: Harness, shop: Shop, ip: string): Promise<string> {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: {
      'content-type': 'application/json',
      'x-service-publishable-key': shop.publishableKey,
      origin: SHOP,
    },
    payload: JSON.stringify({
      event_id: shop.eventId,
      on_success_url: `${SHOP}/thanks`,
      on_cancel_url: `${SHOP}/cart`,
    }),
    remoteAddress: ip,
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id as string;
}

/** The hosted page's form for `n` tickets, paid from `phone`. */
function orderForm(shop: Shop, n: number, phone: string): Record<string, string> {
  const fields: Record<string, string> = { [`qty.${shop.ticket}`]: String(n) };
  for (let i = 0; i < n; i++) {
    fields[`items[${i}].ticket_type_id`] = shop.ticket;
    fields[`items[${i}].participant_name`] = `Runner ${i + 1}`;
  }
  return {
    ...fields,
    'buyer.name': 'Amina Nakato',
    'buyer.email': 'amina@example.org',
    'buyer.phone': '0772123456',
    donation_minor: '',
    payment_method: 'momo',
    payment_phone: phone,
    action: 'pay',
  };
}

async function postFrom(h: Harness, url: string, fields: Record<string, string>, ip: string): Promise<Page> {
  const res = await h.service.site.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: ip,
  });
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    body: /^text\/html/.test(String(res.headers['content-type'])) ? flat(res.body) : res.body,
    rawPayload: res.rawPayload,
    json: () => res.json(),
  };
}

async function remaining(h: Harness, shop: Shop): Promise<number> {
  const res = await h.service.api.inject({
    method: 'GET',
    url: `/v1/events/${shop.eventId}`,
    headers: bearer(shop.token),
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data.ticket_types as { remaining: number }[])[0]!.remaining;
}

function serverOrder(h: Harness, shop: Shop, n: number) {
  return h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { ...bearer(shop.token), 'content-type': 'application/json' },
    payload: JSON.stringify({
      event_id: shop.eventId,
      items: Array.from({ length: n }, (_, i) => ({
        ticket_type_id: shop.ticket,
        participant_name: `Server runner ${i + 1}`,
      })),
      buyer: { name: 'Ada Runner', email: 'ada@example.org', phone: '0772123456' },
    }),
  });
}

function expectHoldLimit(page: Page): number {
  assert.equal(page.statusCode, 429, page.body.slice(0, 300));
  const retryAfter = Number(page.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= HOLD_SECONDS, `${retryAfter}`);
  assert.match(page.body, /<div class="error-summary"[^>]*data-error-code="hold_limit_reached"/);
  assert.match(
    page.body,
    /<li><a href="#f-items">(Too many tickets for this event have been taken|Only \d+ more tickets? can be taken)/,
  );
  assert.match(
    page.body,
    /<p class="error" id="err-f-items">Error: [^<]*try again in about \d+ minutes?\.<\/p>/,
  );
  assert.match(page.body, /<title>Error: Checkout/);
  return retryAfter;
}

/** A valid Ugandan MTN number that is no simulator test number: the simulator approves it. */
function ordinaryNumber(): string {
  return `0772${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
}

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

describe('places per client IP and event: unpaid holds and free places', () => {
  test('ten hosted-page orders of ten tickets from one IP hold at most 20 of 100; a server order still succeeds', async () => {
    const shop = await makeShop(h);
    const ip = '198.51.100.7';
    const statuses: number[] = [];
    let lastRefusal: Page | null = null;
    for (let i = 0; i < 10; i++) {
      const id = await publicSession(h, shop, ip);
      // 09: the prompt stays pending for ever, so every hold stays unpaid
      const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 10, '0770000009'), ip);
      statuses.push(page.statusCode);
      if (page.statusCode === 429) {
        expectHoldLimit(page);
        lastRefusal = page;
      } else {
        assert.equal(page.statusCode, 303, page.body.slice(0, 300));
      }
    }
    assert.deepEqual(statuses, [303, 303, 429, 429, 429, 429, 429, 429, 429, 429]);
    assert.ok((await remaining(h, shop)) >= 80);
    assert.equal(await remaining(h, shop), 80);
    // The refusal keeps what the buyer entered, with the tickets in error.
    assert.match(lastRefusal!.body, /<select class="qty" id="f-items"[^>]*aria-invalid="true"/);

    const server = await serverOrder(h, shop, 10);
    assert.equal(server.statusCode, 201, server.body);
    assert.equal(server.json().data.status, 'pending');
    // Another buyer's connection has its own allowance.
    const other = await publicSession(h, shop, '198.51.100.8');
    const page = await postFrom(
      h,
      `/checkout/${other}/order`,
      orderForm(shop, 10, '0770000009'),
      '198.51.100.8',
    );
    assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    assert.equal(await remaining(h, shop), 60);
  });

  test('Retry-After says when enough holds lapse, and then the same IP may hold again', async () => {
    const shop = await makeShop(h);
    const ip = '198.51.100.20';
    for (let i = 0; i < 2; i++) {
      const id = await publicSession(h, shop, ip);
      const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 10, '0770000009'), ip);
      assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    }
    const id = await publicSession(h, shop, ip);
    const refused = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 5, '0770000009'), ip);
    const retryAfter = expectHoldLimit(refused);
    assert.ok(retryAfter > HOLD_SECONDS - 60, `${retryAfter}`);
    // The review (a dry run) tells the buyer as early.
    const review = await postFrom(
      h,
      `/checkout/${id}/order`,
      { ...orderForm(shop, 5, '0770000009'), action: 'review' },
      ip,
    );
    expectHoldLimit(review);

    h.clock.advance(retryAfter * 1000);
    const again = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 5, '0770000009'), ip);
    assert.equal(again.statusCode, 303, again.body.slice(0, 300));
  });

  test('a buyer is told how many tickets still fit', async () => {
    const shop = await makeShop(h);
    const ip = '198.51.100.25';
    for (const n of [10, 5]) {
      const id = await publicSession(h, shop, ip);
      const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, n, '0770000009'), ip);
      assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    }
    const id = await publicSession(h, shop, ip);
    const refused = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 10, '0770000009'), ip);
    expectHoldLimit(refused);
    assert.match(
      refused.body,
      /Only 5 more tickets can be taken for this event from your internet connection right now\. Choose 5 or fewer, or try again in about 15 minutes\./,
    );
    const fits = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 5, '0770000009'), ip);
    assert.equal(fits.statusCode, 303, fits.body.slice(0, 300));
    assert.equal(await remaining(h, shop), 80);
  });

  test("a session's own earlier order is replaced, so it does not count against the limit", async () => {
    const shop = await makeShop(h);
    const ip = '198.51.100.30';
    const first = await publicSession(h, shop, ip);
    // 12: provider outage, nothing created: the attempt fails and the order stays pending, re-placeable
    let page = await postFrom(h, `/checkout/${first}/order`, orderForm(shop, 10, '0770000012'), ip);
    assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    await waitForStatus(h, first, (s) => s.attempt_status === 'failed');
    const second = await publicSession(h, shop, ip);
    page = await postFrom(h, `/checkout/${second}/order`, orderForm(shop, 10, '0770000009'), ip);
    assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    // 20 held: the first session's new order of 10 replaces its old one of 10.
    page = await postFrom(h, `/checkout/${first}/order`, orderForm(shop, 10, '0770000009'), ip);
    assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    assert.equal(await remaining(h, shop), 80);
  });

  test('free places count too: one IP takes 20 of them, then more once a hold period has passed', async () => {
    const shop = await makeShop(h, 0);
    const ip = '198.51.100.40';
    const statuses: number[] = [];
    let refused: Page | null = null;
    for (let i = 0; i < 5; i++) {
      const id = await publicSession(h, shop, ip);
      const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 10, ''), ip);
      statuses.push(page.statusCode);
      if (page.statusCode === 429) refused = page;
    }
    assert.deepEqual(statuses, [303, 303, 429, 429, 429]);
    const retryAfter = expectHoldLimit(refused!);
    assert.ok(retryAfter > HOLD_SECONDS - 60, `the first free places count a hold period: ${retryAfter}`);
    assert.equal(await remaining(h, shop), 80);
    // Free places mixed with an unpaid hold: the limit covers both.
    const paid = await makeShop(h);
    assert.equal(
      (await postFrom(h, `/checkout/${await publicSession(h, paid, ip)}/order`, orderForm(paid, 10, ''), ip))
        .statusCode,
      303,
      'another event has its own allowance',
    );
    // Another connection has its own allowance, and this one gets its own back a hold period later.
    const other = await publicSession(h, shop, '198.51.100.41');
    const page = await postFrom(h, `/checkout/${other}/order`, orderForm(shop, 10, ''), '198.51.100.41');
    assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    h.clock.advance(retryAfter * 1000);
    try {
      const again = await publicSession(h, shop, ip);
      const later = await postFrom(h, `/checkout/${again}/order`, orderForm(shop, 10, ''), ip);
      assert.equal(later.statusCode, 303, later.body.slice(0, 300));
      assert.equal(await remaining(h, shop), 60);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('free places and unpaid holds from one IP share one limit', async () => {
    const partner = await makePartner(h, { allowedDomains: [SHOP], returnUrlDomains: [SHOP] });
    const event = await makeEvent(h, partner, {
      ticket_types: [
        { name: 'Fun run', price_minor: 0, capacity: 100, distance_km: 3 },
        { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 },
      ],
    });
    const token = await getToken(h, partner);
    const detail = await h.service.api.inject({
      method: 'GET',
      url: `/v1/events/${event.id}`,
      headers: bearer(token),
    });
    const [free, paid] = (detail.json().data.ticket_types as { ticket_type_id: string }[]).map(
      (t) => t.ticket_type_id,
    );
    const base = { token, publishableKey: partner.publishableKey, eventId: event.id };
    const ip = '198.51.100.45';
    const place = async (ticket: string, n: number, phone: string) =>
      postFrom(
        h,
        `/checkout/${await publicSession(h, { ...base, ticket }, ip)}/order`,
        orderForm({ ...base, ticket }, n, phone),
        ip,
      );
    assert.equal((await place(free!, 10, '')).statusCode, 303);
    // 09: the prompt stays pending, so the hold stays unpaid
    assert.equal((await place(paid!, 10, '0770000009')).statusCode, 303);
    expectHoldLimit(await place(free!, 1, ''));
    expectHoldLimit(await place(paid!, 1, '0770000009'));
  });

  test('20 concurrent hosted-page orders of 5 tickets from one IP never hold more than 20 tickets', async () => {
    const shop = await makeShop(h);
    const ip = '198.51.100.50';
    const sessions = await Promise.all(Array.from({ length: 20 }, () => publicSession(h, shop, ip)));
    const pages = await Promise.all(
      sessions.map((id) => postFrom(h, `/checkout/${id}/order`, orderForm(shop, 5, '0770000009'), ip)),
    );
    const codes = pages.map((p) => p.statusCode).sort();
    assert.deepEqual(codes, [...Array<number>(4).fill(303), ...Array<number>(16).fill(429)]);
    for (const page of pages) if (page.statusCode === 429) expectHoldLimit(page);
    assert.equal(await remaining(h, shop), 80);
  });
});

describe('payment prompts per phone number', () => {
  test('the 4th prompt to one number within 10 minutes is refused; test numbers are exempt', async () => {
    const shop = await makeShop(h);
    const ip = '198.51.100.60';
    const phone = ordinaryNumber();
    const statuses: number[] = [];
    let refused: Page | null = null;
    let refusedSession = '';
    for (let i = 0; i < 4; i++) {
      const id = await publicSession(h, shop, ip);
      const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 1, phone), ip);
      statuses.push(page.statusCode);
      if (page.statusCode === 429) {
        refused = page;
        refusedSession = id;
      }
    }
    assert.deepEqual(statuses, [303, 303, 303, 429]);
    const retryAfter = Number(refused!.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 600, `${retryAfter}`);
    const body = refused!.body;
    assert.match(body, /<div class="error-summary"[^>]*data-error-code="prompt_limit_reached"/);
    assert.match(body, /<li><a href="#f-payment_phone">Too many payment prompts have gone to this number/);
    assert.match(
      body,
      /<input type="tel" id="f-payment_phone" name="payment_phone" value="[^"]*"[^>]*aria-invalid="true"/,
    );
    assert.match(body, /try again in about 10 minutes\./);
    // No prompt went out, and the order is still held for another number.
    assert.match(body, /<h2 id="h-wait" tabindex="-1" autofocus>Pay for your order<\/h2>/);

    const retry = (payment_phone: string) =>
      postFrom(h, `/checkout/${refusedSession}/retry`, { payment_method: 'momo', payment_phone }, ip);
    const again = await retry(phone);
    assert.equal(again.statusCode, 429);
    assert.match(again.body, /data-error-code="prompt_limit_reached"/);
    assert.match(String(again.headers['retry-after']), /^\d+$/);
    const other = await retry(ordinaryNumber());
    assert.equal(other.statusCode, 303, other.body.slice(0, 300));

    // The simulator's test numbers can be reused as often as a test needs.
    for (let i = 0; i < 5; i++) {
      const id = await publicSession(h, shop, ip);
      const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 1, '0770000001'), ip);
      assert.equal(page.statusCode, 303, page.body.slice(0, 300));
    }
  });

  test('server payments with a bearer token are not counted', async () => {
    const shop = await makeShop(h);
    const phone = ordinaryNumber();
    for (let i = 0; i < 4; i++) {
      const created = await serverOrder(h, shop, 1);
      assert.equal(created.statusCode, 201, created.body);
      const pay = await h.service.api.inject({
        method: 'POST',
        url: `/v1/orders/${created.json().data.id}/pay`,
        headers: { ...bearer(shop.token), 'content-type': 'application/json' },
        payload: JSON.stringify({ payment_method: 'momo', phone }),
      });
      assert.equal(pay.statusCode, 202, pay.body);
    }
    // and leave the hosted page's allowance for the number untouched
    const id = await publicSession(h, shop, '198.51.100.61');
    const page = await postFrom(h, `/checkout/${id}/order`, orderForm(shop, 1, phone), '198.51.100.61');
    assert.equal(page.statusCode, 303, page.body.slice(0, 300));
  });
});

describe('buyer limit rules', () => {
  test('an IPv6 client counts by its /64; an IPv4-mapped address as IPv4', () => {
    assert.equal(clientNetwork('198.51.100.7'), '198.51.100.7');
    assert.equal(clientNetwork('::ffff:198.51.100.7'), '198.51.100.7');
    assert.equal(clientNetwork('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientNetwork('2001:DB8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(clientNetwork('2001:db8::1%eth0'), '2001:db8:0:0::/64');
    assert.equal(clientNetwork('::1'), '0:0:0:0::/64');
    const keys = h.service.ctx.keys;
    assert.equal(hashClientIp(keys, '2001:db8:1:2::1'), hashClientIp(keys, '2001:db8:1:2::2'));
    assert.notEqual(hashClientIp(keys, '2001:db8:1:2::1'), hashClientIp(keys, '2001:db8:1:3::1'));
    // Keyed and one-way: the address is not in what is stored, in any spelling.
    const hashed = hashClientIp(keys, '198.51.100.7');
    assert.match(hashed, /^[A-Za-z0-9_-]{16,}$/);
    assert.doesNotMatch(hashed, /198\.51\.100/);
  });

  test('only the simulator exempts its test numbers', () => {
    const ctx = (provider: string) => ({ config: { payments: { provider } } }) as unknown as AppContext;
    assert.equal(isExemptTestNumber(ctx('simulator'), '256770000001'), true);
    assert.equal(isExemptTestNumber(ctx('simulator'), '256700000013'), true);
    assert.equal(isExemptTestNumber(ctx('simulator'), '256770000099'), false);
    assert.equal(isExemptTestNumber(ctx('simulator'), '256772123456'), false);
    assert.equal(isExemptTestNumber(ctx('live'), '256770000001'), false);
  });

  test('the limits are settings: whole numbers, and a full order always fits under the hold limit', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: 'memory://' };
    const defaults = loadConfig(base);
    assert.equal(defaults.holdLimitTicketsPerIp, 20);
    assert.equal(defaults.promptLimitPerPhone, 3);
    const set = loadConfig({ ...base, HOLD_LIMIT_TICKETS_PER_IP: '40', PROMPT_LIMIT_PER_PHONE: '5' });
    assert.equal(set.holdLimitTicketsPerIp, 40);
    assert.equal(set.promptLimitPerPhone, 5);
    assert.throws(() => loadConfig({ ...base, HOLD_LIMIT_TICKETS_PER_IP: '9' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, HOLD_LIMIT_TICKETS_PER_IP: '20.5' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, PROMPT_LIMIT_PER_PHONE: '0' }), /PROMPT_LIMIT_PER_PHONE/);
  });

  test('waits read as a buyer says them', () => {
    assert.equal(formatWait(1), '1 second');
    assert.equal(formatWait(45), '45 seconds');
    assert.equal(formatWait(60), '1 minute');
    assert.equal(formatWait(61), '2 minutes');
    assert.equal(formatWait(900), '15 minutes');
    assert.match(
      holdLimitMessage({ held: 19, limit: 20, retryAfterSeconds: 30 }),
      /Only 1 more ticket can be taken .* Choose 1 ticket, or try again in about 30 seconds\./,
    );
    assert.match(
      holdLimitMessage({ held: 20, limit: 20, retryAfterSeconds: 840 }),
      /^Too many tickets .* or try again in about 14 minutes\.$/,
    );
  });
});
