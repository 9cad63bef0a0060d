// Partial and per-runner refunds through POST /v1/orders/{id}/refunds and the admin API, both
// through the one action: a runner's place goes back (its ticket void, its place free to sell
// again, its registration cancelled), the order stays paid with its refunded_total until all was
// given back; each refusal (400, 404, 409, 422 refund_not_possible) changes nothing; a keyed
// request replays. On Airtel Money a part is a disbursement to the payer; live without the
// disbursement settings it is refused. The simulator runs apart so the test sees what it was asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../src/audit/audit.schema.ts';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { listDevMail } from '../../src/mail/mailbox.ts';
import { confirmedRegistrations } from '../../src/orders/registration-roster.ts';
import { registrations } from '../../src/orders/orders.schema.ts';
import { redactPayerNumbers } from '../../src/payments/erase-payer-data.ts';
import { refunds } from '../../src/payments/payments.schema.ts';
import type { PaymentMethod } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { findValidTicket, issueTickets } from '../../src/tickets/issue-tickets.ts';
import { outboxEvents } from '../../src/webhooks/webhooks.schema.ts';
import { admin, dataOf } from '../admin/admin-helpers.ts';
import { paidTwoRunnerOrder } from './refund-helpers.ts';
import { bearer, getToken, makeEvent, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  makeShop,
  pump,
  readOrder,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';
import { AIRTEL_SIM_CREDENTIALS } from '../../src/payments/methods/airtel/sim-credentials.ts';
import { MTN_SIM_CREDENTIALS } from '../../src/payments/methods/momo/sim-credentials.ts';

let sim: Simulator;
let h: Harness;
let receiver: Receiver;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness({ SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' });
  receiver = await startReceiver();
});
after(async () => {
  await h.close();
  await sim.close();
  await receiver.close();
});

const db = () => h.service.ctx.database.db;
const twoRunnerOrder = (shop: Shop, method: PaymentMethod, code = '01', ticketTypeId = shop.paidTicket) =>
  paidTwoRunnerOrder(h, sim, shop, { method, code, ticketTypeId });

function refundCall(shop: Shop, orderId: string, body: unknown, key?: string) {
  return h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/refunds`,
    headers: { ...bearer(shop.token), ...(key && { 'idempotency-key': key }) },
    payload: body as Record<string, unknown>,
  });
}

async function paidCount(ticketTypeId: string) {
  const [row] = await db().select().from(ticketTypes).where(eq(ticketTypes.id, ticketTypeId));
  return row!.paidCount;
}

/** Everything a refusal must leave as it was. */
async function stateOf(shop: Shop, orderId: string) {
  return {
    order: await readOrder(h, shop, orderId),
    refunds: (await db().select().from(refunds).where(eq(refunds.orderId, orderId))).length,
    audit: (
      await db().select().from(auditEvents).where(eq(auditEvents.organizationId, shop.partner.organizationId))
    ).length,
    outbox: (
      await db()
        .select()
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.organizationId, shop.partner.organizationId),
            eq(outboxEvents.type, 'order.refunded'),
          ),
        )
    ).length,
    simRefunds: sim.refunds().length,
  };
}

function refusedWith(
  res: { statusCode: number; body: string; json(): unknown },
  status: number,
  code: string,
) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as { error_code: string; message: string };
  assert.equal(body.error_code, code);
  return body.message;
}

describe('a refund of one runner, then the rest, on MTN MoMo', () => {
  test("returns the runner's place and money, keeps the order paid, then completes it; webhooks, tickets, mail", async () => {
    const shop = await makeShop(h);
    const endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.refunded']);
    const { orderId, total, regs } = await twoRunnerOrder(shop, 'momo');
    const [ann, bob] = regs;
    const tickets = await issueTickets(db(), orderId, h.clock.now());
    assert.equal(await paidCount(shop.paidTicket), 2);

    const first = await refundCall(shop, orderId, {
      registration_ids: [ann!.id],
      reason: '  Injured before race day ',
    });
    const refund = dataOf(first, 201);
    assert.equal(refund.status, 'pending');
    assert.equal(refund.order_id, orderId);
    assert.equal(refund.amount_minor, ann!.priceMinor + ann!.feeMinor);
    assert.equal(refund.reason, 'Injured before race day');
    assert.deepEqual(refund.registration_ids, [ann!.id]);
    assert.equal(refund.method, 'momo');
    assert.equal(refund.currency, 'UGX');
    assert.equal(refund.refunded_at, null);
    // The network was asked for that amount, and settled it at once.
    const asked = sim.refunds().find((r) => r.paymentReference && Number(r.amount) === refund.amount_minor);
    assert.ok(asked, "the simulator took a refund of the runner's amount");

    const partly = await readOrder(h, shop, orderId);
    assert.equal(partly.status, 'paid');
    assert.equal(partly.refunded_total, refund.amount_minor);
    assert.deepEqual(
      (partly.registrations as Array<{ id: string; status: string }>).map((r) => [r.id, r.status]),
      [
        [ann!.id, 'cancelled'],
        [bob!.id, 'confirmed'],
      ],
    );
    assert.equal(await paidCount(shop.paidTicket), 1);
    // Her ticket no longer opens; the start list and check-in roster no longer list her.
    assert.equal(await findValidTicket(db(), tickets[0]!.token), null);
    assert.ok(await findValidTicket(db(), tickets[1]!.token));
    assert.deepEqual(
      (await confirmedRegistrations(db(), { orderId })).map((r) => r.registrationId),
      [bob!.id],
    );
    const [stored] = await db().select().from(registrations).where(eq(registrations.id, ann!.id));
    assert.equal(stored!.refundId, refund.id);

    const second = dataOf(await refundCall(shop, orderId, {}), 201);
    assert.equal(second.amount_minor, total - refund.amount_minor);
    assert.deepEqual(second.registration_ids, [bob!.id]);
    const whole = await readOrder(h, shop, orderId);
    assert.equal(whole.status, 'refunded');
    assert.equal(whole.refunded_total, total);
    assert.equal(await paidCount(shop.paidTicket), 0);

    const delivered = () =>
      receiver.requests.filter((r) => {
        const body = JSON.parse(r.body);
        return body.type === 'order.refunded' && body.data?.id === orderId;
      });
    await pump(h, () => delivered().length === 2);
    const payloads = delivered()
      .map((r) => verifyDelivery(endpoint.secret, r, h.clock.now()))
      .sort((a, b) => a.data.refunded_total - b.data.refunded_total);
    assert.equal(payloads[0]!.data.status, 'paid');
    assert.equal(payloads[0]!.data.refunded_total, refund.amount_minor);
    assert.equal(payloads[0]!.data.refund.id, refund.id);
    assert.equal(payloads[0]!.data.refund.amount_minor, refund.amount_minor);
    assert.equal(payloads[0]!.data.refund.reason, 'Injured before race day');
    assert.deepEqual(payloads[0]!.data.refund.registration_ids, [ann!.id]);
    assert.equal(payloads[1]!.data.status, 'refunded');
    assert.equal(payloads[1]!.data.refunded_total, total);
    assert.equal(payloads[1]!.data.refund.reason, null);
    assert.deepEqual(payloads[1]!.data.refund.registration_ids, [bob!.id]);

    // The buyer is mailed each refund, with the runner's name and the reason.
    const mails = async () =>
      (await listDevMail(db(), 200)).filter(
        (m) => m.to === 'ann@example.org' && m.subject.startsWith('Refund:'),
      );
    await pump(h, async () => (await mails()).length === 2);
    const texts = (await mails()).map((m) => m.text).join('\n---\n');
    assert.match(texts, /Ann Akello/);
    assert.match(texts, /Reason: Injured before race day/);
    assert.match(texts, /fully refunded/);

    const audit = await db()
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.organizationId, shop.partner.organizationId),
          eq(auditEvents.action, 'order.refund_requested'),
        ),
      );
    const details = audit.map((a) => a.details as Record<string, unknown>);
    assert.ok(
      details.some(
        (d) => d.reason === 'Injured before race day' && JSON.stringify(d.runners) === '["Ann Akello"]',
      ),
    );
  });

  test('an amount alone goes back without touching the places; the order stays paid', async () => {
    const shop = await makeShop(h);
    const { orderId, regs } = await twoRunnerOrder(shop, 'momo');
    const refund = dataOf(await refundCall(shop, orderId, { amount_minor: 10_000 }), 201);
    assert.deepEqual(refund.registration_ids, []);
    const order = await readOrder(h, shop, orderId);
    assert.equal(order.status, 'paid');
    assert.equal(order.refunded_total, 10_000);
    assert.deepEqual(
      (order.registrations as Array<{ status: string }>).map((r) => r.status),
      ['confirmed', 'confirmed'],
    );
    assert.equal(regs.length, 2);
    // Another refund may follow the first (several succeeded refunds of one payment).
    const more = dataOf(
      await refundCall(shop, orderId, { registration_ids: [regs[1]!.id], amount_minor: 500 }),
      201,
    );
    assert.equal(more.amount_minor, 500);
    assert.equal((await readOrder(h, shop, orderId)).refunded_total, 10_500);
  });

  test('a place refunded on a sold-out ticket type can be bought again', async () => {
    const shop = await makeShop(h);
    const event = await makeEvent(h, shop.partner, {
      ticket_types: [{ name: 'Elite 10 km', price_minor: 40000, capacity: 2, distance_km: 10 }],
    });
    const [tt] = await db().select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id));
    const soldOut: Shop = { ...shop, eventId: event.id };
    const { orderId, regs } = await twoRunnerOrder(soldOut, 'momo', '01', tt!.id);
    const another = () =>
      h.service.api.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: bearer(shop.token),
        payload: {
          event_id: event.id,
          items: [{ ticket_type_id: tt!.id, participant_name: 'Cate' }],
          buyer: { name: 'Cate', email: 'cate@example.org', phone: '0772123457' },
        },
      });
    refusedWith(await another(), 409, 'sold_out');
    dataOf(await refundCall(shop, orderId, { registration_ids: [regs[0]!.id] }), 201);
    assert.equal((await another()).statusCode, 201);
  });
});

describe('Airtel Money pays a part back as a disbursement', () => {
  test("a runner's place goes back as a disbursement of its amount, then the rest; the order ends refunded", async () => {
    const shop = await makeShop(h);
    const { orderId, total, regs } = await twoRunnerOrder(shop, 'airtel');
    const part = dataOf(await refundCall(shop, orderId, { registration_ids: [regs[0]!.id] }), 201);
    assert.equal(part.amount_minor, regs[0]!.priceMinor + regs[0]!.feeMinor);
    // Airtel's refund API would have returned the whole payment: the simulator took only the part.
    const [row] = await db()
      .select()
      .from(refunds)
      .where(eq(refunds.id, part.id as string));
    assert.equal(row!.status, 'succeeded');
    assert.match(row!.providerReference!, /^DSIM\d+$/);
    assert.ok(sim.refunds().some((r) => r.amount === part.amount_minor));
    const partly = await readOrder(h, shop, orderId);
    assert.equal(partly.status, 'paid');
    assert.equal(partly.refunded_total, part.amount_minor);
    const rest = dataOf(await refundCall(shop, orderId, {}), 201);
    assert.equal(rest.amount_minor, total - part.amount_minor);
    const order = await readOrder(h, shop, orderId);
    assert.equal(order.status, 'refunded');
    assert.equal(order.refunded_total, total);
  });
});

describe('live Airtel Money without the disbursement settings', () => {
  let live: Harness;
  before(async () => {
    // The live adapters, pointed at the simulator with its credentials, but no AIRTEL_DISBURSEMENT_*.
    const mtn = MTN_SIM_CREDENTIALS;
    const airtel = AIRTEL_SIM_CREDENTIALS;
    live = await startWebhookHarness({
      PAYMENT_PROVIDER: 'live',
      RUN_JOBS: 'false',
      MOMO_BASE_URL: `${sim.url}/mtn`,
      MOMO_SUBSCRIPTION_KEY: mtn.subscriptionKey,
      MOMO_API_USER: mtn.apiUser,
      MOMO_API_KEY: mtn.apiKey,
      MOMO_TARGET_ENVIRONMENT: mtn.targetEnvironment,
      AIRTEL_BASE_URL: `${sim.url}/airtel`,
      AIRTEL_CLIENT_ID: airtel.clientId,
      AIRTEL_CLIENT_SECRET: airtel.clientSecret,
    });
  });
  after(() => live?.close());

  test('a part is 422 refund_not_possible naming the settings, nothing changed; the whole order is refunded', async () => {
    const shop = await makeShop(live);
    const { orderId, total, regs } = await paidTwoRunnerOrder(live, sim, shop, { method: 'airtel' });
    const call = (body: unknown) =>
      live.service.api.inject({
        method: 'POST',
        url: `/v1/orders/${orderId}/refunds`,
        headers: bearer(shop.token),
        payload: body as Record<string, unknown>,
      });
    const simRefunds = sim.refunds().length;
    const message = refusedWith(await call({ registration_ids: [regs[0]!.id] }), 422, 'refund_not_possible');
    assert.match(message, /disbursement settings/);
    assert.equal(
      (await live.service.ctx.database.db.select().from(refunds).where(eq(refunds.orderId, orderId))).length,
      0,
    );
    assert.equal(sim.refunds().length, simRefunds);
    const whole = dataOf(await call({}), 201);
    assert.equal(whole.amount_minor, total);
    const order = await readOrder(live, shop, orderId);
    assert.equal(order.status, 'refunded');
    assert.equal(order.refunded_total, total);
  });
});

describe('what cannot be refunded is refused, with nothing changed', () => {
  test('422 refund_not_possible: too much, a stranger runner, a runner refunded already, a free order', async () => {
    const shop = await makeShop(h);
    const { orderId, total, regs } = await twoRunnerOrder(shop, 'momo');
    dataOf(await refundCall(shop, orderId, { registration_ids: [regs[0]!.id] }), 201);
    const before = await stateOf(shop, orderId);
    const cases: Array<[unknown, RegExp]> = [
      [{ amount_minor: total }, /more than the \d+ left/],
      [{ registration_ids: ['reg_notinthisorder00000000'] }, /not one of this order's runners/],
      [{ registration_ids: [regs[0]!.id] }, /refunded already/],
      [{ registration_ids: [regs[1]!.id], amount_minor: total }, /more than the \d+ left/],
    ];
    for (const [body, message] of cases) {
      assert.match(refusedWith(await refundCall(shop, orderId, body), 422, 'refund_not_possible'), message);
    }
    assert.deepEqual(await stateOf(shop, orderId), before);

    const free = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(shop.token),
      payload: {
        event_id: shop.eventId,
        items: [{ ticket_type_id: shop.freeTicket, participant_name: 'Ann' }],
        buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
      },
    });
    const freeId = free.json().data.id as string;
    assert.match(refusedWith(await refundCall(shop, freeId, {}), 422, 'refund_not_possible'), /free/);
    assert.equal((await readOrder(h, shop, freeId)).status, 'paid');
  });

  test('409 conflict: an order not paid, and a second refund while one is pending', async () => {
    const shop = await makeShop(h);
    const pendingOrder = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(shop.token),
      payload: {
        event_id: shop.eventId,
        items: [{ ticket_type_id: shop.paidTicket, participant_name: 'Ann' }],
        buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
      },
    });
    assert.match(
      refusedWith(await refundCall(shop, pendingOrder.json().data.id, {}), 409, 'conflict'),
      /Only a paid order/,
    );
    // Test number 24: the network keeps the refund pending for ever.
    const { orderId, regs } = await twoRunnerOrder(shop, 'momo', '24');
    const first = dataOf(await refundCall(shop, orderId, { registration_ids: [regs[0]!.id] }), 201);
    assert.equal(first.status, 'pending');
    const before = await stateOf(shop, orderId);
    assert.match(
      refusedWith(await refundCall(shop, orderId, { registration_ids: [regs[1]!.id] }), 409, 'conflict'),
      /being refunded already/,
    );
    assert.deepEqual(await stateOf(shop, orderId), before);
    assert.equal(before.order.refunded_total, 0);
  });

  test("400 validation_failed for a malformed body; 404 for another organization's order", async () => {
    const shop = await makeShop(h);
    const other = await makeShop(h);
    const { orderId, regs } = await twoRunnerOrder(shop, 'momo');
    const before = await stateOf(shop, orderId);
    for (const body of [
      { amount_minor: 0 },
      { amount_minor: 12.5 },
      { amount_minor: '500' },
      { registration_ids: [] },
      { registration_ids: [regs[0]!.id, regs[0]!.id] },
      { registration_ids: Array.from({ length: 11 }, (_, i) => `reg_${i}`) },
      { reason: '   ' },
      { reason: 'x'.repeat(501) },
      { refund_everything: true },
    ]) {
      refusedWith(await refundCall(shop, orderId, body), 400, 'validation_failed');
    }
    refusedWith(await refundCall(other, orderId, {}), 404, 'not_found');
    refusedWith(await refundCall(shop, 'ord_unknown00000000000000000', {}), 404, 'not_found');
    assert.deepEqual(await stateOf(shop, orderId), before);
  });
});

describe('Idempotency-Key', () => {
  test('the same request replays the first answer; another body under the key is 422', async () => {
    const shop = await makeShop(h);
    const { orderId, regs } = await twoRunnerOrder(shop, 'momo');
    const body = { registration_ids: [regs[0]!.id] };
    const first = await refundCall(shop, orderId, body, 'refund-ann-1');
    assert.equal(first.statusCode, 201, first.body);
    const again = await refundCall(shop, orderId, body, 'refund-ann-1');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    refusedWith(
      await refundCall(shop, orderId, { registration_ids: [regs[1]!.id] }, 'refund-ann-1'),
      422,
      'idempotency_key_reused',
    );
    assert.equal((await db().select().from(refunds).where(eq(refunds.orderId, orderId))).length, 1);
    // A refused request stores nothing: the key works for a corrected request.
    refusedWith(
      await refundCall(shop, orderId, { amount_minor: 10_000_000 }, 'refund-fix'),
      422,
      'refund_not_possible',
    );
    assert.equal((await refundCall(shop, orderId, { amount_minor: 1_000 }, 'refund-fix')).statusCode, 201);
  });

  test('a token without orders:write is 403', async () => {
    const shop = await makeShop(h);
    const { orderId } = await twoRunnerOrder(shop, 'momo');
    const readOnly = await getToken(h, shop.partner, 'orders:read');
    const res = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${orderId}/refunds`,
      headers: bearer(readOnly),
      payload: {},
    });
    refusedWith(res, 403, 'insufficient_scope');
  });
});

