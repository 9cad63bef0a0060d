// The Daraja (M-Pesa) client against the simulator's Daraja over real HTTP: the token (reused,
// refreshed, refused), the STK password, an STK push to each scenario number and what the query
// then says, pending while the buyer has not answered, forged callbacks that never pay, reversals
// and their results, and a provider that is down or never answers; then the mappings as tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  parseReversalResult,
  parseStkCallback,
  readStkCallbackReceipt,
} from '../../src/payments/methods/mpesa/daraja-callbacks.ts';
import { darajaTimestamp, stkPassword } from '../../src/payments/methods/mpesa/daraja-config.ts';
import {
  mapStkQuery,
  mapStkResultCode,
  STK_RESULT_CODES,
  type DarajaReason,
  type DarajaStatus,
} from '../../src/payments/methods/mpesa/daraja-status.ts';
import {
  createDarajaClient,
  REVERSAL_WHOLE_ONLY,
  type DarajaClient,
  type ReversalRequest,
  type ReversalSubmitResult,
  type StkPushRequest,
  type StkPushResult,
} from '../../src/payments/methods/mpesa/daraja.ts';
import { PaymentProviderError } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { freePort } from '../helpers/process.ts';
import { sleep, startCallbackReceiver, type CallbackReceiver } from './payments-helpers.ts';

let sim: Simulator;
let receiver: CallbackReceiver;
let client: DarajaClient;

before(async () => {
  // 0.01: a payment settles after 20-30 ms (02: 250 ms, 04: 3 s); a pending reversal after 300 ms.
  sim = await startSimulator({ timeScale: 0.01 });
  receiver = await startCallbackReceiver();
  client = createDarajaClient(sim.part('mpesa').settings);
});
after(async () => {
  await sim.close();
  await receiver.close();
});

const KES = (shillings: number) => shillings * 100;

function push(code: string, extra: Partial<StkPushRequest> = {}): StkPushRequest {
  const reference = randomUUID();
  return {
    reference,
    amount: KES(1_500),
    currency: 'KES',
    msisdn: `07110000${code}`,
    callbackUrl: `${receiver.url}/stk/${reference}`,
    accountReference: 'RACE-2026-ORDER-0001',
    description: 'Nairobi City Marathon entry',
    ...extra,
  };
}

async function pushed(req: StkPushRequest, using = client): Promise<string> {
  const result: StkPushResult = await using.stkPush(req);
  assert.equal(result.kind, 'submitted', JSON.stringify(result));
  return result.kind === 'submitted' ? result.checkoutRequestId : '';
}

async function queryUntilFinal(checkoutRequestId: string, timeoutMs = 5_000) {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await client.queryStkPush(checkoutRequestId);
    seen.push(status.status);
    if (status.status === 'successful' || status.status === 'failed' || Date.now() > deadline) {
      return { status, seen };
    }
    await sleep(20);
  }
}

describe('token', () => {
  test('one token serves many calls; after revokeTokens the 401 brings exactly one new token', async () => {
    const own = createDarajaClient(sim.part('mpesa').settings);
    const before = sim.part('mpesa').tokenRequests();
    const id = await pushed(push('09'), own);
    await own.queryStkPush(id);
    await own.queryStkPush(id);
    assert.equal(sim.part('mpesa').tokenRequests() - before, 1);
    sim.revokeTokens();
    assert.deepEqual(await own.queryStkPush(id), { status: 'pending' });
    assert.equal(sim.part('mpesa').tokenRequests() - before, 2);
  });

  test('the token is refreshed before it expires (expires_in is a string of seconds)', async () => {
    let now = Date.now();
    const own = createDarajaClient(sim.part('mpesa').settings, { clock: { now: () => new Date(now) } });
    const before = sim.part('mpesa').tokenRequests();
    const id = await pushed(push('09'), own);
    now += 2_000_000; // 56 % of the 3600 s lifetime: still good
    await own.queryStkPush(id);
    assert.equal(sim.part('mpesa').tokenRequests() - before, 1);
    now += 1_000_000; // 83 %: refreshed ahead of expiry
    await own.queryStkPush(id);
    assert.equal(sim.part('mpesa').tokenRequests() - before, 2);
  });

  test('a wrong consumer secret: the push is refused unsent, the query fails auth_failed', async () => {
    const own = createDarajaClient({ ...sim.part('mpesa').settings, consumerSecret: 'wrong' });
    const before = sim.part('mpesa').payments().length;
    const result = await own.stkPush(push('01'));
    assert.equal(result.kind, 'rejected');
    if (result.kind === 'rejected') {
      assert.equal(result.failureKind, 'provider_error');
      assert.match(result.message, /refused our API credentials/);
      assert.doesNotMatch(result.message, /wrong|sim-/, 'no credential in the message');
    }
    await assert.rejects(
      own.queryStkPush('ws_CO_unknown'),
      (error: unknown) => error instanceof PaymentProviderError && error.kind === 'auth_failed',
    );
    assert.equal(sim.part('mpesa').payments().length, before);
  });
});

