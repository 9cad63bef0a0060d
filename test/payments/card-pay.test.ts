// Cards through the whole stack against the simulator's Flutterwave, over real HTTP both ways: an
// organization turns cards on and its events price them; the attempt keeps the provider's page; the
// buyer pays on that page (3-D Secure included) and the webhook, checked by its secret hash, prompts
// the verify that pays the order; a forged webhook pays nothing; a part of a card payment is refunded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { organizations } from '../../src/organizations/organizations.schema.ts';
import { paymentAttempts, refunds } from '../../src/payments/payments.schema.ts';
import { startPayment } from '../../src/payments/start-payment.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';
import { startWebhookHarness } from '../webhooks/webhook-helpers.ts';
import { untilSettled } from './payments-helpers.ts';
import { FLUTTERWAVE_SIM_CREDENTIALS } from '../../src/payments/methods/card/sim-credentials.ts';

let sim: Simulator;
let h: Harness;
let api: string;
/** An organization that turned cards on, and one that did not. */
const shops = {
  cards: { organizationId: '', token: '', eventId: '', ticket: '' },
  plain: { organizationId: '', token: '', eventId: '', ticket: '' },
};
type Shop = (typeof shops)['cards'];

before(async () => {
  const port = await freePort();
  // Flutterwave's webhook and the buyer's return come to this listener, as to the public hosts.
  sim = await startSimulator({
    timeScale: 0.01,
    callbackUrls: { card: `http://127.0.0.1:${port}/v1/payment-callbacks/card` },
  });
  h = await startWebhookHarness({
    SIMULATOR_URL: sim.url,
    PAYMENT_TIME_SCALE: '0.01',
    RUN_JOBS: 'false',
    API_URL: `http://127.0.0.1:${port}`,
  });
  api = (await h.service.listen({ site: 0, app: 0, metrics: false })).api;
  for (const shop of [shops.cards, shops.plain]) {
    const partner = await makePartner(h);
    if (shop === shops.cards) {
      await db()
        .update(organizations)
        .set({ optedInMethods: ['card'] })
        .where(eq(organizations.id, partner.organizationId));
    }
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: '21 km', price_minor: 50_000, capacity: 100 }],
    });
    const [tt] = await db().select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id));
    Object.assign(shop, {
      organizationId: partner.organizationId,
      token: await getToken(h, partner),
      eventId: event.id,
      ticket: tt!.id,
    });
  }
});
after(async () => {
  await h?.close();
  await sim?.close();
});

const db = () => h.service.ctx.database.db;
const settleBackground = () => Promise.allSettled([...h.service.ctx.gateway.inflight]);

const until = (what: string, done: () => Promise<boolean>) => untilSettled(h.service.ctx.gateway, what, done);

const attemptOf = async (orderId: string) =>
  (await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId)))[0]!;
const readOrder = async (shop: Shop, orderId: string) =>
  (await h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(shop.token) })).json().data;

/** A pending order of one ticket, by the partner API (priced for a method when it is paid). */
async function newOrder(shop: Shop) {
  const created = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(shop.token),
    payload: {
      event_id: shop.eventId,
      items: [{ ticket_type_id: shop.ticket, participant_name: 'Amara Okello' }],
      buyer: { name: 'Amara Okello', email: 'amara@example.org', phone: '0772123456' },
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json().data as { id: string; total: number };
}

/** Starts the card payment as the hosted checkout does: the attempt then holds the provider's page. */
async function startCard(shop: Shop, orderId: string) {
  await startPayment(h.service.ctx, {
    organizationId: shop.organizationId,
    orderId,
    method: 'card',
    phone: '',
  });
  return attemptOf(orderId);
}

/** The buyer on the provider's page: types `card`, and the OTP when asked. Returns where it sends them. */
async function payOnPage(link: string, card: string): Promise<URL> {
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    redirect: 'manual' as const,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /card_number/);
  let res = await fetch(link, form({ card_number: card, expiry: '12/30', cvv: '123' }));
  const next = new URL(res.headers.get('location') ?? link, link);
  // A step of its own (3-D Secure) is on the provider's page; anywhere else is the way back.
  if (res.status === 303 && next.origin === new URL(link).origin) {
    res = await fetch(next, { redirect: 'manual' });
  }
  const body = await res.text();
  if (/name="otp"/.test(body)) {
    res = await fetch(`${link}/otp`, form({ otp: '12345' }));
    await res.arrayBuffer();
  }
  assert.equal(res.status, 303, 'the page sends the buyer back');
  return new URL(res.headers.get('location')!);
}

