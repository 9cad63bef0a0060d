// A part of an M-Pesa payment refunded through the partner API against the simulator's Daraja, over
// real HTTP both ways: it goes back to the payer's number as a B2C payment (no reversal), whose
// result comes to our route naming the refund. The order stays paid with its refunded_total after
// a part, and is refunded once the rest has gone back too; a B2C payment that fails fails the
// refund and leaves the order as it was; a forged result changes nothing, while Daraja's own,
// under the ids it answered with, settles the refund.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { processRefund } from '../../src/payments/process-refund.ts';
import { darajaResult, useMpesaShop } from './mpesa-helpers.ts';

const m = useMpesaShop();
const { until, refundOf, readOrder, paidOrder, askRefund, post } = m;

/** Asks for a refund of the order and returns its id once the API has taken it (201). */
async function refunded(orderId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await askRefund(orderId, body);
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().data.method, 'mpesa');
  return res.json().data.id as string;
}

const b2cOf = (reference: string) =>
  m.sim
    .part('mpesa')
    .b2cPayments()
    .find((p) => p.originatorConversationId === reference);

describe('a part of an M-Pesa payment goes back by B2C payment', () => {
  test('a part, then the rest: paid with its refunded_total, then refunded', async () => {
    const { orderId, attempt } = await paidOrder('01');
    const reversals = m.sim.part('mpesa').reversals().length;

    const partId = await refunded(orderId, { amount_minor: 50_000, reason: 'Shorter course' });
    await until('the B2C result', async () => (await refundOf(partId)).status !== 'pending');
    const part = await refundOf(partId);
    assert.equal(part.status, 'succeeded', part.failureReason ?? '');
    const b2c = b2cOf(part.reference);
    assert.ok(b2c, 'sent as a B2C payment, under our reference');
    assert.deepEqual([b2c.msisdn, b2c.amount], [attempt.msisdn, 500]);
    assert.deepEqual(part.providerIds, {
      conversation_id: b2c.conversationId,
      originator_conversation_id: part.reference,
    });
    // The payment out's own M-Pesa receipt, from its result.
    assert.equal(part.providerReference, b2c.receipt);
    assert.equal(m.sim.part('mpesa').reversals().length, reversals, 'no reversal for a part');
    const deliveryOf = () =>
      m.sim
        .part('mpesa')
        .deliveries()
        .find((d) => d.kind === 'b2c' && d.url.includes(part.reference));
    // The simulator notes a delivery once our answer to it has come back.
    await until('the delivery noted', async () => deliveryOf() !== undefined);
    assert.equal(deliveryOf()!.status, 200);
    assert.match(
      deliveryOf()!.url,
      new RegExp(`/v1/payment-callbacks/mpesa/refunds/${part.reference}/result$`),
    );
    let order = await readOrder(orderId);
    assert.deepEqual([order.status, order.refunded_total], ['paid', 50_000]);

    // The rest is a part of the payment too, so it goes by B2C as well.
    const restId = await refunded(orderId);
    await until('the second B2C result', async () => (await refundOf(restId)).status !== 'pending');
    const rest = await refundOf(restId);
    assert.equal(rest.status, 'succeeded', rest.failureReason ?? '');
    assert.equal(rest.amount, attempt.amount - 50_000);
    assert.equal(b2cOf(rest.reference)?.amount, (attempt.amount - 50_000) / 100);
    order = await readOrder(orderId);
    assert.deepEqual([order.status, order.refunded_total], ['refunded', attempt.amount]);
    assert.equal(m.sim.part('mpesa').reversals().length, reversals);
  });

  for (const code of ['21', '23']) {
    test(`a B2C payment that fails (${code}) fails the refund and leaves the order as it was`, async () => {
      const { orderId } = await paidOrder(code);
      const id = await refunded(orderId, { amount_minor: 50_000 });
      await until('the B2C result', async () => (await refundOf(id)).status !== 'pending');
      const refund = await refundOf(id);
      assert.equal(refund.status, 'failed');
      assert.match(
        refund.failureReason ?? '',
        /M-Pesa did not pay the part back: .+ \(1\); .*short of funds/,
      );
      assert.equal(b2cOf(refund.reference)?.state, 'failed');
      const order = await readOrder(orderId);
      assert.deepEqual([order.status, order.refunded_total], ['paid', 0]);
    });
  }

  test('a forged B2C result changes nothing; Daraja’s own, under its ids, settles the refund', async () => {
    // 24: Daraja never sends the result by itself.
    const { orderId } = await paidOrder('24');
    const id = await refunded(orderId, { amount_minor: 50_000 });
    const { reference, providerIds } = await refundOf(id);
    const b2c = b2cOf(reference)!;
    assert.equal(providerIds?.conversation_id, b2c.conversationId);
    const path = `/v1/payment-callbacks/mpesa/refunds/${reference}`;
    // Our reference is the OriginatorConversationID, but without Daraja's ConversationID it is not ours.
    await post(
      `${path}/result`,
      darajaResult(0, { conversation: 'AG_20261130_forged', originator: reference }),
    );
    await post(`${path}/result`, darajaResult(0, { conversation: b2c.conversationId, originator: 'x-1' }));
    await post(`${path}/result`, { Result: { ResultCode: 0 } });
    assert.ok((await processRefund(m.h.service.ctx, id)) instanceof Date);
    let refund = await refundOf(id);
    assert.deepEqual([refund.status, refund.providerResult], ['pending', null]);
    assert.equal((await readOrder(orderId)).refunded_total, 0);

    const ids = { conversation: b2c.conversationId, originator: reference };
    await post(`${path}/result`, darajaResult(0, ids));
    await until('the refund settled', async () => (await refundOf(id)).status !== 'pending');
    refund = await refundOf(id);
    assert.equal(refund.status, 'succeeded');
    // The first matching result stands: a later failure under the same ids changes nothing.
    await post(`${path}/result`, darajaResult(1, ids));
    assert.equal((await refundOf(id)).status, 'succeeded');
    const order = await readOrder(orderId);
    assert.deepEqual([order.status, order.refunded_total], ['paid', 50_000]);
  });

  test('a part under KES 10 is refused (M-Pesa pays out no less), and nothing is sent', async () => {
    const { orderId } = await paidOrder('01');
    const before = m.sim.part('mpesa').b2cPayments().length;
    const res = await askRefund(orderId, { amount_minor: 500 });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_code, 'refund_not_possible');
    assert.match(res.json().message, /at least KES 10/);
    assert.equal(m.sim.part('mpesa').b2cPayments().length, before, 'nothing sent');
    assert.equal((await readOrder(orderId)).refunded_total, 0);
  });

  test("a part needs no receipt: it goes to the payer's number", async () => {
    const { orderId, attempt } = await paidOrder('01', { callback: false });
    assert.equal(attempt.providerTransactionId, null, 'no success callback, so no receipt');
    const id = await refunded(orderId, { amount_minor: 50_000 });
    await until('the B2C result', async () => (await refundOf(id)).status !== 'pending');
    const refund = await refundOf(id);
    assert.equal(refund.status, 'succeeded', refund.failureReason ?? '');
    assert.ok(b2cOf(refund.reference), 'sent as a B2C payment');
    assert.equal((await readOrder(orderId)).refunded_total, 50_000);
  });
});