describe('STK push', () => {
  test('the password and fields as Daraja wants them: accepted, and the prompt carries them', async () => {
    const req = push('09');
    const id = await pushed(req);
    const payment = sim
      .part('mpesa')
      .payments()
      .find((p) => p.checkoutRequestId === id)!;
    assert.equal(payment.msisdn, '254711000009');
    assert.equal(payment.amount, 1_500);
    assert.equal(payment.accountReference, 'RACE-2026-OR');
    assert.equal(payment.description, 'Nairobi City');
    assert.equal(payment.callbackUrl, req.callbackUrl);
  });

  test('the timestamp is Nairobi time and the password base64(shortcode + passkey + timestamp)', () => {
    assert.equal(darajaTimestamp(new Date('2026-11-30T21:05:09Z')), '20261201000509');
    assert.equal(
      Buffer.from(stkPassword('174379', 'key', '20261201000509'), 'base64').toString(),
      '174379key20261201000509',
    );
  });

  test('a wrong passkey: the push is refused, and the query says nothing about the payment', async () => {
    const id = await pushed(push('09'));
    const own = createDarajaClient({ ...sim.part('mpesa').settings, passkey: 'not-the-passkey' });
    const result = await own.stkPush(push('01'));
    assert.equal(result.kind, 'rejected');
    if (result.kind === 'rejected') {
      assert.equal(result.failureKind, 'provider_error');
      assert.match(result.message, /Wrong credentials/);
    }
    await assert.rejects(
      own.queryStkPush(id),
      (error: unknown) =>
        error instanceof PaymentProviderError &&
        error.kind === 'server_error' &&
        /Wrong credentials/.test(error.message),
    );
  });

  test('pending while the buyer has not answered, then final', async () => {
    const id = await pushed(push('02'));
    assert.deepEqual(await client.queryStkPush(id), { status: 'pending' });
    const { status, seen } = await queryUntilFinal(id);
    assert.equal(status.status, 'successful');
    assert.ok(seen.includes('pending'));
  });

  const finals: Array<[string, Partial<Extract<DarajaStatus, { status: 'failed' }>> | 'successful']> = [
    ['01', 'successful'],
    ['03', { failureKind: 'payment_declined', reason: 'cancelled_by_buyer', providerCode: '1032' }],
    ['05', { failureKind: 'insufficient_funds', reason: 'insufficient_funds', providerCode: '1' }],
    ['06', { failureKind: 'payment_declined', reason: 'wrong_pin', providerCode: '2001' }],
    ['07', { failureKind: 'payment_declined', reason: 'wrong_pin', providerCode: '2001' }],
    ['08', { failureKind: 'payment_timeout', reason: 'phone_unreachable', providerCode: '1037' }],
    ['13', 'successful'],
    ['42', 'successful'],
  ];
  for (const [code, expected] of finals) {
    test(`07110000${code}: the query says ${typeof expected === 'string' ? expected : expected.reason}`, async () => {
      const { status } = await queryUntilFinal(await pushed(push(code)));
      if (expected === 'successful') {
        assert.deepEqual(status, {
          status: 'successful',
          amount: null,
          currency: null,
          providerTransactionId: null,
        });
      } else {
        assert.equal(status.status, 'failed');
        assert.deepEqual(
          { ...status, message: undefined },
          { status: 'failed', ...expected, message: undefined },
        );
      }
    });
  }

  test('0711000004: no answer until the prompt window ends, then payment_timeout', async () => {
    const id = await pushed(push('04'));
    await sleep(100);
    assert.deepEqual(await client.queryStkPush(id), { status: 'pending' });
    const { status } = await queryUntilFinal(id, 6_000);
    assert.equal(status.status === 'failed' && status.failureKind, 'payment_timeout');
  });

  test('0711000009 stays pending; 0711000010 stays pending at the query though its callback said paid', async () => {
    const forever = await pushed(push('09'));
    const req = push('10');
    const byCallback = await pushed(req);
    const [callback] = await receiver.waitFor(req.reference, 1);
    assert.equal(parseStkCallback(callback?.body)?.checkoutRequestId, byCallback);
    assert.deepEqual(await client.queryStkPush(byCallback), { status: 'pending' });
    assert.deepEqual(await client.queryStkPush(forever), { status: 'pending' });
  });

  test('0711000012 (outage): rejected provider_error, nothing created', async () => {
    const before = sim.part('mpesa').payments().length;
    const result = await client.stkPush(push('12'));
    assert.equal(result.kind === 'rejected' && result.failureKind, 'provider_error');
    assert.equal(sim.part('mpesa').payments().length, before);
  });

  test('0711000011 (answer lost): unknown, though the prompt went out', async () => {
    const own = createDarajaClient({ ...sim.part('mpesa').settings, timeoutMs: 300 });
    const before = sim.part('mpesa').payments().length;
    const result = await own.stkPush(push('11'));
    assert.equal(result.kind, 'unknown');
    assert.equal(sim.part('mpesa').payments().length, before + 1);
  });

  test('the success callback names the CheckoutRequestID and carries the receipt; 03 calls back twice', async () => {
    const req = push('01');
    const id = await pushed(req);
    const [callback] = await receiver.waitFor(req.reference, 1);
    assert.deepEqual(parseStkCallback(callback!.body), { checkoutRequestId: id });
    const receipt = readStkCallbackReceipt(callback!.body);
    assert.equal(receipt?.checkoutRequestId, id);
    assert.equal(receipt?.amount, 1_500);
    assert.equal(receipt?.phone, '254711000001');
    assert.equal(
      receipt?.receipt,
      sim
        .part('mpesa')
        .payments()
        .find((p) => p.checkoutRequestId === id)!.receipt,
    );
    const declined = push('03');
    await pushed(declined);
    const twice = await receiver.waitFor(declined.reference, 2);
    assert.equal(twice.length, 2);
    assert.equal(readStkCallbackReceipt(twice[0]!.body), null, 'a failure has no receipt');
  });

  test('refused before sending: not Safaricom, not Kenyan, not whole shillings, not KES', async () => {
    const before = sim.requestCount();
    const cases: Array<[Partial<StkPushRequest>, string]> = [
      [{ msisdn: '0733000001' }, 'invalid_phone_number'], // Airtel Kenya
      [{ msisdn: '0772000001' }, 'invalid_phone_number'], // Uganda, no country code
      [{ amount: 150_050 }, 'provider_error'],
      [{ amount: 0 }, 'provider_error'],
      [{ currency: 'UGX' }, 'provider_error'],
    ];
    for (const [extra, kind] of cases) {
      const result = await client.stkPush(push('01', extra));
      assert.equal(result.kind === 'rejected' && result.failureKind, kind, JSON.stringify(extra));
    }
    assert.equal(sim.requestCount(), before);
    await assert.rejects(client.stkPush(push('01', { reference: 'not-a-uuid' })), TypeError);
  });
});

