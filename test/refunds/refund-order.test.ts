// Refunding orders and payments through the simulator, on both networks: a refund that succeeds
// makes the order refunded, cancels its registrations, frees its tickets and sends one signed
// order.refunded; one that fails leaves the order paid and the refund failed (needing
// attention); a pending one is settled by the job. What cannot be refunded is refused with nothing
// changed, and a payment that bought nothing (paid after expiry) is refunded without its order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../src/audit/audit.schema.ts';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { cancelPendingOrder } from '../../src/orders/order-lifecycle.ts';
import { closePaymentAttempt } from '../../src/payments/close-attempt.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts, refunds } from '../../src/payments/payments.schema.ts';
import { listFailedRefunds, type RefundRow } from '../../src/payments/process-refund.ts';
import { refundOrder, refundPayment } from '../../src/payments/actions/refund-order.ts';
import { listPaymentsNeedingRefund } from '../../src/payments/refunds.ts';
import {
  PAYMENT_METHOD_REGISTRY,
  type PaymentMethodDefinition,
} from '../../src/payments/methods/registry.ts';
import type { PaymentMethod, PaymentProvider } from '../../src/payments/provider.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { outboxEvents } from '../../src/webhooks/webhooks.schema.ts';
import { bearer, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  createOrder,
  payThroughSimulator,
  makeShop,
  pump,
  pumpFor,
  readOrder,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';

let sim: Simulator;
let h: Harness;
let receiver: Receiver;
/** MTN MoMo refund requests still to be lost on the way: the adapter answers unknown, sending none. */
let refundsToLose = 0;

/** The registry, with MTN MoMo's simulated adapter losing the refund requests a test asks it to. */
const methods = PAYMENT_METHOD_REGISTRY.map((method): PaymentMethodDefinition =>
  method.key !== 'momo'
    ? method
    : {
        ...method,
        createSimulatedProvider(setting, simulator): PaymentProvider {
          const real = method.createSimulatedProvider(setting, simulator);
          return {
            method: real.method,
            requestPayment: (req) => real.requestPayment(req),
            getStatus: (reference) => real.getStatus(reference),
            getRefundStatus: (req) => real.getRefundStatus(req),
            requestRefund: async (req) => {
              if (refundsToLose === 0) return real.requestRefund(req);
              refundsToLose--;
              return { kind: 'unknown', message: 'no answer within 500 ms' };
            },
          };
        },
      },
);

before(async () => {
  // The simulator runs apart so the test can see the refunds it received; 0.01 makes a pending
  // refund (22, 23) settle after 300 ms and the refund job ask after 50 ms.
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness(
    { SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' },
    { service: { paymentMethods: methods } },
  );
  receiver = await startReceiver();
});
after(async () => {
  await h.close();
  await sim.close();
  await receiver.close();
});

const db = () => h.service.ctx.database.db;
const ctx = () => h.service.ctx;
const owner = { memberId: null, label: 'operator' };

/** A paid order of one ticket, paid from the scenario's test number on `method`. */
const paidOrder = (shop: Shop, method: PaymentMethod, code: string) =>
  payThroughSimulator(h, sim, shop, method, code);

async function paidCount(shop: Shop) {
  const [row] = await db().select().from(ticketTypes).where(eq(ticketTypes.id, shop.paidTicket));
  return row!.paidCount;
}

async function refundRow(id: string): Promise<RefundRow> {
  const [row] = await db().select().from(refunds).where(eq(refunds.id, id));
  return row!;
}

async function outboxOf(organizationId: string, type: string) {
  return db()
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.organizationId, organizationId), eq(outboxEvents.type, type)));
}

async function auditActions(organizationId: string) {
  const rows = await db().select().from(auditEvents).where(eq(auditEvents.organizationId, organizationId));
  return rows.map((r) => r.action).sort();
}

