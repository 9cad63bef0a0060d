// M-Pesa through the whole stack on a KES event: the partner API's pay route, the attempt keeping
// Daraja's CheckoutRequestID, its job querying the simulator's Daraja over real HTTP, and the order
// paid; the methods a currency takes, Kenyan numbers, whole shillings, and a forged callback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { PAYMENT_METHOD_REGISTRY } from '../../src/payments/methods/registry.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { postSession, redirectBody } from '../checkout/checkout-helpers.ts';
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
const events: Record<'KES' | 'UGX', { id: string; ticket: string }> = {
  KES: { id: '', ticket: '' },
  UGX: { id: '', ticket: '' },
};

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  token = await getToken(h, partner);
  for (const [currency, price] of [
    ['KES', 150_000],
    ['UGX', 30_000],
  ] as const) {
    const event = await makeEvent(h, partner, {
      currency,
      ticket_types: [{ name: '10 km', price_minor: price, capacity: 100 }],
    });
    const [tt] = await h.service.ctx.database.db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.eventId, event.id));
    events[currency] = { id: event.id, ticket: tt!.id };
  }
});
after(() => h.close());

async function newOrder(currency: 'KES' | 'UGX', extra: Record<string, unknown> = {}) {
  const { id, ticket } = events[currency];
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(token),
    payload: {
      event_id: id,
      items: [{ ticket_type_id: ticket, participant_name: 'Wanjiru' }],
      buyer: { name: 'Wanjiru', email: 'wanjiru@example.org', phone: '0712345678' },
      ...extra,
    },
  });
  return res;
}

async function orderOf(currency: 'KES' | 'UGX') {
  const res = await newOrder(currency);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; total: number; currency: string; buyer: { phone: string } };
}

const pay = (orderId: string, method: string, phone: string) =>
  h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: bearer(token),
    payload: { payment_method: method, phone },
  });

const attemptsOf = (orderId: string) =>
  h.service.ctx.database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));

const readOrder = async (orderId: string) =>
  (await h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(token) })).json().data;