describe('forged callbacks never pay', () => {
  const forged = (checkoutRequestId: string) => ({
    Body: {
      stkCallback: {
        MerchantRequestID: '1234-5678-1',
        CheckoutRequestID: checkoutRequestId,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: 1500 },
            { Name: 'MpesaReceiptNumber', Value: 'FORGED1234' },
            { Name: 'PhoneNumber', Value: 254711000009 },
          ],
        },
      },
    },
  });

  test('a success callback for a pending payment: the query still says pending', async () => {
    const id = await pushed(push('09'));
    const hint = parseStkCallback(forged(id));
    assert.deepEqual(hint, { checkoutRequestId: id });
    assert.deepEqual(await client.queryStkPush(hint!.checkoutRequestId), { status: 'pending' });
  });

  test('a success callback for a failed payment: the query still says failed', async () => {
    const { status } = await queryUntilFinal(await pushed(push('05')));
    assert.equal(status.status, 'failed');
    const hint = parseStkCallback(forged(sim.part('mpesa').payments().at(-1)!.checkoutRequestId));
    const again = await client.queryStkPush(hint!.checkoutRequestId);
    assert.equal(again.status === 'failed' && again.failureKind, 'insufficient_funds');
  });

  test('a success callback for a payment that does not exist: not_found', async () => {
    assert.deepEqual(
      await client.queryStkPush(parseStkCallback(forged('ws_CO_made_up'))!.checkoutRequestId),
      {
        status: 'not_found',
      },
    );
  });

  test('bodies without the STK shape are no hint at all', () => {
    const valid = forged('ws_CO_1').Body.stkCallback;
    const bodies: unknown[] = [
      null,
      'not json',
      {},
      { Body: {} },
      { Body: { stkCallback: { ...valid, CheckoutRequestID: undefined } } },
      { Body: { stkCallback: { ...valid, CheckoutRequestID: '../../admin' } } },
      { Body: { stkCallback: { ...valid, MerchantRequestID: 7 } } },
      { Body: { stkCallback: { ...valid, ResultCode: { $gt: 0 } } } },
      { Body: { stkCallback: { ...valid, ResultDesc: undefined } } },
      { Body: { stkCallback: { ...valid, CallbackMetadata: { Item: 'x' } } } },
    ];
    for (const body of bodies) assert.equal(parseStkCallback(body), null, JSON.stringify(body));
    assert.deepEqual(parseStkCallback(JSON.stringify(forged('ws_CO_1'))), { checkoutRequestId: 'ws_CO_1' });
  });
});