async function refused(promise: Promise<unknown>, code: string, message: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

for (const method of ['momo', 'airtel'] as const) {
  describe(`refunding an order paid with ${method}`, () => {
    test('a refund that succeeds refunds the order, frees its ticket and sends one verified order.refunded', async () => {
      const shop = await makeShop(h);
      const endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.refunded']);
      const { orderId, reference } = await paidOrder(shop, method, '01');
      assert.equal(await paidCount(shop), 1);

      const refund = await refundOrder(ctx(), {
        organizationId: shop.partner.organizationId,
        orderId,
        actor: owner,
        ip: '203.0.113.7',
      });
      assert.equal(refund.status, 'succeeded');
      assert.equal(refund.method, method);
      // In full: what the buyer paid, the service fee included.
      const total = (await readOrder(h, shop, orderId)).total as number;
      assert.ok(total > 30_000);
      assert.equal(refund.amount, total);
      assert.ok(refund.providerReference);
      assert.deepEqual(
        sim
          .refunds()
          .map((r) => r.paymentReference)
          .filter((r) => r === reference),
        [reference],
      );

      const order = await readOrder(h, shop, orderId);
      assert.equal(order.status, 'refunded');
      assert.deepEqual(
        (order.registrations as Array<{ status: string }>).map((r) => r.status),
        ['cancelled'],
      );
      assert.equal(await paidCount(shop), 0);

      const delivered = () =>
        receiver.requests.filter(
          (r) => JSON.parse(r.body).data?.id === orderId && JSON.parse(r.body).type === 'order.refunded',
        );
      await pump(h, () => delivered().length > 0);
      await pumpFor(h, 100);
      assert.equal(delivered().length, 1);
      const payload = verifyDelivery(endpoint.secret, delivered()[0]!, h.clock.now());
      assert.equal(payload.type, 'order.refunded');
      assert.equal(payload.data.status, 'refunded');
      assert.equal(payload.data.refunded_total, total);
      assert.deepEqual(payload.data.refund, {
        id: refund.id,
        amount_minor: total,
        currency: 'UGX',
        method,
        reason: null,
        registration_ids: (order.registrations as Array<{ id: string }>).map((r) => r.id),
        refunded_at: refund.finalizedAt!.toISOString(),
        provider_reference: refund.providerReference,
      });
      const audit = await db()
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.organizationId, shop.partner.organizationId));
      const requested = audit.find((a) => a.action === 'order.refund_requested')!;
      assert.equal(requested.ip, '203.0.113.7');
      assert.equal(requested.actorLabel, 'operator');
      assert.equal(requested.targetId, orderId);
      assert.deepEqual(await auditActions(shop.partner.organizationId), [
        'order.refund_requested',
        'refund.succeeded',
        'webhook_endpoint.created',
      ]);
    });

    test('a refund that fails leaves the order paid and the refund failed, needing attention', async () => {
      const shop = await makeShop(h);
      const { orderId } = await paidOrder(shop, method, '21');
      const refund = await refundOrder(ctx(), {
        organizationId: shop.partner.organizationId,
        orderId,
        actor: owner,
        ip: null,
      });
      assert.equal(refund.status, 'failed');
      assert.ok(refund.failureReason);
      const order = await readOrder(h, shop, orderId);
      assert.equal(order.status, 'paid');
      assert.deepEqual(
        (order.registrations as Array<{ status: string }>).map((r) => r.status),
        ['confirmed'],
      );
      assert.equal(await paidCount(shop), 1);
      assert.equal((await outboxOf(shop.partner.organizationId, 'order.refunded')).length, 0);
      assert.deepEqual(
        (await listFailedRefunds(db(), shop.partner.organizationId)).map((r) => r.id),
        [refund.id],
      );
      assert.deepEqual(await auditActions(shop.partner.organizationId), [
        'order.refund_requested',
        'refund.failed',
      ]);
    });

    test('a pending refund is followed by the job until it succeeds; a second request meanwhile is refused', async () => {
      const shop = await makeShop(h);
      const { orderId } = await paidOrder(shop, method, '22');
      const options = { organizationId: shop.partner.organizationId, orderId, actor: owner, ip: null };
      const refund = await refundOrder(ctx(), options);
      assert.equal(refund.status, 'pending');
      assert.equal((await readOrder(h, shop, orderId)).status, 'paid');
      await refused(refundOrder(ctx(), options), 'conflict', /being refunded/);

      await pump(h, async () => (await refundRow(refund.id)).status !== 'pending');
      const settled = await refundRow(refund.id);
      assert.equal(settled.status, 'succeeded');
      assert.ok(settled.polls >= 1);
      assert.equal((await readOrder(h, shop, orderId)).status, 'refunded');
      assert.equal(await paidCount(shop), 0);
      assert.equal((await outboxOf(shop.partner.organizationId, 'order.refunded')).length, 1);
    });
  });
}