/** Runs due jobs until the order's latest attempt is settled, or the time is up. */
async function settle(orderId: string, timeoutMs = 8_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await h.service.jobs.runDue();
    const attempts = await attemptsOf(orderId);
    const open = attempts.some((a) => a.status === 'pending' || a.status === 'submitting');
    if (!open || Date.now() > deadline) return readOrder(orderId);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

describe('M-Pesa on a KES event', () => {
  test('the order is priced in whole shillings, and a Safaricom number pays it', async () => {
    const order = await orderOf('KES');
    // KES 1,500.00 at 3.5 % is KES 52.50, rounded half up to 53.
    assert.deepEqual([order.currency, order.total], ['KES', 155_300]);
    assert.equal(order.buyer.phone, '254712345678');
    const res = await pay(order.id, 'mpesa', '0711 000 001');
    assert.equal(res.statusCode, 202, res.body);
    const paid = await settle(order.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.payment_method, 'mpesa');
    const [attempt] = await attemptsOf(order.id);
    assert.equal(attempt!.msisdn, '254711000001');
    assert.equal(attempt!.amount, 155_300);
    // Daraja's own id of the payment, from the STK push's answer, which its query named.
    assert.match(attempt!.providerReference ?? '', /^ws_CO_\d+$/);
    const outbox = await h.service.ctx.database.rows<{ method: string }>(
      sql`SELECT payload->'data'->>'payment_method' AS method FROM outbox_events
          WHERE type = 'order.paid' AND payload->'data'->>'id' = ${order.id}`,
    );
    // Spread: on PostgreSQL the rows come as the driver's own array type.
    assert.deepEqual([...outbox], [{ method: 'mpesa' }]);
  });

  test("the buyer's decline is the order's failure_kind, and the buyer may pay again", async () => {
    const order = await orderOf('KES');
    assert.equal((await pay(order.id, 'mpesa', '0711000003')).statusCode, 202);
    const failed = await settle(order.id);
    assert.deepEqual([failed.status, failed.failure_kind], ['pending', 'payment_declined']);
    assert.equal((await pay(order.id, 'mpesa', '0711000001')).statusCode, 202);
    assert.equal((await settle(order.id)).status, 'paid');
  });

  test('a method the currency does not take is refused, and nothing is sent', async () => {
    const kes = await orderOf('KES');
    const ugx = await orderOf('UGX');
    const cases: [string, string, string, RegExp][] = [
      [
        kes.id,
        'momo',
        '0770000001',
        /MTN Mobile Money does not take KES; payment_method must be one of mpesa/,
      ],
      [ugx.id, 'mpesa', '0711000001', /M-Pesa does not take UGX; payment_method must be one of momo, airtel/],
    ];
    for (const [orderId, method, phone, message] of cases) {
      const res = await pay(orderId, method, phone);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error_code, 'validation_failed');
      assert.match(res.json().message, message);
      assert.equal((await attemptsOf(orderId)).length, 0);
    }
  });

  test('a number that is not a Safaricom one is refused before anything is sent', async () => {
    const order = await orderOf('KES');
    for (const phone of ['0733123456', '+256 772 123456', '12345']) {
      const res = await pay(order.id, 'mpesa', phone);
      assert.equal(res.statusCode, 400, `${phone}: ${res.body}`);
      assert.equal(res.json().error_code, 'validation_failed');
    }
    assert.equal((await attemptsOf(order.id)).length, 0);
    // +254 and 01… numbers are Kenyan ones too.
    assert.equal((await pay(order.id, 'mpesa', '+254 711 000 001')).statusCode, 202);
    assert.equal((await settle(order.id)).status, 'paid');
  });

  test('a donation that is not whole shillings is refused', async () => {
    const res = await newOrder('KES', { donation_minor: 5_050 });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(
      res.json().errors.map((e: { field: string }) => e.field),
      ['donation_minor'],
    );
  });

  test('a forged success callback pays nothing: the STK push query decides', async () => {
    const order = await orderOf('KES');
    // 09: the buyer never answers.
    assert.equal((await pay(order.id, 'mpesa', '0711000009')).statusCode, 202);
    await h.service.jobs.runDue();
    const [attempt] = await attemptsOf(order.id);
    const forged = {
      Body: {
        stkCallback: {
          MerchantRequestID: '1234-5678-1',
          CheckoutRequestID: attempt!.providerReference ?? 'ws_CO_0',
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: 1553 },
              { Name: 'MpesaReceiptNumber', Value: 'QWE123RTY4' },
              { Name: 'PhoneNumber', Value: 254711000009 },
            ],
          },
        },
      },
    };
    const res = await h.service.api.inject({
      method: 'POST',
      url: `/v1/payment-callbacks/mpesa/${attempt!.reference}`,
      payload: forged,
    });
    assert.ok(res.statusCode < 300, res.body);
    await Promise.all(h.service.ctx.gateway.inflight);
    await h.service.jobs.runDue();
    const after = await readOrder(order.id);
    assert.equal(after.status, 'pending');
    const [still] = await attemptsOf(order.id);
    assert.equal(still!.status, 'pending');
  });
});

describe('a service without M-Pesa (live without its settings)', () => {
  let bare: Harness;
  before(async () => {
    bare = await startHarness({
      service: { paymentMethods: PAYMENT_METHOD_REGISTRY.filter((m) => m.key !== 'mpesa') },
    });
  });
  after(() => bare.close());

  test('offers no method on a KES event, and neither an order nor a checkout session is taken', async () => {
    const shop = await makePartner(bare);
    const auth = bearer(await getToken(bare, shop));
    const event = await makeEvent(bare, shop, {
      currency: 'KES',
      ticket_types: [{ name: '10 km', price_minor: 150_000, capacity: 10 }],
    });
    const detail = await bare.service.api.inject({ url: `/v1/events/${event.id}`, headers: auth });
    assert.deepEqual(detail.json().data.payment_methods, []);
    const [tt] = await bare.service.ctx.database.db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.eventId, event.id));
    const order = await bare.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: auth,
      payload: {
        event_id: event.id,
        items: [{ ticket_type_id: tt!.id, participant_name: 'Wanjiru' }],
        buyer: { name: 'Wanjiru', email: 'wanjiru@example.org', phone: '0712345678' },
      },
    });
    const session = await postSession(bare, auth, redirectBody(event.id));
    for (const res of [order, session]) {
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error_code, 'payments_disabled');
      assert.match(res.json().message, /No payment method takes KES here yet/);
    }
  });
});