describe('reversals', () => {
  /** A paid payment from the scenario's number and its receipt, read from its callback. */
  async function paid(code: string): Promise<string> {
    const req = push(code);
    const id = await pushed(req);
    assert.ok(sim.part('mpesa').approve(id));
    assert.equal((await queryUntilFinal(id)).status.status, 'successful');
    // approve() sends no callback: the receipt is the simulator's, as the callback would carry it.
    return sim
      .part('mpesa')
      .payments()
      .find((p) => p.checkoutRequestId === id)!.receipt;
  }

  const reversal = (transactionId: string, tag: string, amount = KES(1_500)): ReversalRequest => ({
    reference: randomUUID(),
    transactionId,
    amount,
    paymentAmount: amount,
    resultUrl: `${receiver.url}/reversal/${tag}`,
    queueTimeoutUrl: `${receiver.url}/reversal-timeout/${tag}`,
    remarks: 'Refund of a race entry',
  });

  async function resultFor(tag: string) {
    const [delivered] = await receiver.waitFor(`/reversal/${tag}`, 1, 3_000);
    assert.ok(delivered, `a result for ${tag}`);
    return parseReversalResult(delivered.body);
  }

  test('a reversal is taken, and its result arrives at ResultURL: succeeded', async () => {
    const receipt = await paid('01');
    const submitted: ReversalSubmitResult = await client.requestReversal(reversal(receipt, 'ok'));
    assert.equal(submitted.kind, 'submitted');
    const result = await resultFor('ok');
    assert.equal(result?.outcome, 'succeeded');
    assert.equal(result?.resultCode, '0');
    if (submitted.kind === 'submitted') {
      assert.equal(result?.conversationId, submitted.conversationId);
      assert.equal(result?.originatorConversationId, submitted.originatorConversationId);
    }
    await client.requestReversal(reversal(receipt, 'again'));
    const again = await resultFor('again');
    assert.deepEqual([again?.outcome, again?.resultCode], ['failed', 'R000001']);
  });

  test('refund scenarios: 21 fails at once, 23 fails later, 22 succeeds later', async () => {
    for (const [code, outcome] of [
      ['21', 'failed'],
      ['23', 'failed'],
      ['22', 'succeeded'],
    ] as const) {
      const submitted = await client.requestReversal(reversal(await paid(code), `scenario-${code}`));
      assert.equal(submitted.kind, 'submitted');
      assert.equal((await resultFor(`scenario-${code}`))?.outcome, outcome, code);
    }
  });

  test('a wrong security credential is learnt from the result (2001)', async () => {
    const own = createDarajaClient({
      ...sim.part('mpesa').settings,
      reversal: { initiator: 'sim-mpesa-initiator', securityCredential: 'x' },
    });
    assert.equal((await own.requestReversal(reversal(await paid('01'), 'credential'))).kind, 'submitted');
    const result = await resultFor('credential');
    assert.deepEqual([result?.outcome, result?.resultCode], ['failed', '2001']);
  });

  test('a reversal of a part is refused: it returns whole transactions only (a part goes by B2C)', async () => {
    const receipt = await paid('01');
    const before = sim.requestCount();
    const part = await client.requestReversal({ ...reversal(receipt, 'part'), amount: KES(500) });
    assert.deepEqual(part, { kind: 'rejected', message: REVERSAL_WHOLE_ONLY });
    assert.equal(sim.requestCount(), before, 'refused before sending');
    // Sent anyway (the client told the payment was that amount), Daraja's simulator refuses it too.
    const sent = await client.requestReversal(reversal(receipt, 'part-sent', KES(500)));
    assert.equal(sent.kind, 'rejected');
    if (sent.kind === 'rejected') assert.match(sent.message, /Invalid Amount/);
  });

  test('without the initiator settings nothing is sent', async () => {
    const own = createDarajaClient({ ...sim.part('mpesa').settings, reversal: undefined });
    const before = sim.requestCount();
    const result = await own.requestReversal(reversal('SIMABC1234', 'unset'));
    assert.equal(result.kind, 'rejected');
    assert.equal(sim.requestCount(), before);
  });

  test('result bodies without the shape are refused', () => {
    const valid = {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'ok',
      OriginatorConversationID: 'a-1',
      ConversationID: 'AG_1',
    };
    assert.equal(parseReversalResult({ Result: valid })?.outcome, 'succeeded');
    assert.equal(parseReversalResult({ Result: { ...valid, ResultCode: 'R000002' } })?.outcome, 'failed');
    for (const body of [
      null,
      {},
      { Result: { ...valid, ConversationID: undefined } },
      { Result: { ...valid, ResultDesc: 1 } },
    ]) {
      assert.equal(parseReversalResult(body), null);
    }
  });
});