test('a pending refund that then fails is settled failed by the job and the order stays paid', async () => {
  const shop = await makeShop(h);
  const { orderId } = await paidOrder(shop, 'momo', '23');
  const refund = await refundOrder(ctx(), {
    organizationId: shop.partner.organizationId,
    orderId,
    actor: owner,
    ip: null,
  });
  assert.equal(refund.status, 'pending');
  await pump(h, async () => (await refundRow(refund.id)).status !== 'pending');
  assert.equal((await refundRow(refund.id)).status, 'failed');
  assert.equal((await readOrder(h, shop, orderId)).status, 'paid');
  // A failed refund may be asked for again.
  const again = await refundOrder(ctx(), {
    organizationId: shop.partner.organizationId,
    orderId,
    actor: owner,
    ip: null,
  });
  assert.notEqual(again.id, refund.id);
});

describe('refusals change nothing', () => {
  test('refunding a refunded order is refused', async () => {
    const shop = await makeShop(h);
    const { orderId } = await paidOrder(shop, 'airtel', '01');
    const options = { organizationId: shop.partner.organizationId, orderId, actor: owner, ip: null };
    assert.equal((await refundOrder(ctx(), options)).status, 'succeeded');
    const before = { refunds: sim.refunds().length, audit: await auditActions(shop.partner.organizationId) };
    await refused(refundOrder(ctx(), options), 'conflict', /refunded already/);
    assert.equal(sim.refunds().length, before.refunds);
    assert.deepEqual(await auditActions(shop.partner.organizationId), before.audit);
    assert.equal((await db().select().from(refunds).where(eq(refunds.orderId, orderId))).length, 1);
  });

  test('refunding an order that is not paid is refused', async () => {
    const shop = await makeShop(h);
    const order = await createOrder(h, shop, shop.paidTicket);
    await refused(
      refundOrder(ctx(), {
        organizationId: shop.partner.organizationId,
        orderId: order.id,
        actor: owner,
        ip: null,
      }),
      'conflict',
      /Only a paid order.*pending/,
    );
    assert.equal((await readOrder(h, shop, order.id)).status, 'pending');
    assert.equal((await db().select().from(refunds).where(eq(refunds.orderId, order.id))).length, 0);
    assert.deepEqual(await auditActions(shop.partner.organizationId), []);
  });

  test("another organization's order is not found", async () => {
    const shop = await makeShop(h);
    const other = await makeShop(h);
    const { orderId } = await paidOrder(shop, 'momo', '01');
    await refused(
      refundOrder(ctx(), { organizationId: other.partner.organizationId, orderId, actor: owner, ip: null }),
      'not_found',
      /order/,
    );
    assert.equal((await readOrder(h, shop, orderId)).status, 'paid');
  });

  test('a free order has no payment to refund', async () => {
    const shop = await makeShop(h);
    const order = await createOrder(h, shop, shop.freeTicket);
    await refused(
      refundOrder(ctx(), {
        organizationId: shop.partner.organizationId,
        orderId: order.id,
        actor: owner,
        ip: null,
      }),
      'refund_not_possible',
      /free/,
    );
  });
});