describe('cards, turned on per organization', () => {
  test('an event offers and prices card only when its organization turned cards on', async () => {
    const read = async (shop: Shop) =>
      (await h.service.api.inject({ url: `/v1/events/${shop.eventId}`, headers: bearer(shop.token) })).json()
        .data;
    const plain = await read(shops.plain);
    assert.deepEqual(plain.payment_methods, ['momo', 'airtel']);
    assert.equal(plain.ticket_types[0].card, null);
    const cards = await read(shops.cards);
    assert.deepEqual(cards.payment_methods, ['momo', 'airtel', 'card']);
    // UGX 50,000 at 3.8 % is 1,900.
    assert.deepEqual(cards.ticket_types[0].card, { laces_fee_minor: 1_900, total_minor: 51_900 });
    // The default method's figures stay MTN's.
    assert.equal(cards.ticket_types[0].laces_fee_minor, 1_750);
  });

  test('an organization without cards cannot start one, and nothing is sent', async () => {
    const order = await newOrder(shops.plain);
    await assert.rejects(
      startCard(shops.plain, order.id),
      /does not take Card; payment_method must be one of momo, airtel/,
    );
    assert.equal(
      (await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, order.id))).length,
      0,
    );
  });

  test("the partner API's pay route refuses card: only the hosted checkout sends a buyer to the card page", async () => {
    const order = await newOrder(shops.cards);
    const res = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/pay`,
      headers: bearer(shops.cards.token),
      payload: { payment_method: 'card', phone: '0772123456' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error_code, 'validation_failed');
    assert.deepEqual(
      res.json().errors.map((e: { field: string }) => e.field),
      ['payment_method'],
    );
  });
});

describe('paying by card on the provider page', () => {
  test('3-D Secure on the page, then the webhook prompts the verify that pays the order', async () => {
    const order = await newOrder(shops.cards);
    assert.equal(order.total, 51_750, "priced with MTN's fee until a method is chosen");
    const attempt = await startCard(shops.cards, order.id);
    assert.equal(attempt.amount, 51_900, "re-priced with the card's fee");
    assert.equal(attempt.status, 'pending');
    assert.equal(attempt.msisdn, '', 'no number is asked or kept for a card');
    assert.ok(
      attempt.redirectUrl?.startsWith(`${sim.url}/flutterwave/pay/`),
      attempt.redirectUrl ?? 'no page',
    );

    const back = await payOnPage(attempt.redirectUrl!, '5531886652142950');
    // Back to our site's return route with Flutterwave's query.
    assert.equal(back.pathname, `/checkout/return/${attempt.reference}`);
    assert.equal(back.searchParams.get('tx_ref'), attempt.reference);
    await until('the order paid', async () => (await readOrder(shops.cards, order.id)).status === 'paid');
    const paid = await readOrder(shops.cards, order.id);
    assert.equal(paid.payment_method, 'card');
    const settled = await attemptOf(order.id);
    assert.equal(settled.status, 'successful');
    assert.match(settled.providerTransactionId ?? '', /^\d+$/);
    const hooks = sim
      .part('card')
      .webhooks()
      .filter((w) => w.reference === attempt.reference);
    assert.deepEqual(
      hooks.map((w) => w.status),
      [200],
    );
  });

  test('a forged webhook pays nothing, and one with the right hash only prompts a verify', async () => {
    const order = await newOrder(shops.cards);
    const attempt = await startCard(shops.cards, order.id);
    const charge = {
      event: 'charge.completed',
      data: { id: 99, tx_ref: attempt.reference, status: 'successful', amount: 519, currency: 'UGX' },
    };
    const verifies = () => sim.statusQueries(attempt.reference);
    for (const hash of [undefined, 'not-the-hash']) {
      const res = await fetch(`${api}/v1/payment-callbacks/card`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(hash ? { 'verif-hash': hash } : {}) },
        body: JSON.stringify(charge),
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      await settleBackground();
    }
    assert.equal(verifies(), 0, 'a forged webhook asks nothing');
    const res = await fetch(`${api}/v1/payment-callbacks/card`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'verif-hash': FLUTTERWAVE_SIM_CREDENTIALS.secretHash,
      },
      body: JSON.stringify(charge),
    });
    await res.arrayBuffer();
    await settleBackground();
    assert.equal(verifies(), 1);
    // The card was never typed: the verify finds nothing paid.
    assert.equal((await readOrder(shops.cards, order.id)).status, 'pending');
    assert.equal((await attemptOf(order.id)).status, 'pending');
  });

  test("a declined card fails the attempt with the bank's words, and the buyer may pay again", async () => {
    const order = await newOrder(shops.cards);
    const attempt = await startCard(shops.cards, order.id);
    await payOnPage(attempt.redirectUrl!, '4000000000009995');
    await until('the attempt failed', async () => (await attemptOf(order.id)).status === 'failed');
    const failed = await readOrder(shops.cards, order.id);
    assert.deepEqual([failed.status, failed.failure_kind], ['pending', 'insufficient_funds']);
    await startCard(shops.cards, order.id);
    const attempts = await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, order.id));
    assert.deepEqual(attempts.map((a) => a.status).sort(), ['failed', 'pending']);
    assert.ok(
      attempts.every((a) => a.redirectUrl),
      'each attempt has its own page',
    );
  });
});

describe('refunding a card payment', () => {
  test('a part of the payment goes back through the provider, and the order stays paid', async () => {
    const order = await newOrder(shops.cards);
    const attempt = await startCard(shops.cards, order.id);
    await payOnPage(attempt.redirectUrl!, '4242424242424242');
    await until('the order paid', async () => (await readOrder(shops.cards, order.id)).status === 'paid');
    const res = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/refunds`,
      headers: bearer(shops.cards.token),
      payload: { amount_minor: 20_000, reason: 'Moved to the 10 km' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as string;
    assert.equal(res.json().data.method, 'card');
    const refundOf = async () => (await db().select().from(refunds).where(eq(refunds.id, id)))[0]!;
    await until('the refund settled', async () => {
      await h.service.jobs.runDue();
      return (await refundOf()).status !== 'pending';
    });
    const refund = await refundOf();
    assert.equal(refund.status, 'succeeded', refund.failureReason ?? '');
    assert.match(String((refund.providerIds as Record<string, string>).refund_id), /^\d+$/);
    const after = await readOrder(shops.cards, order.id);
    assert.deepEqual([after.status, after.refunded_total], ['paid', 20_000]);
    const sent = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'order.refunded' AND payload->'data'->>'id' = ${order.id}`,
    );
    assert.deepEqual([...sent], [{ n: 1 }]);
  });
});