describe('a provider down or silent', () => {
  test('nobody listening: the push is refused (no token, nothing sent); the query fails unreachable', async () => {
    const own = createDarajaClient({
      ...sim.part('mpesa').settings,
      baseUrl: `http://127.0.0.1:${await freePort()}/mpesa`,
    });
    const result = await own.stkPush(push('01'));
    assert.equal(result.kind === 'rejected' && result.failureKind, 'provider_error');
    await assert.rejects(
      own.queryStkPush('ws_CO_1'),
      (error: unknown) => error instanceof PaymentProviderError && error.kind === 'unreachable',
    );
    assert.equal(
      (
        await own.requestReversal({
          reference: randomUUID(),
          transactionId: 'SIMABC1234',
          amount: 100,
          paymentAmount: 100,
          resultUrl: 'http://127.0.0.1/r',
          queueTimeoutUrl: 'http://127.0.0.1/q',
          remarks: 'Refund',
        })
      ).kind,
      'rejected',
    );
  });

  describe('a Daraja that gives tokens and then never answers', () => {
    let hung: Server;
    let base: string;
    before(async () => {
      hung = createServer((req, res) => {
        if (req.url?.startsWith('/oauth/')) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ access_token: 'hung-token', expires_in: '3599' }));
        }
        // anything else: never respond
      });
      await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    });
    after(async () => {
      hung.closeAllConnections();
      await new Promise((resolve) => hung.close(resolve));
    });

    test('the push is unknown (it may be out), the query fails with timeout, a reversal is unknown', async () => {
      const own = createDarajaClient({ ...sim.part('mpesa').settings, baseUrl: base, timeoutMs: 200 });
      const result = await own.stkPush(push('01'));
      assert.equal(result.kind, 'unknown');
      if (result.kind === 'unknown') assert.match(result.message, /no answer within 200 ms/);
      await assert.rejects(
        own.queryStkPush('ws_CO_1'),
        (error: unknown) => error instanceof PaymentProviderError && error.kind === 'timeout',
      );
      const reversed = await own.requestReversal({
        reference: randomUUID(),
        transactionId: 'SIMABC1234',
        amount: 100,
        paymentAmount: 100,
        resultUrl: 'http://127.0.0.1/r',
        queueTimeoutUrl: 'http://127.0.0.1/q',
        remarks: 'Refund',
      });
      assert.equal(reversed.kind, 'unknown');
    });
  });
});

