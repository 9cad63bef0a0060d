// Cards through Flutterwave's hosted payment: the client against the simulator over real HTTP.
// The buyer's part (the hosted page) is played with plain fetch and form bodies, following each
// redirect by hand: every test card, the 3-D Secure step, a cancel. Then verify as the only truth
// (an amount or currency that does not match is never a payment), the webhook's hash, refunds,
// and a provider that is unreachable or silent; last, the answer readings as tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createFlutterwaveClient,
  type CreatePaymentResult,
  type FlutterwaveClient,
  type FlutterwaveRefundSubmit,
  type HostedPaymentRequest,
} from '../../src/payments/methods/card/flutterwave.ts';
import {
  failureKindOf,
  parseFlutterwaveReturn,
  readFlutterwaveWebhook,
  readRefundStatus,
  readVerify,
  webhookHashMatches,
  type ReturnHint,
} from '../../src/payments/methods/card/flutterwave-status.ts';
import { PaymentProviderError, type RefundRequest, type StatusResult } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { sleep } from './payments-helpers.ts';
import { FLUTTERWAVE_SIM_CREDENTIALS } from '../../src/payments/methods/card/sim-credentials.ts';

const CARDS = {
  success: '4242424242424242',
  otp: '5531886652142950',
  insufficient: '4000000000009995',
  issuer: '4000000000000002',
  never: '4000000000000119',
};
// Never fetched: the tests read the redirect's Location and stop there.
const RETURN_URL = 'http://127.0.0.1:9/checkout/return?order=ord_1';
const HASH = FLUTTERWAVE_SIM_CREDENTIALS.secretHash;

let sim: Simulator;
let fastSim: Simulator;
/** Webhooks the simulators posted, with their headers (the shared receiver keeps no headers). */
interface Hook {
  headers: Record<string, string | undefined>;
  body: { event?: string; data?: { tx_ref?: string; status?: string } };
}
const received: Hook[] = [];
const hooks = () => received;
let receiver: Server;
let webhookUrl: string;
let client: FlutterwaveClient;
let fastClient: FlutterwaveClient;

