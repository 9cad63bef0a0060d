// Daraja's B2C payment, the way a part of an M-Pesa payment goes back, against the simulator's
// Daraja over real HTTP: what the client sends (our reference as OriginatorConversationID, whole
// shillings, the payer's number as PartyB), the result at ResultURL under the answer's ids, the
// refund scenarios of the payee's number, a wrong credential or a number M-Pesa cannot pay learnt
// from the result, the shapes the simulator refuses at once, and what the client refuses unsent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseReversalResult } from '../../src/payments/methods/mpesa/daraja-callbacks.ts';
import { B2C_MIN_SHILLINGS, type B2cPaymentRequest } from '../../src/payments/methods/mpesa/daraja-b2c.ts';
import { createDarajaClient, type DarajaClient } from '../../src/payments/methods/mpesa/daraja.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { startCallbackReceiver, type CallbackReceiver } from './payments-helpers.ts';

let sim: Simulator;
let receiver: CallbackReceiver;
let client: DarajaClient;

before(async () => {
  // 0.01: a pending B2C payment (22, 23) settles after 300 ms.
  sim = await startSimulator({ timeScale: 0.01 });
  receiver = await startCallbackReceiver();
  client = createDarajaClient(sim.part('mpesa').settings);
});
after(async () => {
  await sim.close();
  await receiver.close();
});

const KES = (shillings: number) => shillings * 100;

const payment = (code: string, tag: string, over: Partial<B2cPaymentRequest> = {}): B2cPaymentRequest => ({
  reference: randomUUID(),
  msisdn: `07110000${code}`,
  amount: KES(500),
  resultUrl: `${receiver.url}/b2c/${tag}`,
  queueTimeoutUrl: `${receiver.url}/b2c-timeout/${tag}`,
  remarks: 'Part of your race entry refunded',
  ...over,
});

async function resultFor(tag: string) {
  const [delivered] = await receiver.waitFor(`/b2c/${tag}`, 1, 3_000);
  assert.ok(delivered, `a result for ${tag}`);
  return { parsed: parseReversalResult(delivered.body), body: delivered.body as B2cResultBody };
}

interface B2cResultBody {
  Result: { ResultParameters: { ResultParameter: Array<{ Key: string; Value: unknown }> } };
}

describe('B2C payments', () => {
  test('a part goes to the payer’s number, and its result names the answer’s ids', async () => {
    const req = payment('01', 'ok');
    const submitted = await client.requestB2cPayment(req);
    assert.equal(submitted.kind, 'submitted', JSON.stringify(submitted));
    if (submitted.kind !== 'submitted') return;
    assert.equal(submitted.originatorConversationId, req.reference);
    const [taken] = sim
      .part('mpesa')
      .b2cPayments()
      .filter((p) => p.originatorConversationId === req.reference);
    assert.deepEqual([taken!.msisdn, taken!.amount], ['254711000001', 500]);
    assert.equal(taken!.conversationId, submitted.conversationId);

    const { parsed, body } = await resultFor('ok');
    assert.deepEqual(
      [parsed?.outcome, parsed?.resultCode, parsed?.conversationId, parsed?.originatorConversationId],
      ['succeeded', '0', submitted.conversationId, req.reference],
    );
    assert.equal(parsed?.transactionId, taken!.receipt);
    const parameters = body.Result.ResultParameters.ResultParameter;
    const value = (key: string) => parameters.find((p) => p.Key === key)?.Value;
    assert.equal(value('TransactionAmount'), 500);
    assert.equal(value('TransactionReceipt'), taken!.receipt);
    assert.match(String(value('ReceiverPartyPublicName')), /^254711000001 - /);
    assert.match(String(value('TransactionCompletedDateTime')), /^\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d$/);
  });

  test('refund scenarios of the payee: 21 fails at once, 23 fails later, 22 succeeds later', async () => {
    for (const [code, outcome] of [
      ['21', 'failed'],
      ['23', 'failed'],
      ['22', 'succeeded'],
    ] as const) {
      const submitted = await client.requestB2cPayment(payment(code, `scenario-${code}`));
      assert.equal(submitted.kind, 'submitted', code);
      const { parsed } = await resultFor(`scenario-${code}`);
      assert.equal(parsed?.outcome, outcome, code);
      if (outcome === 'failed') assert.equal(parsed?.resultCode, '1', code);
    }
    // 24: taken, and no result ever comes.
    const req = payment('24', 'scenario-24');
    assert.equal((await client.requestB2cPayment(req)).kind, 'submitted');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(receiver.about('/b2c/scenario-24').length, 0);
    const [pending] = sim
      .part('mpesa')
      .b2cPayments()
      .filter((p) => p.originatorConversationId === req.reference);
    assert.equal(pending!.state, 'pending');
  });

  test('a wrong security credential is learnt from the result (2001)', async () => {
    const own = createDarajaClient({
      ...sim.part('mpesa').settings,
      reversal: { initiator: 'sim-mpesa-initiator', securityCredential: 'wrong' },
    });
    assert.equal((await own.requestB2cPayment(payment('01', 'credential'))).kind, 'submitted');
    const { parsed } = await resultFor('credential');
    assert.deepEqual([parsed?.outcome, parsed?.resultCode], ['failed', '2001']);
  });

  test('the client refuses, unsent: cents, under the minimum, a number not Safaricom’s, no initiator', async () => {
    const before = sim.requestCount();
    const refused = async (req: B2cPaymentRequest, using = client) => {
      const result = await using.requestB2cPayment(req);
      assert.equal(result.kind, 'rejected', JSON.stringify(req));
      return result.kind === 'rejected' ? result.message : '';
    };
    assert.match(await refused(payment('01', 'cents', { amount: 50_050 })), /whole shillings/);
    assert.match(
      await refused(payment('01', 'small', { amount: KES(B2C_MIN_SHILLINGS - 1) })),
      /at least KES 10/,
    );
    // 0733: Airtel Kenya.
    assert.match(await refused(payment('01', 'airtel', { msisdn: '0733000001' })), /Safaricom number only/);
    assert.match(await refused(payment('01', 'nonsense', { msisdn: 'erased' })), /Safaricom number only/);
    assert.match(await refused(payment('01', 'url', { resultUrl: 'ftp://x' })), /ResultURL/);
    const unset = createDarajaClient({ ...sim.part('mpesa').settings, reversal: undefined });
    assert.match(await refused(payment('01', 'unset'), unset), /initiator name and security credential/);
    assert.equal(sim.requestCount(), before, 'nothing sent');
    await assert.rejects(client.requestB2cPayment(payment('01', 'ref', { reference: 'order-1' })), TypeError);
  });

  test('another B2C shortcode is sent as PartyA (the simulator knows only its own: 400)', async () => {
    const own = createDarajaClient({ ...sim.part('mpesa').settings, b2cShortcode: '600000' });
    const result = await own.requestB2cPayment(payment('01', 'shortcode'));
    assert.equal(result.kind, 'rejected');
    if (result.kind === 'rejected') {
      assert.match(result.message, /refused the B2C payment \(400\).*Invalid PartyA/);
      assert.equal(result.providerCode, '400.002.02');
    }
  });
});

