// Refunding M-Pesa orders through the partner API against the simulator's Daraja, over real HTTP
// both ways: the STK callback brings the payment's receipt, the reversal names it, and its result
// comes back to our route naming the refund. A whole refund refunds the order (order.refunded,
// method mpesa); a failed reversal fails the refund; forged callbacks and results change nothing;
// a payment whose receipt never came is refused with what to do instead. Parts of a payment, which
// go back by B2C payment, are in mpesa-partial-refunds.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { refunds } from '../../src/payments/payments.schema.ts';
import { processRefund } from '../../src/payments/process-refund.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { bearer } from '../helpers/harness.ts';
import { createEndpoint, pump, pumpFor, verifyDelivery } from '../webhooks/webhook-helpers.ts';
import { darajaResult, useMpesaShop } from './mpesa-helpers.ts';

const m = useMpesaShop();
const { db, settleBackground, until, attemptOf, refundOf, readOrder, newOrder, paidOrder, askRefund, post } =
  m;

describe('refunding an M-Pesa order through Daraja reversal', () => {
  test('the success callback brings the receipt, and a whole refund refunds the order', async () => {
    const endpoint = await createEndpoint(m.h, m.shop.organizationId, m.receiver.url, ['order.refunded']);
    const { orderId, attempt } = await paidOrder('01');
    const payment = m.sim
      .part('mpesa')
      .payments()
      .find((p) => p.checkoutRequestId === attempt.providerReference)!;
    assert.equal(attempt.providerTransactionId, payment.receipt);
    const stk = m.sim
      .part('mpesa')
      .deliveries()
      .filter((d) => d.kind === 'stk' && d.url.endsWith(attempt.reference));
    assert.deepEqual(
      stk.map((d) => d.status),
      [200],
    );

    const res = await askRefund(orderId, { reason: 'Event moved' });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as string;
    assert.equal(res.json().data.method, 'mpesa');
    await until('the reversal result', async () => (await refundOf(id)).status !== 'pending');
    const refund = await refundOf(id);
    assert.equal(refund.status, 'succeeded', refund.failureReason ?? '');
    const [reversal] = m.sim
      .part('mpesa')
      .reversals()
      .filter((r) => r.transactionId === payment.receipt);
    assert.equal(reversal!.amount, attempt.amount / 100);
    assert.deepEqual(refund.providerIds, {
      conversation_id: reversal!.conversationId,
      originator_conversation_id: reversal!.originatorConversationId,
    });
    // Daraja's id of the reversal itself, from its result.
    const resultOf = () =>
      m.sim
        .part('mpesa')
        .deliveries()
        .find((d) => d.kind === 'reversal' && d.url.includes(refund.reference));
    // The simulator notes a delivery once our answer to it has come back.
    await until('the delivery noted', async () => resultOf() !== undefined);
    const delivered = resultOf();
    assert.equal(delivered!.status, 200);
    assert.match(
      delivered!.url,
      new RegExp(`/v1/payment-callbacks/mpesa/refunds/${refund.reference}/result$`),
    );
    const transactionId = (delivered!.body as { Result: { TransactionID: string } }).Result.TransactionID;
    assert.equal(refund.providerReference, transactionId);

    assert.equal((await readOrder(orderId)).status, 'refunded');
    const webhooks = () =>
      m.receiver.requests.filter((r) => {
        const body = JSON.parse(r.body);
        return body.type === 'order.refunded' && body.data?.id === orderId;
      });
    await pump(m.h, () => webhooks().length > 0);
    await pumpFor(m.h, 100);
    assert.equal(webhooks().length, 1);
    const payload = verifyDelivery(endpoint.secret, webhooks()[0]!, m.h.clock.now());
    assert.equal(payload.data.status, 'refunded');
    assert.equal(payload.data.refund.method, 'mpesa');
    assert.equal(payload.data.refund.currency, 'KES');
    assert.equal(payload.data.refund.provider_reference, transactionId);
  });

  for (const code of ['21', '23']) {
    test(`a reversal that fails (${code}) fails the refund and leaves the order paid`, async () => {
      const { orderId } = await paidOrder(code);
      const res = await askRefund(orderId);
      assert.equal(res.statusCode, 201, res.body);
      const id = res.json().data.id as string;
      await until('the reversal result', async () => (await refundOf(id)).status !== 'pending');
      const refund = await refundOf(id);
      assert.equal(refund.status, 'failed');
      assert.match(refund.failureReason ?? '', /M-Pesa did not reverse the payment: .+ \(1\)/);
      assert.equal((await readOrder(orderId)).status, 'paid');
    });
  }

  test('a forged reversal result changes nothing: the refund stays pending', async () => {
    // 24: Daraja never sends the result.
    const { orderId } = await paidOrder('24');
    const res = await askRefund(orderId);
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as string;
    const { reference, providerIds } = await refundOf(id);
    assert.ok(providerIds?.conversation_id);
    const other = { conversation: 'AG_20261130_forged', originator: '1234-5678-1' };
    await post(`/v1/payment-callbacks/mpesa/refunds/${reference}/result`, darajaResult(0, other));
    await post(`/v1/payment-callbacks/mpesa/refunds/${reference}/timeout`, darajaResult(1, other));
    // Half the ids right is not the refund's either.
    const half = { conversation: providerIds.conversation_id!, originator: '1234-5678-1' };
    await post(`/v1/payment-callbacks/mpesa/refunds/${reference}/result`, darajaResult(0, half));
    await post(`/v1/payment-callbacks/mpesa/refunds/${crypto.randomUUID()}/result`, darajaResult(0, other));
    await post(`/v1/payment-callbacks/mpesa/refunds/${reference}/result`, { not: 'daraja' });
    // The job asks too: without a result, still pending.
    assert.ok((await processRefund(m.h.service.ctx, id)) instanceof Date);
    const refund = await refundOf(id);
    assert.equal(refund.status, 'pending');
    assert.equal(refund.providerResult, null);
    assert.equal((await readOrder(orderId)).status, 'paid');
  });

  test('a forged STK callback neither sets nor changes a receipt', async () => {
    const forged = (checkoutRequestId: string, amount: number, phone: number, receipt: string) => ({
      Body: {
        stkCallback: {
          MerchantRequestID: '1234-5678-1',
          CheckoutRequestID: checkoutRequestId,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: amount },
              { Name: 'MpesaReceiptNumber', Value: receipt },
              { Name: 'PhoneNumber', Value: phone },
            ],
          },
        },
      },
    });
    // A receipt kept from the real callback stays as it is.
    const kept = (await paidOrder('01')).attempt;
    const shillings = kept.amount / 100;
    await post(
      `/v1/payment-callbacks/mpesa/${kept.reference}`,
      forged(kept.providerReference!, shillings, Number(kept.msisdn), 'FORGED1234'),
    );
    assert.equal((await attemptOf(kept.orderId)).providerTransactionId, kept.providerTransactionId);

    // A confirmed payment without a receipt: another CheckoutRequestID, amount or number sets none.
    const silent = (await paidOrder('01', { callback: false })).attempt;
    assert.equal(silent.providerTransactionId, null);
    const msisdn = Number(silent.msisdn);
    for (const body of [
      forged(kept.providerReference!, shillings, msisdn, 'FORGED1235'),
      forged(silent.providerReference!, shillings + 1, msisdn, 'FORGED1236'),
      forged(silent.providerReference!, shillings, 254711000001, 'FORGED1237'),
    ]) {
      await post(`/v1/payment-callbacks/mpesa/${silent.reference}`, body);
    }
    assert.equal((await attemptOf(silent.orderId)).providerTransactionId, null);

    // A payment the query has not confirmed: nothing, however well the body matches it.
    const created = await m.h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(m.shop.token),
      payload: {
        event_id: m.shop.eventId,
        items: [{ ticket_type_id: m.shop.ticket, participant_name: 'Otieno' }],
        buyer: { name: 'Otieno', email: 'otieno@example.org', phone: '0712345678' },
      },
    });
    const orderId = created.json().data.id as string;
    const paying = await m.h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${orderId}/pay`,
      headers: bearer(m.shop.token),
      payload: { payment_method: 'mpesa', phone: testPhoneNumber('mpesa', '09') },
    });
    assert.equal(paying.statusCode, 202, paying.body);
    await settleBackground();
    const open = await attemptOf(orderId);
    await post(
      `/v1/payment-callbacks/mpesa/${open.reference}`,
      forged(open.providerReference!, open.amount / 100, Number(open.msisdn), 'FORGED1238'),
    );
    const still = await attemptOf(orderId);
    assert.deepEqual([still.status, still.providerTransactionId], ['pending', null]);
  });

  test('without the receipt the refund is refused, saying to reverse it in the M-Pesa portal', async () => {
    const { orderId, attempt } = await paidOrder('01', { callback: false });
    const before = m.sim.part('mpesa').reversals().length;
    const res = await askRefund(orderId);
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_code, 'refund_not_possible');
    assert.match(
      res.json().message,
      /receipt .* never reached the service.*reverse it in the M-Pesa org portal/,
    );
    assert.equal(m.sim.part('mpesa').reversals().length, before);
    assert.equal((await db().select().from(refunds).where(eq(refunds.attemptId, attempt.id))).length, 0);
  });
});

describe('an M-Pesa push whose answer was lost', () => {
  test("is found by its callback's CheckoutRequestID, queried and paid: the buyer's money is not lost", async () => {
    const orderId = await newOrder();
    // 11: Daraja takes the push and the buyer pays, but its answer never reaches us.
    const res = await m.h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${orderId}/pay`,
      headers: bearer(m.shop.token),
      payload: { payment_method: 'mpesa', phone: testPhoneNumber('mpesa', '11') },
    });
    assert.equal(res.statusCode, 202, res.body);
    // The submission gives up on the answer (PAYMENT_HTTP_TIMEOUT_MS); the callback came meanwhile.
    await until('the submission to give up', async () => (await attemptOf(orderId)).status !== 'submitting');
    const attempt = await attemptOf(orderId);
    assert.equal(attempt.status, 'pending');
    const pushed = m.sim
      .part('mpesa')
      .payments()
      .find((p) => p.checkoutRequestId === attempt.providerReference);
    assert.ok(pushed, `the callback's CheckoutRequestID is kept: ${attempt.providerReference}`);
    assert.equal(pushed.state, 'successful');
    assert.equal(await reconcileAttempt(m.h.service.ctx, attempt.reference), null);
    assert.equal((await readOrder(orderId)).status, 'paid');
    // One push only: nothing was sent again under a new id.
    assert.equal(
      m.sim
        .part('mpesa')
        .payments()
        .filter((p) => p.msisdn === pushed.msisdn).length,
      1,
    );
  });
});
