// Paying an order by mobile money through the whole stack: POST /v1/orders/{id}/pay, the
// attempt's job, the simulator over real HTTP, and the order-paying transaction.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { expireOrderHold } from '../../src/orders/order-lifecycle.ts';
import { orders } from '../../src/orders/orders.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

let h: Harness;
let partner: TestPartner;
let token: string;
let eventId: string;
let paidTicket: string;
let cheapTicket: string;
let freeTicket: string;

const buyer = { name: 'Ann', email: 'ann@example.org', phone: '0772123456' };

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  const event = await makeEvent(h, partner, {
    ticket_types: [
      { name: '10 km', price_minor: 30000, capacity: 500, distance_km: 10 },
      { name: 'Kids', price_minor: 400, capacity: 50, distance_km: 1 },
      { name: 'Free 5 km', price_minor: 0, capacity: 50, distance_km: 5 },
    ],
  });
  eventId = event.id;
  token = await getToken(h, partner);
  const rows = await h.service.ctx.database.db
    .select()
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, eventId));
  paidTicket = rows.find((r) => r.name === '10 km')!.id;
  cheapTicket = rows.find((r) => r.name === 'Kids')!.id;
  freeTicket = rows.find((r) => r.name === 'Free 5 km')!.id;
});
after(() => h.close());

async function newOrder(ticketTypeId = paidTicket, harness = h, auth = token, event = eventId) {
  const res = await harness.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(auth),
    payload: { event_id: event, items: [{ ticket_type_id: ticketTypeId, participant_name: 'Ann' }], buyer },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; total: number; hold_expires_at: string };
}

function pay(orderId: string, method: string, phone: string, harness = h, auth = token) {
  return harness.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: bearer(auth),
    payload: { payment_method: method, phone },
  });
}

async function readOrder(orderId: string, harness = h, auth = token) {
  return (await harness.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(auth) })).json()
    .data;
}

/** Runs background jobs until the order settles (paid, failed attempt, or not pending). */
async function settle(orderId: string, harness = h, auth = token, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await harness.service.jobs.runDue();
    const [attempt] = await harness.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, orderId))
      .orderBy(sql`${paymentAttempts.createdAt} DESC`)
      .limit(1);
    if (attempt && attempt.status !== 'pending' && attempt.status !== 'submitting') break;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 30));
  }
  return readOrder(orderId, harness, auth);
}