describe('the admin API refunds through the same action', () => {
  test('an operator refunds a runner; the audit entry names the operator', async () => {
    const shop = await makeShop(h);
    const { orderId, regs } = await twoRunnerOrder(shop, 'momo');
    const url = `/organizations/${shop.partner.organizationId}/orders/${orderId}/refunds`;
    const refund = dataOf(
      await admin(h, {
        method: 'POST',
        url,
        body: { registration_ids: [regs[1]!.id], reason: 'Duplicate entry' },
      }),
      201,
    );
    assert.equal(refund.status, 'succeeded');
    assert.deepEqual(refund.registration_ids, [regs[1]!.id]);
    const order = await readOrder(h, shop, orderId);
    assert.equal(order.status, 'paid');
    assert.equal(order.refunded_total, refund.amount_minor);
    const [entry] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, orderId), eq(auditEvents.action, 'order.refund_requested')));
    assert.equal(entry!.actorLabel, 'operator');
    const again = await admin(h, { method: 'POST', url, body: { registration_ids: [regs[1]!.id] } });
    assert.equal(again.statusCode, 422, again.body);
    const other = await makeShop(h);
    const stranger = await admin(h, {
      method: 'POST',
      url: `/organizations/${other.partner.organizationId}/orders/${orderId}/refunds`,
      body: {},
    });
    assert.equal(stranger.statusCode, 404, stranger.body);
  });
});

describe('erasure', () => {
  test("a refund's reason is erased with the buyer's data; its amount stays", async () => {
    const shop = await makeShop(h);
    const { orderId, regs } = await twoRunnerOrder(shop, 'momo');
    const refund = dataOf(
      await refundCall(shop, orderId, {
        registration_ids: [regs[0]!.id],
        reason: 'Ann Akello broke her leg',
      }),
      201,
    );
    await h.service.ctx.database.transaction((tx) => redactPayerNumbers(tx, [orderId]));
    const [row] = await db().select().from(refunds).where(eq(refunds.id, refund.id));
    assert.equal(row!.reason, '[erased]');
    assert.equal(row!.amount, refund.amount_minor);
  });
});
