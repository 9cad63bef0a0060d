// M-Pesa's refund side of the port, without a database: what a refund is refused for before
// anything is sent (no receipt, no initiator), a part sent as a B2C payment to the payer's number,
// and the status read from the recorded result (a reversal's or a B2C payment's), which counts
// only under the ids Daraja answered the submission with.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createMpesaProvider,
  MPESA_NO_INITIATOR,
  MPESA_NO_INITIATOR_PART,
  MPESA_NO_RECEIPT,
  mpesaProvider,
  refundResultStatus,
} from '../../src/payments/methods/mpesa/mpesa-provider.ts';
import type { RefundRequest } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
});
after(() => sim.close());

const ids = { conversation_id: 'AG_20261130_0001', originator_conversation_id: '1234-5678-1' };
const result = (code: number | string, over: Record<string, unknown> = {}) => ({
  Result: {
    ResultType: 0,
    ResultCode: code,
    ResultDesc: code === 0 ? 'The service request is processed successfully.' : 'Insufficient balance',
    OriginatorConversationID: ids.originator_conversation_id,
    ConversationID: ids.conversation_id,
    TransactionID: 'SIMREV0001',
    ...over,
  },
});

const request = (over: Partial<RefundRequest> = {}): RefundRequest => ({
  reference: '0b0f4a1e-5c36-4d4e-9a55-6f0f5b7a1c01',
  paymentReference: '0b0f4a1e-5c36-4d4e-9a55-6f0f5b7a1c02',
  providerTransactionId: 'SIMABC1234',
  amount: 155_300,
  paymentAmount: 155_300,
  msisdn: '254711000001',
  currency: 'KES',
  description: 'Refund of your ticket payment',
  callbackUrl: 'http://127.0.0.1:9/v1/payment-callbacks/mpesa/refunds/0b0f4a1e',
  ...over,
});