describe('POST /v1/orders/{id}/pay', () => {
  test('answers 202 with the pending order while the prompt is out, then the order is paid', async () => {
    const order = await newOrder();
    const res = await pay(order.id, 'momo', '0770000001');
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().code, 202);
    assert.equal(res.json().data.status, 'pending');
    const paid = await settle(order.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.hold_expires_at, null);
    assert.deepEqual(
      paid.registrations.map((r: { status: string }) => r.status),
      ['confirmed'],
    );
    const outbox = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'order.paid' AND payload->'data'->>'id' = ${order.id}`,
    );
    assert.equal(outbox[0]!.n, 1);
  });

  test('a second call while a prompt is outstanding sends no second prompt', async () => {
    const order = await newOrder();
    const first = await pay(order.id, 'momo', '0770000009'); // stays pending for ever
    const second = await pay(order.id, 'momo', '0770000009');
    const third = await pay(order.id, 'airtel', '0700000001');
    assert.deepEqual([first.statusCode, second.statusCode, third.statusCode], [202, 202, 202]);
    const attempts = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    assert.equal(attempts.length, 1);
  });

  test('concurrent pay calls create one attempt', async () => {
    const order = await newOrder();
    const results = await Promise.all(Array.from({ length: 8 }, () => pay(order.id, 'momo', '0770000009')));
    for (const r of results) assert.ok([202, 409].includes(r.statusCode), r.body);
    const attempts = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    assert.equal(attempts.length, 1);
  });

  test('a declined payment keeps the order pending with failure_kind; a retry with another network succeeds', async () => {
    const order = await newOrder();
    await pay(order.id, 'momo', '0770000003');
    const declined = await settle(order.id);
    assert.equal(declined.status, 'pending');
    assert.equal(declined.failure_kind, 'payment_declined');
    assert.equal((await pay(order.id, 'airtel', '0700000001')).statusCode, 202);
    const paid = await settle(order.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.failure_kind, null);
  });

  test('refuses a phone of the other network, and bad phones, with validation_failed', async () => {
    const order = await newOrder();
    for (const [method, phone] of [
      ['momo', '0700000001'],
      ['airtel', '0770000001'],
      ['momo', '12345'],
    ]) {
      const res = await pay(order.id, method!, phone!);
      assert.equal(res.statusCode, 400, `${method} ${phone}`);
      assert.equal(res.json().error_code, 'validation_failed');
      assert.equal(res.json().errors[0].field, 'phone');
    }
    const bad = await pay(order.id, 'card', '0770000001');
    assert.equal(bad.statusCode, 400);
  });

  test('refuses a landline or another network for the prompt, changing nothing; the buyer phone may be one', async () => {
    // The buyer's contact number (the contract's buyer.phone) is any Ugandan number: only the
    // payer's must take mobile money.
    const res = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(token),
      payload: {
        event_id: eventId,
        items: [{ ticket_type_id: paidTicket, participant_name: 'Ann' }],
        buyer: { ...buyer, phone: '0414 123456' },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json().data as { id: string; hold_expires_at: string };
    for (const [method, phone] of [
      ['momo', '0414123456'],
      ['airtel', '+256 312 123456'],
      ['momo', '00256 392 123456'],
      ['airtel', '0712345678'],
      ['momo', '0722123456'],
    ]) {
      const refused = await pay(order.id, method!, phone!);
      assert.equal(refused.statusCode, 400, `${method} ${phone}`);
      const body = refused.json();
      assert.equal(body.error_code, 'validation_failed');
      assert.deepEqual(
        body.errors.map((e: { field: string }) => e.field),
        ['phone'],
      );
      assert.match(
        body.errors[0].message,
        /mobile money number: MTN 076, 077, 078, 079 or Airtel 070, 074, 075/,
      );
    }
    const attempts = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    assert.equal(attempts.length, 0, 'no attempt recorded');
    const read = await readOrder(order.id);
    assert.equal(read.status, 'pending');
    assert.equal(read.hold_expires_at, order.hold_expires_at, 'the hold is not extended');
  });

  test('takes a payer number written 00256…, and prompts that number', async () => {
    const order = await newOrder();
    assert.equal((await pay(order.id, 'momo', '00256 770-000-001')).statusCode, 202);
    const [attempt] = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    assert.equal(attempt!.msisdn, '256770000001');
    assert.equal((await settle(order.id)).status, 'paid');
  });

  test('refuses an amount below the provider minimum (UGX 500)', async () => {
    const order = await newOrder(cheapTicket);
    assert.ok(order.total < 500);
    const res = await pay(order.id, 'momo', '0770000001');
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error_code, 'amount_below_minimum');
    const attempts = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    assert.equal(attempts.length, 0);
  });

  test('refuses paid, expired and cancelled orders with 409 order_not_payable', async () => {
    const free = await newOrder(freeTicket);
    const paidRes = await pay(free.id, 'momo', '0770000001');
    assert.equal(paidRes.statusCode, 409);
    assert.equal(paidRes.json().error_code, 'order_not_payable');

    const lapsed = await newOrder();
    await h.service.ctx.database.db
      .update(orders)
      .set({ holdExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(orders.id, lapsed.id));
    const expiredRes = await pay(lapsed.id, 'momo', '0770000001');
    assert.equal(expiredRes.statusCode, 409);
    assert.equal(expiredRes.json().error_code, 'order_not_payable');
    assert.equal((await readOrder(lapsed.id)).status, 'expired');

    const cancelled = await newOrder();
    await h.service.ctx.database.db
      .update(orders)
      .set({ status: 'cancelled' })
      .where(eq(orders.id, cancelled.id));
    assert.equal((await pay(cancelled.id, 'momo', '0770000001')).json().error_code, 'order_not_payable');
  });

  test("another organization's order is 404 not_found", async () => {
    const order = await newOrder();
    const other = await makePartner(h);
    const res = await pay(order.id, 'momo', '0770000001', h, await getToken(h, other));
    assert.equal(res.statusCode, 404);
  });

  test('a provider amount that differs from the order total is not accepted', async () => {
    const order = await newOrder();
    await pay(order.id, 'momo', '0770000001');
    // Once the prompt is out, make our record of the attempt disagree with what was submitted.
    for (let i = 0; i < 200; i++) {
      const [sent] = await h.service.ctx.database.db
        .select()
        .from(paymentAttempts)
        .where(eq(paymentAttempts.orderId, order.id));
      if (sent!.status !== 'submitting') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await h.service.ctx.database.db
      .update(paymentAttempts)
      .set({ amount: order.total + 1 })
      .where(eq(paymentAttempts.orderId, order.id));
    const result = await settle(order.id);
    assert.equal(result.status, 'pending');
    assert.equal(result.failure_kind, 'provider_error');
    const [attempt] = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    assert.equal(attempt!.status, 'failed');
    assert.match(attempt!.failureMessage ?? '', /amount/);
  });
});

describe('simulator scenarios through the whole stack', () => {
  const cases: [string, string, string | null][] = [
    ['01', 'paid', null],
    ['02', 'paid', null],
    ['03', 'pending', 'payment_declined'],
    ['04', 'pending', 'payment_timeout'],
    ['05', 'pending', 'insufficient_funds'],
    ['06', 'pending', 'payment_declined'],
    ['07', 'pending', 'payment_declined'],
    ['08', 'pending', 'payment_declined'],
    ['11', 'paid', null],
    ['12', 'pending', 'provider_error'],
    ['13', 'paid', null],
  ];
  for (const [method, prefix] of [
    ['momo', '07700000'],
    ['airtel', '07000000'],
  ] as const) {
    for (const [code, status, failure] of cases) {
      test(`${method} ${code}: ${status}${failure ? ` (${failure})` : ''}`, async () => {
        const order = await newOrder();
        assert.equal((await pay(order.id, method, `${prefix}${code}`)).statusCode, 202);
        const result = await settle(order.id);
        assert.equal(result.status, status);
        assert.equal(result.failure_kind, failure);
      });
    }
    test(`${method} 09 and 10: no final answer from a status query keeps the order pending`, async () => {
      for (const code of ['09', '10']) {
        const order = await newOrder();
        await pay(order.id, method, `${prefix}${code}`);
        const result = await settle(order.id, h, token, 600);
        assert.equal(result.status, 'pending', code);
        assert.equal(result.failure_kind, null, code);
      }
    });
  }
});

describe('holds and late payments', () => {
  test('the hold is extended over the prompt window while a prompt is outstanding', async () => {
    const short = await startHarness({ env: { HOLD_MINUTES: '0.01' } }); // 0.6 s hold
    try {
      const p = await makePartner(short);
      const event = await makeEvent(short, p);
      const t = await getToken(short, p);
      const [tt] = await short.service.ctx.database.db
        .select()
        .from(ticketTypes)
        .where(eq(ticketTypes.eventId, event.id));
      const order = await newOrder(tt!.id, short, t, event.id);
      const before = Date.parse(order.hold_expires_at);
      const res = await pay(order.id, 'momo', '0770000002', short, t); // approves after ~250 ms scaled
      const extended = Date.parse(res.json().data.hold_expires_at);
      // prompt window 5 min x 0.01 = 3 s, plus a margin
      assert.ok(extended - before >= 2500, `${extended - before} ms`);
      short.clock.advance(700); // past the original hold, as the service and its jobs tell time
      const paid = await settle(order.id, short, t);
      assert.equal(paid.status, 'paid');
    } finally {
      await short.close();
    }
  });

  test('a success after the hold lapsed is honoured when capacity remains', async () => {
    const order = await newOrder();
    await pay(order.id, 'momo', '0770000002');
    await h.service.ctx.database.transaction(async (tx) => {
      await tx
        .update(orders)
        .set({ holdExpiresAt: new Date(Date.now() - 1) })
        .where(eq(orders.id, order.id));
      await expireOrderHold(tx, order.id, new Date());
    });
    assert.equal((await readOrder(order.id)).status, 'expired');
    const paid = await settle(order.id);
    assert.equal(paid.status, 'paid');
  });

  test('a success after the hold lapsed with no capacity left is recorded paid_after_expiry, never dropped', async () => {
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: 'Last place', price_minor: 30000, capacity: 1, distance_km: 10 }],
    });
    const [tt] = await h.service.ctx.database.db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.eventId, event.id));
    const first = await newOrder(tt!.id, h, token, event.id);
    await pay(first.id, 'momo', '0770000002');
    await h.service.ctx.database.transaction(async (tx) => {
      await tx
        .update(orders)
        .set({ holdExpiresAt: new Date(Date.now() - 1) })
        .where(eq(orders.id, first.id));
      await expireOrderHold(tx, first.id, new Date());
    });
    const second = await newOrder(tt!.id, h, token, event.id); // takes the only place
    const late = await settle(first.id);
    assert.equal(late.status, 'expired');
    const [row] = await h.service.ctx.database.db.select().from(orders).where(eq(orders.id, first.id));
    assert.equal(row!.paidAfterExpiry, true);
    const [counts] = await h.service.ctx.database.db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.id, tt!.id));
    assert.equal(counts!.paidCount + counts!.heldCount, 1, 'never oversold');
    assert.equal((await readOrder(second.id)).status, 'pending');
  });
});

describe('provider callbacks', () => {
  test('POST and PUT are accepted, confirmed by a status query in the background, and duplicates are harmless', async () => {
    const order = await newOrder();
    await pay(order.id, 'momo', '0770000001');
    await new Promise((r) => setTimeout(r, 100)); // the simulator approves after ~20 ms scaled
    const [attempt] = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    for (const method of ['PUT', 'POST', 'PUT'] as const) {
      const res = await h.service.api.inject({
        method,
        url: `/v1/payment-callbacks/momo/${attempt!.reference}`,
        headers: { 'content-type': 'application/json' },
        payload: { status: 'SUCCESSFUL' },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    // The callback is answered at once; its status query pays the order without the job.
    for (let i = 0; i < 200 && (await readOrder(order.id)).status !== 'paid'; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal((await readOrder(order.id)).status, 'paid');
    const outbox = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM outbox_events WHERE payload->'data'->>'id' = ${order.id}`,
    );
    assert.equal(outbox[0]!.n, 1);
  });

  test('a callback claiming success is not proof: the order stays pending while the status query says pending', async () => {
    const order = await newOrder();
    await pay(order.id, 'momo', '0770000009');
    await new Promise((r) => setTimeout(r, 50));
    const [attempt] = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    const res = await h.service.api.inject({
      method: 'PUT',
      url: `/v1/payment-callbacks/momo/${attempt!.reference}`,
      payload: { status: 'SUCCESSFUL', financialTransactionId: 'forged' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal((await readOrder(order.id)).status, 'pending');
  });

  test('an unknown reference or the wrong network answers as a known one does', async () => {
    const res = await h.service.api.inject({
      method: 'POST',
      url: '/v1/payment-callbacks/airtel/00000000-0000-4000-8000-000000000000',
      payload: {},
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { code: 200, message: 'Callback received', data: { received: true } });
  });
});