before(async () => {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const hash = req.headers['verif-hash'];
      received.push({
        headers: { 'verif-hash': Array.isArray(hash) ? hash[0] : hash },
        body: JSON.parse(text),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/flutterwave`;
  // 0.1: a refund stays pending 200 ms; fastSim (0.001) times a silent card out after 300 ms.
  sim = await startSimulator({ timeScale: 0.1, callbackUrls: { card: webhookUrl } });
  fastSim = await startSimulator({ timeScale: 0.001, callbackUrls: { card: webhookUrl } });
  client = createFlutterwaveClient(sim.part('card').settings);
  fastClient = createFlutterwaveClient(fastSim.part('card').settings);
});
after(async () => {
  await sim.close();
  await fastSim.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

function hosted(overrides: Partial<HostedPaymentRequest> = {}): HostedPaymentRequest {
  return {
    reference: randomUUID(),
    amount: 15_000,
    currency: 'UGX',
    redirectUrl: RETURN_URL,
    customer: { email: 'amina@example.org', name: 'Amina Nakato', phone: '256770000001' },
    title: 'Kampala 10K & fun run',
    ...overrides,
  };
}

async function created(c: FlutterwaveClient, req: HostedPaymentRequest): Promise<string> {
  return linkOf(await c.createPayment(req));
}

function linkOf(result: CreatePaymentResult): string {
  assert.equal(result.kind, 'created', JSON.stringify(result));
  return result.kind === 'created' ? result.link : '';
}

function refundIdOf(sent: FlutterwaveRefundSubmit): string {
  assert.equal(sent.kind, 'submitted', JSON.stringify(sent));
  return sent.kind === 'submitted' ? sent.refundId : '';
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

/** A 303's Location, absolute. */
function locationOf(response: Response, from: string): string {
  assert.equal(response.status, 303);
  return new URL(response.headers.get('location')!, from).toString();
}

/** The buyer's way back: the redirect_url with the hint in its query. */
function backHome(location: string): ReturnHint {
  assert.ok(location.startsWith('http://127.0.0.1:9/checkout/return?'), location);
  const url = new URL(location);
  assert.equal(url.searchParams.get('order'), 'ord_1');
  const hint = parseFlutterwaveReturn(url.searchParams);
  assert.ok(hint);
  return hint;
}

/** Types a card into the hosted page (and the OTP when asked); returns where the buyer lands. */
async function payByCard(link: string, card: string, otp?: string): Promise<string> {
  const page = await fetch(link);
  assert.equal(page.status, 200);
  await page.text();
  const answer = await fetch(link, form({ card_number: card, expiry: '12/30', cvv: '123' }));
  const next = locationOf(answer, link);
  if (otp === undefined) return next;
  assert.equal(next, link, 'the 3-D Secure step is on the hosted page');
  const otpPage = await fetch(next);
  const html = await otpPage.text();
  assert.match(html, /<label for="otp">/);
  return locationOf(await fetch(`${link}/otp`, form({ otp })), link);
}

const expected = (req: HostedPaymentRequest) => ({
  reference: req.reference,
  amount: req.amount,
  currency: req.currency,
});

async function verifyUntilFinal(c: FlutterwaveClient, req: HostedPaymentRequest, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await c.verify(expected(req));
    if (status.status !== 'pending' || Date.now() > deadline) return status;
    await sleep(20);
  }
}

describe('the hosted payment page', () => {
  test('create answers a link to the page: accessible, script-free, listing the test cards', async () => {
    const req = hosted();
    const link = await created(client, req);
    assert.ok(link.startsWith(`${sim.url}/flutterwave/pay/`), link);
    const page = await fetch(link);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.doesNotMatch(html, /<script/i);
    for (const field of ['card_number', 'expiry', 'cvv']) {
      assert.match(html, new RegExp(`<label for="${field}">`));
      assert.match(html, new RegExp(`<input id="${field}" name="${field}"`));
    }
    for (const number of Object.values(CARDS)) assert.ok(html.includes(number), number);
    // The client cleans the title ("&" is among what providers refuse).
    assert.match(html, /<h1>Kampala 10K fun run<\/h1>/);
    assert.match(html, /UGX 15000/);
  });

  test('the page shows what the merchant sent as text, never as markup', async () => {
    const answer = await fetch(`${sim.part('card').settings.baseUrl}/v3/payments`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${sim.part('card').settings.secretKey}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        tx_ref: randomUUID(),
        amount: 1000,
        currency: 'UGX',
        redirect_url: RETURN_URL,
        customer: { email: 'a@example.org' },
        customizations: { title: '<img src=x onerror=alert(1)>' },
      }),
    });
    const { data } = (await answer.json()) as { data: { link: string } };
    const html = await (await fetch(data.link)).text();
    assert.ok(html.includes('<h1>&#60;img src=x onerror=alert(1)&#62;</h1>'));
    assert.doesNotMatch(html, /<img/);
  });

  test('before the card is typed, verify finds nothing', async () => {
    const req = hosted();
    await created(client, req);
    assert.deepEqual(await client.verify(expected(req)), { status: 'not_found' });
  });

  test('the same tx_ref again gets the same page; another amount under it is refused', async () => {
    const req = hosted();
    const link = await created(client, req);
    assert.equal(await created(client, req), link);
    const other = await client.createPayment({ ...req, amount: 20_000 });
    assert.equal(other.kind, 'rejected');
    assert.match(other.kind === 'rejected' ? other.message : '', /Duplicate transaction reference/);
  });

  test('a number that is not a test card, or a bad expiry, is refused on the page and charges nothing', async () => {
    const req = hosted();
    const link = await created(client, req);
    const wrong = await fetch(
      link,
      form({ card_number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' }),
    );
    assert.equal(wrong.status, 422);
    const html = await wrong.text();
    assert.match(html, /role="alert"/);
    assert.match(html, /not a test card/);
    const expiry = await fetch(link, form({ card_number: CARDS.success, expiry: '13/30', cvv: '123' }));
    assert.equal(expiry.status, 422);
    assert.match(await expiry.text(), /MM\/YY/);
    assert.deepEqual(await client.verify(expected(req)), { status: 'not_found' });
  });
});

describe('each test card, verified', () => {
  test('the success card: back with status=successful; verify pays, and the webhook names it', async () => {
    const req = hosted();
    const hint = backHome(await payByCard(await created(client, req), CARDS.success));
    assert.equal(hint.reference, req.reference);
    assert.equal(hint.status, 'successful');
    assert.ok(hint.transactionId);
    assert.deepEqual(await client.verify(expected(req)), {
      status: 'successful',
      amount: 15_000,
      currency: 'UGX',
      providerTransactionId: hint.transactionId,
    });
    const hook = await waitForWebhook(req.reference);
    assert.equal(hook.headers['verif-hash'], HASH);
    assert.deepEqual(readFlutterwaveWebhook(hook.headers['verif-hash'], hook.body, HASH), {
      kind: 'verify',
      reference: req.reference,
    });
    // The simulator records the delivery once our answer to it is read.
    const delivered = () =>
      sim
        .part('card')
        .webhooks()
        .filter((w) => w.reference === req.reference);
    for (let i = 0; i < 100 && delivered().length === 0; i++) await sleep(10);
    assert.deepEqual(delivered(), [{ reference: req.reference, url: webhookUrl, status: 200 }]);
  });

  test('the 3-D Secure card: pending at the OTP step, successful after the right OTP', async () => {
    const req = hosted();
    const link = await created(client, req);
    const answer = await fetch(link, form({ card_number: CARDS.otp, expiry: '01/29', cvv: '321' }));
    assert.equal(locationOf(answer, link), link);
    assert.deepEqual(await client.verify(expected(req)), { status: 'pending' });
    const back = locationOf(await fetch(`${link}/otp`, form({ otp: '12345' })), link);
    assert.equal(backHome(back).status, 'successful');
    assert.equal((await client.verify(expected(req))).status, 'successful');
  });

  test('the 3-D Secure card with a wrong OTP is declined', async () => {
    const req = hosted();
    const hint = backHome(await payByCard(await created(client, req), CARDS.otp, '00000'));
    assert.equal(hint.status, 'failed');
    const status = await client.verify(expected(req));
    assert.equal(status.status, 'failed');
    assert.equal(status.status === 'failed' && status.failureKind, 'payment_declined');
    assert.match(status.status === 'failed' ? status.message : '', /incorrect OTP/);
  });

  test('the insufficient-funds card fails as insufficient_funds, the processor words kept', async () => {
    const req = hosted();
    assert.equal(backHome(await payByCard(await created(client, req), CARDS.insufficient)).status, 'failed');
    const status = await client.verify(expected(req));
    assert.deepEqual(status.status === 'failed' && [status.failureKind, status.message], [
      'insufficient_funds',
      'Insufficient funds',
    ]);
  });

  test('the card its issuer declines fails as payment_declined', async () => {
    const req = hosted();
    assert.equal(backHome(await payByCard(await created(client, req), CARDS.issuer)).status, 'failed');
    const status = await client.verify(expected(req));
    assert.equal(status.status === 'failed' && status.failureKind, 'payment_declined');
    assert.match(status.status === 'failed' ? status.message : '', /do not honour/);
  });

  test('the card that never completes stays pending, then fails as payment_timeout', async () => {
    const req = hosted();
    const hint = backHome(await payByCard(await created(fastClient, req), CARDS.never));
    assert.equal(hint.status, 'pending');
    assert.deepEqual(await fastClient.verify(expected(req)), { status: 'pending' });
    const status = await verifyUntilFinal(fastClient, req);
    assert.equal(status.status === 'failed' && status.failureKind, 'payment_timeout');
    assert.equal((await waitForWebhook(req.reference)).body.data?.status, 'failed');
  });

  test('Cancel sends the buyer back with status=cancelled and nothing to verify', async () => {
    const req = hosted();
    const link = await created(client, req);
    const back = locationOf(await fetch(`${link}/cancel`, { redirect: 'manual' }), link);
    const hint = backHome(back);
    assert.deepEqual([hint.status, hint.transactionId], ['cancelled', null]);
    assert.deepEqual(await client.verify(expected(req)), { status: 'not_found' });
  });
});

describe('verify is the only truth', () => {
  test('an amount below ours or another currency is never successful; more than asked is', async () => {
    const req = hosted();
    await payByCard(await created(client, req), CARDS.success);
    const more = await client.verify({ ...expected(req), amount: 20_000 });
    assert.equal(more.status, 'failed');
    assert.equal(more.status === 'failed' && more.providerCode, 'amount_mismatch');
    const currency = await client.verify({ ...expected(req), currency: 'KES' });
    assert.equal(currency.status, 'failed');
    assert.equal((await client.verify({ ...expected(req), amount: 10_000 })).status, 'successful');
  });

  test('a forged webhook never pays: a wrong hash is refused, a right one only prompts a verify', async () => {
    const req = hosted();
    await created(client, req);
    const forged = {
      event: 'charge.completed',
      data: { id: 1, tx_ref: req.reference, status: 'successful', amount: 15_000, currency: 'UGX' },
    };
    assert.deepEqual(readFlutterwaveWebhook('guessed-hash', forged, HASH), { kind: 'refused' });
    assert.deepEqual(readFlutterwaveWebhook(undefined, forged, HASH), { kind: 'refused' });
    const reading = readFlutterwaveWebhook(HASH, forged, HASH);
    assert.deepEqual(reading, { kind: 'verify', reference: req.reference });
    // What the webhook claimed counts for nothing: the buyer never paid.
    assert.deepEqual(await client.verify(expected(req)), { status: 'not_found' });
  });

  test('the webhook hash check: right, wrong, missing, empty', () => {
    assert.equal(webhookHashMatches(HASH, HASH), true);
    assert.equal(webhookHashMatches(`${HASH}x`, HASH), false);
    assert.equal(webhookHashMatches(HASH.toUpperCase(), HASH), false);
    assert.equal(webhookHashMatches(undefined, HASH), false);
    assert.equal(webhookHashMatches('', ''), false);
    const body = { event: 'charge.completed', data: { tx_ref: 'ord-1' } };
    assert.deepEqual(readFlutterwaveWebhook(HASH, body, HASH), { kind: 'ignored' });
    assert.deepEqual(readFlutterwaveWebhook(HASH, { event: 'transfer.completed' }, HASH), {
      kind: 'ignored',
    });
  });

  test('the return is read as a hint: our tx_ref or nothing', () => {
    const ref = randomUUID();
    assert.deepEqual(parseFlutterwaveReturn(`status=successful&tx_ref=${ref}&transaction_id=288200108`), {
      reference: ref,
      status: 'successful',
      transactionId: '288200108',
    });
    assert.equal(parseFlutterwaveReturn('status=successful&tx_ref=not-ours'), null);
    assert.equal(parseFlutterwaveReturn('status=successful'), null);
    assert.equal(parseFlutterwaveReturn(`tx_ref=${ref}&transaction_id=1;drop`)?.transactionId, null);
  });
});

describe('refunds', () => {
  async function paid(): Promise<Omit<RefundRequest, 'reference' | 'amount'>> {
    const req = hosted();
    await payByCard(await created(client, req), CARDS.success);
    const status = await client.verify(expected(req));
    assert.equal(status.status, 'successful');
    return {
      paymentReference: req.reference,
      providerTransactionId: status.status === 'successful' ? status.providerTransactionId : null,
      paymentAmount: 15_000,
      msisdn: '256770000001',
      currency: 'UGX',
      description: 'Refund',
    };
  }

  async function refundUntilFinal(refundId: string) {
    const seen: string[] = [];
    const deadline = Date.now() + 3_000;
    for (;;) {
      const status = await client.getRefundStatus(refundId);
      seen.push(status.status);
      if (status.status !== 'pending' || Date.now() > deadline) return { status, seen };
      await sleep(20);
    }
  }

  test('a full refund is submitted, pending, then succeeded', async () => {
    const payment = await paid();
    const sent = await client.requestRefund({ ...payment, reference: randomUUID(), amount: 15_000 });
    const refundId = refundIdOf(sent);
    const { status, seen } = await refundUntilFinal(refundId);
    assert.equal(seen[0], 'pending');
    assert.deepEqual(status, { status: 'succeeded', providerReference: refundId });
    const again = await client.requestRefund({ ...payment, reference: randomUUID(), amount: 1 });
    assert.equal(again.kind, 'rejected');
    assert.match(again.kind === 'rejected' ? again.message : '', /fully refunded/);
  });

  test('parts are refunded until nothing is left; a part above what is left is refused', async () => {
    const payment = await paid();
    const first = await client.requestRefund({ ...payment, reference: randomUUID(), amount: 5_000 });
    assert.equal(first.kind, 'submitted');
    const tooMuch = await client.requestRefund({ ...payment, reference: randomUUID(), amount: 10_001 });
    assert.equal(tooMuch.kind, 'rejected');
    const second = await client.requestRefund({ ...payment, reference: randomUUID(), amount: 10_000 });
    assert.equal(second.kind, 'submitted');
    for (const sent of [first, second]) {
      const { status } = await refundUntilFinal(refundIdOf(sent));
      assert.equal(status.status, 'succeeded');
    }
  });

  test('refused before sending: no transaction id, more than the payment; an unknown refund is not_found', async () => {
    const payment = await paid();
    const before = sim.requestCount();
    const noId = await client.requestRefund({
      ...payment,
      providerTransactionId: null,
      reference: randomUUID(),
      amount: 1_000,
    });
    assert.equal(noId.kind, 'rejected');
    const above = await client.requestRefund({ ...payment, reference: randomUUID(), amount: 15_001 });
    assert.equal(above.kind, 'rejected');
    assert.equal(sim.requestCount(), before);
    assert.deepEqual(await client.getRefundStatus('999999999999'), { status: 'not_found' });
  });
});

describe('a provider that refuses, is unreachable or is silent', () => {
  let closedPort: string;
  let silent: Server;
  let silentUrl: string;

  before(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    // Reads every request and never answers.
    silent = createServer((req) => req.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  after(async () => {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  const refundOf = (): RefundRequest => ({
    reference: randomUUID(),
    paymentReference: randomUUID(),
    providerTransactionId: '12345',
    amount: 1_000,
    paymentAmount: 15_000,
    msisdn: '256770000001',
    currency: 'UGX',
    description: 'Refund',
  });

  const failsWith = (kind: string) => (error: unknown) =>
    error instanceof PaymentProviderError && error.kind === kind && error.method === 'card';

  test('a wrong secret key: creation rejected, verify fails auth_failed', async () => {
    const wrong = createFlutterwaveClient({ ...sim.part('card').settings, secretKey: 'FLWSECK_TEST-wrong' });
    const req = hosted();
    const result = await wrong.createPayment(req);
    assert.equal(result.kind, 'rejected');
    assert.equal(result.kind === 'rejected' && result.failureKind, 'provider_error');
    assert.doesNotMatch(result.kind === 'rejected' ? result.message : '', /FLWSECK/);
    await assert.rejects(wrong.verify(expected(req)), failsWith('auth_failed'));
  });

  test('nobody listening: creation and refund unknown (ask), queries fail unreachable', async () => {
    const c = createFlutterwaveClient({ ...sim.part('card').settings, baseUrl: closedPort });
    const req = hosted();
    assert.equal((await c.createPayment(req)).kind, 'unknown');
    await assert.rejects(c.verify(expected(req)), failsWith('unreachable'));
    assert.equal((await c.requestRefund(refundOf())).kind, 'unknown');
    await assert.rejects(c.getRefundStatus('12345'), failsWith('unreachable'));
  });

  test('no answer in time: creation unknown, verify fails timeout', async () => {
    const c = createFlutterwaveClient({ ...sim.part('card').settings, baseUrl: silentUrl, timeoutMs: 200 });
    const req = hosted();
    const result = await c.createPayment(req);
    assert.equal(result.kind, 'unknown');
    assert.match(result.kind === 'unknown' ? result.message : '', /no answer within 200 ms/);
    await assert.rejects(c.verify(expected(req)), failsWith('timeout'));
  });

  test('refused before any call: a reference not UUID v4 throws; below the minimum, another currency', async () => {
    const before = sim.requestCount();
    await assert.rejects(client.createPayment(hosted({ reference: 'ord-1' })), TypeError);
    const small = await client.createPayment(hosted({ amount: 499 }));
    assert.deepEqual(small, {
      kind: 'rejected',
      failureKind: 'provider_error',
      message: 'amount below the provider minimum',
    });
    assert.equal((await client.createPayment(hosted({ currency: 'EUR' }))).kind, 'rejected');
    assert.equal(sim.requestCount(), before);
  });
});

describe('answer readings (tables)', () => {
  const ref = '2b1d6f0e-6c1a-4c55-9f3b-1f3e8a3c2d10';
  const ask = { reference: ref, amount: 15_000, currency: 'UGX' };
  const tx = (data: Record<string, unknown>) => ({
    status: 'success',
    data: { id: 77, tx_ref: ref, status: 'successful', amount: 15_000, currency: 'UGX', ...data },
  });

  const cases: Array<[string, number, unknown, StatusResult | { status: 'unreadable' }]> = [
    [
      'successful and matching',
      200,
      tx({}),
      { status: 'successful', amount: 15_000, currency: 'UGX', providerTransactionId: '77' },
    ],
    [
      'successful, amount as a string',
      200,
      tx({ amount: '15000.00' }),
      { status: 'successful', amount: 15_000, currency: 'UGX', providerTransactionId: '77' },
    ],
    ['pending', 200, tx({ status: 'pending' }), { status: 'pending' }],
    ['a status added later', 200, tx({ status: 'on-hold' }), { status: 'pending' }],
    [
      'not found (400)',
      400,
      { status: 'error', message: 'No transaction was found for this id', data: null },
      { status: 'not_found' },
    ],
    ['not found (404)', 404, { status: 'error', message: 'Not found' }, { status: 'not_found' }],
    ['another tx_ref', 200, tx({ tx_ref: randomUUID() }), { status: 'unreadable' }],
    ['no data', 200, { status: 'success' }, { status: 'unreadable' }],
    ['a 400 of another kind', 400, { status: 'error', message: 'Invalid tx_ref' }, { status: 'unreadable' }],
  ];
  for (const [name, httpStatus, body, want] of cases) {
    test(`verify: ${name}`, () => {
      const got = readVerify(httpStatus, body, ask);
      if (want.status === 'unreadable') assert.equal(got.status, 'unreadable');
      else assert.deepEqual(got, want);
    });
  }

  test('verify: a successful charge that does not match is a failure', () => {
    for (const data of [
      { amount: 14_999 },
      { currency: 'KES' },
      { amount: 'lots' },
      { currency: undefined },
    ]) {
      const got = readVerify(200, tx(data), ask);
      assert.equal(got.status, 'failed', JSON.stringify(data));
      assert.equal(got.status === 'failed' && got.providerCode, 'amount_mismatch');
    }
  });

  const kinds: Array<[string | undefined, string]> = [
    ['Insufficient funds', 'insufficient_funds'],
    ['Declined by the card issuer: do not honour', 'payment_declined'],
    ['Declined: incorrect OTP', 'payment_declined'],
    ['Expired card', 'payment_declined'],
    ['Transaction timed out', 'payment_timeout'],
    ['Invalid phone number', 'invalid_phone_number'],
    ['System malfunction', 'provider_error'],
    [undefined, 'provider_error'],
  ];
  for (const [words, kind] of kinds) {
    test(`failure kind: ${words ?? '(none)'} -> ${kind}`, () => {
      assert.equal(failureKindOf(words), kind);
      const got = readVerify(200, tx({ status: 'failed', processor_response: words }), ask);
      assert.equal(got.status === 'failed' && got.failureKind, kind);
    });
  }

  test('refund status', () => {
    const data = (status: string) => ({ status: 'success', data: { id: 9, status } });
    assert.deepEqual(readRefundStatus(200, data('completed')), {
      status: 'succeeded',
      providerReference: '9',
    });
    assert.deepEqual(readRefundStatus(200, data('pending')), { status: 'pending' });
    assert.equal(readRefundStatus(200, data('failed'))?.status, 'failed');
    assert.deepEqual(readRefundStatus(404, { status: 'error' }), { status: 'not_found' });
    assert.equal(readRefundStatus(200, { status: 'error' }), null);
  });
});

/** The webhook the simulator posted for a reference (its headers and body). */
async function waitForWebhook(reference: string) {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const hit = hooks().find((h) => h.body?.data?.tx_ref === reference);
    if (hit || Date.now() > deadline) {
      assert.ok(hit, `no webhook for ${reference}`);
      return hit;
    }
    await sleep(10);
  }
}