describe('mappings', () => {
  test('each documented ResultCode to its failure kind and the buyer reason', () => {
    const table: Array<[string | number, string, DarajaReason]> = [
      ['1032', 'payment_declined', 'cancelled_by_buyer'],
      [1032, 'payment_declined', 'cancelled_by_buyer'],
      ['2001', 'payment_declined', 'wrong_pin'],
      ['1', 'insufficient_funds', 'insufficient_funds'],
      ['1037', 'payment_timeout', 'phone_unreachable'],
      ['1019', 'payment_timeout', 'expired'],
      ['1001', 'provider_error', 'subscriber_busy'],
      ['1025', 'provider_error', 'provider_error'],
      ['9999', 'provider_error', 'provider_error'],
      ['4242', 'provider_error', 'provider_error'],
    ];
    for (const [code, kind, reason] of table) {
      const status = mapStkResultCode(code);
      assert.equal(status.status, 'failed', String(code));
      if (status.status === 'failed') {
        assert.deepEqual(
          [status.failureKind, status.reason, status.providerCode],
          [kind, reason, String(code)],
        );
      }
    }
    const tabled = new Set(table.map(([code]) => String(code)));
    assert.deepEqual(
      Object.keys(STK_RESULT_CODES).filter((code) => !tabled.has(code)),
      [],
      'every row tested',
    );
    assert.equal(mapStkResultCode('0').status, 'successful');
    assert.equal(mapStkResultCode(0).status, 'successful');
  });

  test('query answers: processing is pending; an unknown id not_found; no word on the payment is null', () => {
    const cases: Array<[number, unknown, string | null]> = [
      [500, { errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' }, 'pending'],
      [
        400,
        { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid CheckoutRequestID' },
        'not_found',
      ],
      [200, { ResponseCode: '0', ResultCode: '0', ResultDesc: 'ok' }, 'successful'],
      [200, { ResponseCode: '0', ResultCode: '1032', ResultDesc: 'Request cancelled by user' }, 'failed'],
      [500, { errorCode: '500.001.1001', errorMessage: 'Wrong credentials' }, null],
      [401, { errorCode: '404.001.03', errorMessage: 'Invalid Access Token' }, null],
      [200, { ResponseCode: '0' }, null],
      [200, undefined, null],
      [503, undefined, null],
    ];
    for (const [status, body, expected] of cases) {
      assert.equal(mapStkQuery(status, body)?.status ?? null, expected, JSON.stringify(body));
    }
  });
});