describe('M-Pesa refunds at the port', () => {
  test('the status comes from a recorded result under the refund ids only', () => {
    const cases: [string, Parameters<typeof refundResultStatus>, ReturnType<typeof refundResultStatus>][] = [
      ['no ids yet', [null, { via: 'result', body: result(0) }], { status: 'pending' }],
      ['no result yet', [ids, null], { status: 'pending' }],
      [
        'a success',
        [ids, { via: 'result', body: result(0) }],
        { status: 'succeeded', providerReference: 'SIMREV0001' },
      ],
      [
        'other ids',
        [ids, { via: 'result', body: result(0, { ConversationID: 'AG_other' }) }],
        { status: 'pending' },
      ],
      ['not Daraja shape', [ids, { via: 'result', body: { Result: 'x' } }], { status: 'pending' }],
      [
        'a failure',
        [ids, { via: 'result', body: result(1) }],
        {
          status: 'failed',
          message: 'M-Pesa did not reverse the payment: Insufficient balance (1)',
          providerCode: '1',
        },
      ],
    ];
    for (const [name, args, expected] of cases) assert.deepEqual(refundResultStatus(...args), expected, name);
    const timedOut = refundResultStatus(ids, { via: 'timeout', body: result(0) });
    assert.equal(timedOut.status, 'failed');
    assert.match((timedOut as { message: string }).message, /queue.*nothing was reversed/);
  });

  test('a part reads its B2C result in its own words, with what to do for the codes one can act on', () => {
    const failed = (code: string, via = 'result') =>
      refundResultStatus(ids, { via, body: result(code, { ResultDesc: 'Declined' }) }, true);
    assert.deepEqual(failed('17'), {
      status: 'failed',
      message: 'M-Pesa did not pay the part back: Declined (17)',
      providerCode: '17',
    });
    assert.match((failed('1') as { message: string }).message, /\(1\); .*payout account is short of funds/);
    assert.match((failed('2001') as { message: string }).message, /MPESA_INITIATOR/);
    assert.match((failed('2040') as { message: string }).message, /cannot receive M-Pesa payments/);
    assert.match((failed('0', 'timeout') as { message: string }).message, /queue.*nothing was paid back/);
    assert.deepEqual(refundResultStatus(ids, { via: 'result', body: result(0) }, true), {
      status: 'succeeded',
      providerReference: 'SIMREV0001',
    });
  });

  test('a part goes by B2C payment to the payer, even without the receipt a reversal names', async () => {
    assert.equal(mpesaProvider.supportsPartialRefunds, true);
    const configured = createMpesaProvider(sim.part('mpesa').settings);
    assert.equal(configured.partialRefundsRefused, undefined);
    const reversals = sim.part('mpesa').reversals().length;
    const part = request({ amount: 50_000, providerTransactionId: null });
    const sent = await configured.requestRefund(part);
    assert.equal(sent.kind, 'submitted', JSON.stringify(sent));
    const [b2c] = sim
      .part('mpesa')
      .b2cPayments()
      .filter((p) => p.originatorConversationId === part.reference);
    assert.deepEqual([b2c?.msisdn, b2c?.amount], ['254711000001', 500]);
    assert.deepEqual(sent.kind === 'submitted' && sent.providerIds, {
      conversation_id: b2c!.conversationId,
      originator_conversation_id: part.reference,
    });
    assert.equal(sim.part('mpesa').reversals().length, reversals, 'no reversal for a part');
  });

  test('without the initiator a part is refused with what to do instead', async () => {
    const unset = createMpesaProvider({ ...sim.part('mpesa').settings, reversal: undefined });
    assert.equal(unset.partialRefundsRefused, MPESA_NO_INITIATOR_PART);
    assert.match(MPESA_NO_INITIATOR_PART, /MPESA_INITIATOR.*from the M-Pesa org portal/);
    const before = sim.part('mpesa').b2cPayments().length;
    assert.deepEqual(await unset.requestRefund(request({ amount: 50_000 })), {
      kind: 'rejected',
      message: MPESA_NO_INITIATOR_PART,
    });
    assert.equal(sim.part('mpesa').b2cPayments().length, before);
  });

  test('no receipt, or no initiator, is refused before anything is sent', async () => {
    const configured = createMpesaProvider(sim.part('mpesa').settings);
    const whole = 150_000;
    const paid = (receipt: string | null) => ({ providerTransactionId: receipt, amount: whole });
    assert.equal(configured.refundRefused!(paid('SIMABC1234'), whole), null);
    assert.equal(configured.refundRefused!(paid(null), whole), MPESA_NO_RECEIPT);
    // A part goes by B2C to the payer's number: no receipt needed, but KES 10 at the least.
    assert.equal(configured.refundRefused!(paid(null), 50_000), null);
    assert.match(configured.refundRefused!(paid('SIMABC1234'), 900) ?? '', /at least KES 10/);
    assert.match(MPESA_NO_RECEIPT, /reverse it in the M-Pesa org portal/);
    const unset = createMpesaProvider({ ...sim.part('mpesa').settings, reversal: undefined });
    assert.equal(unset.refundRefused!(paid('SIMABC1234'), whole), MPESA_NO_INITIATOR);
    assert.match(MPESA_NO_INITIATOR, /MPESA_INITIATOR/);
    const before = sim.part('mpesa').reversals().length;
    assert.deepEqual(await unset.requestRefund(request()), { kind: 'rejected', message: MPESA_NO_INITIATOR });
    assert.deepEqual(await configured.requestRefund(request({ providerTransactionId: null })), {
      kind: 'rejected',
      message: MPESA_NO_RECEIPT,
    });
    assert.equal(sim.part('mpesa').reversals().length, before);
    // A refund never sent (its answer lost) stays pending: sent again it would fail as reversed.
    assert.deepEqual(await configured.getRefundStatus(request()), { status: 'pending' });
  });
});
