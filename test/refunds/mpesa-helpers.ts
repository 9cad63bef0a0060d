// A KES shop paid with M-Pesa for the whole-stack refund tests: the simulator's Daraja and a service
// listening over HTTP (Daraja's callbacks and results come to it as to the public API), an event of
// one KES 1,500 ticket, orders paid from test numbers 07110000NN, and posts to our callback routes.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts, refunds } from '../../src/payments/payments.schema.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';
import { untilSettled } from '../payments/payments-helpers.ts';
import { startReceiver, startWebhookHarness, type Receiver } from '../webhooks/webhook-helpers.ts';

export interface MpesaShop {
  sim: Simulator;
  h: Harness;
  /** the service's API, over HTTP */
  api: string;
  receiver: Receiver;
  shop: { organizationId: string; token: string; eventId: string; ticket: string };
}

/** A Daraja result body (a reversal's or a B2C payment's) under the given ids. */
export const darajaResult = (code: number, ids: { conversation: string; originator: string }) => ({
  Result: {
    ResultType: 0,
    ResultCode: code,
    ResultDesc: code === 0 ? 'The service request is processed successfully.' : 'Declined',
    OriginatorConversationID: ids.originator,
    ConversationID: ids.conversation,
    TransactionID: 'FORGED0001',
  },
});

/** Starts the shop before the file's tests and stops it after; its fields are set once started. */
export function useMpesaShop() {
  const m = { shop: { organizationId: '', token: '', eventId: '', ticket: '' } } as MpesaShop;
  before(async () => {
    // 0.01: a payment settles (and calls back) after ~20 ms, a pending refund (22, 23) after 300 ms.
    m.sim = await startSimulator({ timeScale: 0.01 });
    const port = await freePort();
    m.h = await startWebhookHarness({
      SIMULATOR_URL: m.sim.url,
      PAYMENT_TIME_SCALE: '0.01',
      RUN_JOBS: 'false',
      API_URL: `http://127.0.0.1:${port}`,
    });
    m.api = (await m.h.service.listen({ site: 0, app: 0, metrics: false })).api;
    m.receiver = await startReceiver();
    const partner = await makePartner(m.h);
    const event = await makeEvent(m.h, partner, {
      currency: 'KES',
      ticket_types: [{ name: '10 km', price_minor: 150_000, capacity: 100 }],
    });
    const [tt] = await db().select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id));
    Object.assign(m.shop, {
      organizationId: partner.organizationId,
      token: await getToken(m.h, partner),
      eventId: event.id,
      ticket: tt!.id,
    });
  });
  after(async () => {
    await m.h?.close();
    await m.sim?.close();
    await m.receiver?.close();
  });

  const db = () => m.h.service.ctx.database.db;
  const settleBackground = () => Promise.allSettled([...m.h.service.ctx.gateway.inflight]);

  const until = (what: string, done: () => Promise<boolean>) =>
    untilSettled(m.h.service.ctx.gateway, what, done);

  const attemptOf = async (orderId: string) =>
    (await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId)))[0]!;
  const refundOf = async (id: string) => (await db().select().from(refunds).where(eq(refunds.id, id)))[0]!;
  const readOrder = async (orderId: string) =>
    (await m.h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(m.shop.token) })).json()
      .data;

  /** A pending order of one ticket, by the partner API. */
  async function newOrder(): Promise<string> {
    const created = await m.h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(m.shop.token),
      payload: {
        event_id: m.shop.eventId,
        items: [{ ticket_type_id: m.shop.ticket, participant_name: 'Wanjiru Kamau' }],
        buyer: { name: 'Wanjiru Kamau', email: 'wanjiru@example.org', phone: '0712345678' },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().data.id as string;
  }

  /**
   * An order paid with M-Pesa from test number 07110000`code`. With `callback` the payment settles
   * and calls back, and its receipt is kept; without, it is approved silently (no callback, no
   * receipt) and settled by its job's query.
   */
  async function paidOrder(code: string, { callback = true } = {}) {
    const orderId = await newOrder();
    const phone = testPhoneNumber('mpesa', code);
    // 09 never answers: the payment is found pending, and approved below.
    const paid = await m.h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${orderId}/pay`,
      headers: bearer(m.shop.token),
      payload: { payment_method: 'mpesa', phone: callback ? phone : testPhoneNumber('mpesa', '09') },
    });
    assert.equal(paid.statusCode, 202, paid.body);
    await settleBackground();
    const attempt = await attemptOf(orderId);
    if (!callback) {
      assert.ok(m.sim.part('mpesa').approve(attempt.providerReference!));
      assert.equal(await reconcileAttempt(m.h.service.ctx, attempt.reference), null);
    } else {
      await until('the receipt', async () => (await attemptOf(orderId)).providerTransactionId !== null);
    }
    assert.equal((await readOrder(orderId)).status, 'paid');
    return { orderId, attempt: await attemptOf(orderId) };
  }

  const askRefund = (orderId: string, body: Record<string, unknown> = {}) =>
    m.h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${orderId}/refunds`,
      headers: bearer(m.shop.token),
      payload: body,
    });

  /** POSTs to one of our callback routes over HTTP, as Daraja (or a forger) would. */
  async function post(path: string, body: unknown): Promise<void> {
    const res = await fetch(`${m.api}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    await settleBackground();
  }

  return Object.assign(m, {
    db,
    settleBackground,
    until,
    attemptOf,
    refundOf,
    readOrder,
    newOrder,
    paidOrder,
    askRefund,
    post,
  });
}