describe("the simulator's B2C route", () => {
  async function token(): Promise<string> {
    const basic = Buffer.from(
      `${sim.part('mpesa').settings.consumerKey}:${sim.part('mpesa').settings.consumerSecret}`,
    ).toString('base64');
    const res = await fetch(
      `${sim.part('mpesa').settings.baseUrl}/oauth/v1/generate?grant_type=client_credentials`,
      {
        headers: { Authorization: `Basic ${basic}` },
      },
    );
    return ((await res.json()) as { access_token: string }).access_token;
  }
  const valid = (tag: string) => ({
    OriginatorConversationID: randomUUID(),
    InitiatorName: 'sim-mpesa-initiator',
    SecurityCredential: 'sim-mpesa-security-credential-0001',
    CommandID: 'BusinessPayment',
    Amount: 500,
    PartyA: sim.part('mpesa').settings.shortcode,
    PartyB: '254711000001',
    Remarks: 'Refund',
    QueueTimeOutURL: `${receiver.url}/b2c-timeout/${tag}`,
    ResultURL: `${receiver.url}/b2c/${tag}`,
    Occasion: 'Refund',
  });
  const post = async (body: object, bearer?: string) => {
    const res = await fetch(`${sim.part('mpesa').settings.baseUrl}/mpesa/b2c/v3/paymentrequest`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer ?? (await token())}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  test('refuses at once a bad token and each field out of shape', async () => {
    assert.equal((await post(valid('token'), 'made-up')).status, 401);
    const cases: Array<[string, unknown]> = [
      ['Amount', 15.5],
      ['Amount', 9],
      ['Amount', '500.00'],
      ['CommandID', 'TransactionReversal'],
      ['PartyB', '0711000001'],
      ['PartyB', '255711000001'],
      ['Remarks', ''],
      ['ResultURL', 'not a url'],
      ['OriginatorConversationID', undefined],
      ['InitiatorName', ''],
    ];
    const before = sim.part('mpesa').b2cPayments().length;
    for (const [field, value] of cases) {
      const answer = await post({ ...valid('shape'), [field]: value });
      assert.equal(answer.status, 400, `${field}=${String(value)}`);
      assert.equal(answer.body.errorMessage, `Bad Request - Invalid ${field}`);
    }
    assert.equal(sim.part('mpesa').b2cPayments().length, before, 'nothing taken');
  });

  test('a Kenyan number that is not M-Pesa’s is taken, then fails in the result (2040)', async () => {
    const answer = await post({ ...valid('airtel'), PartyB: '254733000001' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.ResponseCode, '0');
    const { parsed } = await resultFor('airtel');
    assert.deepEqual([parsed?.outcome, parsed?.resultCode], ['failed', '2040']);
  });
});

describe('a Daraja that gives tokens and then never answers', () => {
  let hung: Server;
  before(async () => {
    hung = createServer((req, res) => {
      if (req.url?.startsWith('/oauth/')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'hung-token', expires_in: '3599' }));
      }
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    hung.closeAllConnections();
    await new Promise((resolve) => hung.close(resolve));
  });

  test('a B2C payment is unknown: it may have been taken, so it is never sent again', async () => {
    const base = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    const own = createDarajaClient({ ...sim.part('mpesa').settings, baseUrl: base, timeoutMs: 200 });
    const result = await own.requestB2cPayment(payment('01', 'hung'));
    assert.equal(result.kind, 'unknown');
    if (result.kind === 'unknown') assert.match(result.message, /B2C payment: .*200 ms/);
  });
});