test('a payment confirmed after its order was cancelled is refunded and leaves the list of payments needing refund', async () => {
  const shop = await makeShop(h);
  const order = await createOrder(h, shop, shop.paidTicket);
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${order.id}/pay`,
    headers: bearer(shop.token),
    payload: { payment_method: 'momo', phone: testPhoneNumber('momo', '09') },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...ctx().gateway.inflight]);
  const [attempt] = await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, order.id));
  assert.ok(await cancelPendingOrder(db(), order.id, h.clock.now()));
  assert.ok(sim.approve(attempt!.reference));
  await reconcileAttempt(ctx(), attempt!.reference);
  const listed = await listPaymentsNeedingRefund(db(), shop.partner.organizationId);
  assert.deepEqual(
    listed.payments.map((p) => [p.reason, p.attempt.reference]),
    [['paid_after_expiry', attempt!.reference]],
  );
  // Refunding the order itself is refused: it was never paid.
  await refused(
    refundOrder(ctx(), {
      organizationId: shop.partner.organizationId,
      orderId: order.id,
      actor: owner,
      ip: null,
    }),
    'conflict',
    /cancelled/,
  );

  const options = {
    organizationId: shop.partner.organizationId,
    reference: attempt!.reference,
    actor: owner,
    ip: null,
  };
  const refund = await refundPayment(ctx(), options);
  assert.equal(refund.status, 'succeeded');
  assert.equal(refund.kind, 'paid_after_expiry');
  assert.equal((await listPaymentsNeedingRefund(db(), shop.partner.organizationId)).payments.length, 0);
  assert.equal((await readOrder(h, shop, order.id)).status, 'cancelled');
  assert.equal((await outboxOf(shop.partner.organizationId, 'order.refunded')).length, 0);
  await refused(refundPayment(ctx(), options), 'conflict', /refunded already/);
  assert.deepEqual(await auditActions(shop.partner.organizationId), [
    'payment.refund_requested',
    'refund.succeeded',
  ]);
});

test('a payment that paid its order cannot be refunded as a payment that bought nothing', async () => {
  const shop = await makeShop(h);
  const { reference } = await paidOrder(shop, 'momo', '01');
  await refused(
    refundPayment(ctx(), { organizationId: shop.partner.organizationId, reference, actor: owner, ip: null }),
    'conflict',
    /refund the order instead/,
  );
});

/** Sends a pay call from the scenario's number and returns the new attempt's reference. */
async function payFrom(shop: Shop, orderId: string, method: PaymentMethod, code: string) {
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: bearer(shop.token),
    payload: { payment_method: method, phone: testPhoneNumber(method, code) },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...ctx().gateway.inflight]);
  const rows = await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).at(-1)!.reference;
}

test('a second payment for a paid order is refunded as a duplicate; the order stays paid', async () => {
  const shop = await makeShop(h);
  const order = await createOrder(h, shop, shop.paidTicket);
  const options = { organizationId: shop.partner.organizationId, orderId: order.id };
  // The buyer leaves a prompt unanswered (09), pays again, then approves the first one too.
  const first = await payFrom(shop, order.id, 'airtel', '09');
  await closePaymentAttempt(ctx(), { ...options, reason: 'buyer used another number' });
  const second = await payFrom(shop, order.id, 'airtel', '01');
  sim.approve(second);
  await reconcileAttempt(ctx(), second);
  sim.approve(first);
  await reconcileAttempt(ctx(), first);
  const listed = await listPaymentsNeedingRefund(db(), shop.partner.organizationId);
  assert.deepEqual(
    listed.payments.map((p) => [p.reason, p.attempt.reference]),
    [['duplicate_payment', first]],
  );
  const refund = await refundPayment(ctx(), { ...options, reference: first, actor: owner, ip: null });
  assert.equal(refund.status, 'succeeded');
  assert.equal(refund.kind, 'duplicate_payment');
  assert.equal((await readOrder(h, shop, order.id)).status, 'paid');
  assert.equal(await paidCount(shop), 1);
  assert.equal((await listPaymentsNeedingRefund(db(), shop.partner.organizationId)).payments.length, 0);
  // The order itself may still be refunded: its own payment is another one.
  assert.equal((await refundOrder(ctx(), { ...options, actor: owner, ip: null })).status, 'succeeded');
  assert.equal((await readOrder(h, shop, order.id)).status, 'refunded');
});

test('two refunds of one order asked at the same moment make one refund', async () => {
  const shop = await makeShop(h);
  const { orderId } = await paidOrder(shop, 'momo', '24');
  const options = { organizationId: shop.partner.organizationId, orderId, actor: owner, ip: null };
  const results = await Promise.allSettled([refundOrder(ctx(), options), refundOrder(ctx(), options)]);
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  const rejected = results.find((r) => r.status === 'rejected')!;
  assert.equal(((rejected as PromiseRejectedResult).reason as ApiError).code, 'conflict');
  assert.equal((await db().select().from(refunds).where(eq(refunds.orderId, orderId))).length, 1);
});

test('a refund request lost on the way is sent again under the same reference and settled by the job', async () => {
  const shop = await makeShop(h);
  const { orderId } = await paidOrder(shop, 'momo', '01');
  // The first refund request never reaches the network (a lost request): the adapter says unknown.
  refundsToLose = 1;
  try {
    const refund = await refundOrder(ctx(), {
      organizationId: shop.partner.organizationId,
      orderId,
      actor: owner,
      ip: null,
    });
    // Asked at once: the network knows no such refund, so it was sent again and is pending.
    assert.equal(refund.status, 'pending');
    await pump(h, async () => (await refundRow(refund.id)).status !== 'pending');
    assert.equal((await refundRow(refund.id)).status, 'succeeded');
    assert.equal(sim.refunds().filter((r) => r.reference === refund.reference).length, 1);
    assert.equal((await readOrder(h, shop, orderId)).status, 'refunded');
  } finally {
    refundsToLose = 0;
  }
});
