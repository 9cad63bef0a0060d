// Airtel partial refunds, paid back as disbursements: the request as a fake Airtel on loopback sees
// it (headers, body, the PIN decrypting under a key pair made here), its status enquiry, the whole
// refund still going through the refund API; the settings (live mode refuses parts without them);
// the simulator's disbursements through the adapter (parts until nothing is left, its scenarios,
// its checks); then the answer mappings as tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, generateKeyPairSync, privateDecrypt, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  mapAirtelDisbursementEnquiry,
  mapAirtelDisbursementSubmit,
} from '../../src/payments/methods/airtel/airtel-status.ts';
import {
  AIRTEL_PARTIAL_REFUSED,
  airtelPublicKey,
  createAirtelProvider,
  type AirtelConfig,
} from '../../src/payments/methods/airtel/airtel.ts';
import { createPaymentGateway } from '../../src/payments/gateway.ts';
import type { PaymentProvider, RefundRequest } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { msisdnFor, paymentRequest, pollUntilFinal, sleep } from './payments-helpers.ts';
import { AIRTEL_SIM_CREDENTIALS } from '../../src/payments/methods/airtel/sim-credentials.ts';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const der = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

interface AirtelCall {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A fake Airtel on loopback: a token, then what `answer` says for each call, every call kept. */
async function startFakeAirtel(answer: (call: AirtelCall) => unknown) {
  const calls: AirtelCall[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const call = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : {},
      };
      calls.push(call);
      const body = call.path.startsWith('/auth/')
        ? { access_token: 'fake-token', expires_in: '180', token_type: 'bearer' }
        : answer(call);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const accepted = (status: string) => ({
  data: { transaction: { id: 'x', airtel_money_id: status === 'TS' ? 'AM42' : null, status } },
  status: {
    code: '200',
    message: 'SUCCESS',
    result_code: 'ESB000010',
    response_code: 'DP00900001001',
    success: true,
  },
});

const fakeConfig = (url: string, disbursement?: AirtelConfig['disbursement']): AirtelConfig => ({
  baseUrl: url,
  clientId: 'id',
  clientSecret: 'secret',
  country: 'UG',
  currency: 'UGX',
  ...(disbursement && { disbursement }),
});

const refundOf = (amount: number): RefundRequest => ({
  reference: randomUUID(),
  paymentReference: randomUUID(),
  providerTransactionId: 'AM1',
  amount,
  paymentAmount: 15_000,
  msisdn: '256700000001',
  currency: 'UGX',
  description: 'Refund of your ticket payment',
});

describe('the disbursement as Airtel sees it', () => {
  for (const [form, publicKey] of [
    ['PEM', pem],
    ['base64 DER', der],
  ] as const) {
    test(`a part is a B2C disbursement to the payer with the PIN encrypted (key as ${form})`, async () => {
      const airtel = await startFakeAirtel(() => accepted('TS'));
      try {
        const provider = createAirtelProvider(fakeConfig(airtel.url, { pin: '4921', publicKey }));
        assert.equal(provider.partialRefundsRefused, undefined);
        const req = refundOf(5_000);
        assert.deepEqual(await provider.requestRefund(req), { kind: 'submitted' });
        assert.deepEqual(await provider.getRefundStatus(req), {
          status: 'succeeded',
          providerReference: 'AM42',
        });
        const [, sent, asked] = airtel.calls;
        assert.equal(airtel.calls.length, 3);
        assert.equal(sent!.method, 'POST');
        assert.equal(sent!.path, '/standard/v1/disbursements/');
        assert.equal(sent!.headers['x-country'], 'UG');
        assert.equal(sent!.headers['x-currency'], 'UGX');
        assert.equal(sent!.headers.authorization, 'Bearer fake-token');
        assert.match(String(sent!.headers['content-type']), /application\/json/);
        const { pin, ...rest } = sent!.body;
        assert.deepEqual(rest, {
          payee: { msisdn: '700000001', wallet_type: 'NORMAL' },
          reference: `Refund ${req.paymentReference}`,
          transaction: { amount: 5_000, id: req.reference, type: 'B2C' },
        });
        const clear = privateDecrypt(
          { key: keys.privateKey, padding: constants.RSA_PKCS1_PADDING },
          Buffer.from(pin as string, 'base64'),
        );
        assert.equal(clear.toString(), '4921');
        assert.equal(Buffer.from(pin as string, 'base64').length, 256); // one RSA-2048 block
        assert.equal(asked!.method, 'GET');
        assert.equal(asked!.path, `/standard/v1/disbursements/${req.reference}`);
        assert.equal(asked!.headers['x-country'], 'UG');
        assert.equal(asked!.headers.authorization, 'Bearer fake-token');
      } finally {
        await airtel.close();
      }
    });
  }

  test('the whole payment still goes through the refund API, naming the airtel_money_id', async () => {
    const airtel = await startFakeAirtel(() => accepted('TS'));
    try {
      const provider = createAirtelProvider(fakeConfig(airtel.url, { pin: '4921', publicKey: pem }));
      const req = refundOf(15_000);
      assert.deepEqual(await provider.requestRefund(req), { kind: 'submitted' });
      await provider.getRefundStatus(req);
      assert.deepEqual(
        airtel.calls.slice(1).map((c) => [c.method, c.path]),
        [
          ['POST', '/standard/v1/payments/refund'],
          ['GET', `/standard/v1/payments/${req.reference}`],
        ],
      );
      assert.deepEqual(airtel.calls[1]!.body, { transaction: { airtel_money_id: 'AM1', id: req.reference } });
    } finally {
      await airtel.close();
    }
  });

  test('without the disbursement settings a part is refused before any call; the whole still works', async () => {
    const airtel = await startFakeAirtel(() => accepted('TS'));
    try {
      const provider = createAirtelProvider(fakeConfig(airtel.url));
      assert.equal(provider.partialRefundsRefused, AIRTEL_PARTIAL_REFUSED);
      assert.match(AIRTEL_PARTIAL_REFUSED, /disbursement settings/);
      assert.deepEqual(await provider.requestRefund(refundOf(5_000)), {
        kind: 'rejected',
        message: AIRTEL_PARTIAL_REFUSED,
      });
      assert.equal(airtel.calls.length, 0);
      assert.deepEqual(await provider.requestRefund(refundOf(15_000)), { kind: 'submitted' });
    } finally {
      await airtel.close();
    }
  });

  test('a part whose payer number was erased is refused: there is no one to pay', async () => {
    const provider = createAirtelProvider(fakeConfig('http://127.0.0.1:9', { pin: '4921', publicKey: pem }));
    const sent = await provider.requestRefund({ ...refundOf(5_000), msisdn: 'erased' });
    assert.equal(sent.kind, 'rejected');
  });

  test('both key forms read as the same key; anything else throws', () => {
    assert.ok(airtelPublicKey(pem).equals(airtelPublicKey(der)));
    assert.throws(() => airtelPublicKey('not a key'));
  });
});

describe('the Airtel disbursement settings', () => {
  const live = {
    NODE_ENV: 'test',
    PAYMENT_PROVIDER: 'live',
    MOMO_BASE_URL: 'http://127.0.0.1:9',
    MOMO_SUBSCRIPTION_KEY: 'k',
    MOMO_API_USER: 'u',
    MOMO_API_KEY: 'k',
    AIRTEL_BASE_URL: 'http://127.0.0.1:9',
    AIRTEL_CLIENT_ID: 'id',
    AIRTEL_CLIENT_SECRET: 'secret',
  };

  test('live without them: the Airtel adapter refuses parts; with them it takes them', async () => {
    const without = await createPaymentGateway(loadConfig(live), createLogger('silent'));
    assert.equal(without.gateway.providers.airtel.partialRefundsRefused, AIRTEL_PARTIAL_REFUSED);
    await without.close();
    const config = loadConfig({ ...live, AIRTEL_DISBURSEMENT_PIN: '4921', AIRTEL_PUBLIC_KEY: der });
    assert.deepEqual(config.payments.methods.airtel.live?.disbursement, { pin: '4921', publicKey: der });
    const withThem = await createPaymentGateway(config, createLogger('silent'));
    assert.equal(withThem.gateway.providers.airtel.partialRefundsRefused, undefined);
    await withThem.close();
  });

  test('one without the other, a key that is not RSA, a PIN not of 4 digits: the start is refused', () => {
    assert.throws(() => loadConfig({ ...live, AIRTEL_DISBURSEMENT_PIN: '4921' }), /set together/);
    assert.throws(() => loadConfig({ ...live, AIRTEL_PUBLIC_KEY: pem }), /set together/);
    assert.throws(
      () => loadConfig({ ...live, AIRTEL_DISBURSEMENT_PIN: '4921', AIRTEL_PUBLIC_KEY: 'bm90IGEga2V5' }),
      (error) => error instanceof ConfigError && /AIRTEL_PUBLIC_KEY/.test(error.message),
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    assert.throws(
      () => loadConfig({ ...live, AIRTEL_DISBURSEMENT_PIN: '4921', AIRTEL_PUBLIC_KEY: ec.toString() }),
      /AIRTEL_PUBLIC_KEY/,
    );
    assert.throws(
      () => loadConfig({ ...live, AIRTEL_DISBURSEMENT_PIN: '49a1', AIRTEL_PUBLIC_KEY: pem }),
      /AIRTEL_DISBURSEMENT_PIN/,
    );
  });

  test('the simulator gives its adapters the disbursement settings', async () => {
    const { gateway, close } = await createPaymentGateway(
      loadConfig({ NODE_ENV: 'test', PAYMENT_PROVIDER: 'simulator' }),
      createLogger('silent'),
    );
    assert.equal(gateway.providers.airtel.partialRefundsRefused, undefined);
    await close();
  });
});

describe('disbursements through the simulator', () => {
  let sim: Simulator;
  let airtel: PaymentProvider;
  before(async () => {
    // 0.01: a pending refund (scenarios 22 and 23) settles after 300 ms.
    sim = await startSimulator({ timeScale: 0.01 });
    airtel = createAirtelProvider(sim.part('airtel').settings);
  });
  after(() => sim.close());

  async function paid(code: string): Promise<Omit<RefundRequest, 'reference' | 'amount'>> {
    const payment = paymentRequest({ msisdn: msisdnFor('airtel', code), amount: 15_000 });
    assert.equal((await airtel.requestPayment(payment)).kind, 'submitted');
    sim.approve(payment.reference);
    const { status } = await pollUntilFinal(airtel, payment.reference);
    assert.equal(status.status, 'successful');
    return {
      paymentReference: payment.reference,
      providerTransactionId: status.status === 'successful' ? status.providerTransactionId : null,
      paymentAmount: 15_000,
      msisdn: payment.msisdn,
      currency: 'UGX',
      description: 'Refund of your ticket payment',
    };
  }

  async function untilFinal(req: RefundRequest) {
    const seen: string[] = [];
    const deadline = Date.now() + 3_000;
    for (;;) {
      const status = await airtel.getRefundStatus(req);
      seen.push(status.status);
      if (status.status === 'succeeded' || status.status === 'failed' || Date.now() > deadline) {
        return { status, seen };
      }
      await sleep(20);
    }
  }

  const partsOf = (paymentReference: string) =>
    sim
      .refunds()
      .filter((r) => r.paymentReference === paymentReference)
      .map((r) => [r.amount, r.state]);

  test('parts of a payment go back, each for its amount, until nothing is left', async () => {
    const payment = await paid('01');
    const first = { ...payment, reference: randomUUID(), amount: 5_000 };
    assert.deepEqual(await airtel.requestRefund(first), { kind: 'submitted' });
    const { status } = await untilFinal(first);
    assert.equal(status.status, 'succeeded');
    assert.match(status.status === 'succeeded' ? String(status.providerReference) : '', /^DSIM\d+$/);
    // A resend under the same reference is taken once.
    assert.deepEqual(await airtel.requestRefund(first), { kind: 'submitted' });
    const second = { ...payment, reference: randomUUID(), amount: 9_999 };
    assert.deepEqual(await airtel.requestRefund(second), { kind: 'submitted' });
    assert.equal((await untilFinal(second)).status.status, 'succeeded');
    assert.equal(
      (await airtel.requestRefund({ ...payment, reference: randomUUID(), amount: 2 })).kind,
      'rejected',
    );
    const last = { ...payment, reference: randomUUID(), amount: 1 };
    assert.deepEqual(await airtel.requestRefund(last), { kind: 'submitted' });
    assert.deepEqual(partsOf(payment.paymentReference), [
      [5_000, 'successful'],
      [9_999, 'successful'],
      [1, 'successful'],
    ]);
    // The disbursement is not a collection refund: the payments enquiry does not know it.
    assert.equal((await airtel.getRefundStatus({ ...last, amount: 15_000 })).status, 'not_found');
  });

  test('scenario 21: refused at once, nothing moves; scenario 23: pending, then failed', async () => {
    const refused = { ...(await paid('21')), reference: randomUUID(), amount: 5_000 };
    assert.equal((await airtel.requestRefund(refused)).kind, 'rejected');
    const later = { ...(await paid('23')), reference: randomUUID(), amount: 5_000 };
    assert.deepEqual(await airtel.requestRefund(later), { kind: 'submitted' });
    const { status, seen } = await untilFinal(later);
    assert.equal(status.status, 'failed');
    assert.equal(seen[0], 'pending');
  });

  test('a disbursement never sent is not_found', async () => {
    const req = { ...(await paid('01')), reference: randomUUID(), amount: 5_000 };
    assert.deepEqual(await airtel.getRefundStatus(req), { status: 'not_found' });
  });

  test('the simulator checks the body: PIN, type, payee, amount, the payment named', async () => {
    const payment = await paid('01');
    const token = await fetch(`${sim.url}/airtel/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: AIRTEL_SIM_CREDENTIALS.clientId,
        client_secret: AIRTEL_SIM_CREDENTIALS.clientSecret,
        grant_type: 'client_credentials',
      }),
    }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    const good = {
      payee: { msisdn: payment.msisdn.slice(3), wallet_type: 'NORMAL' },
      reference: `Refund ${payment.paymentReference}`,
      pin: 'c2VjcmV0',
      transaction: { amount: 500, id: randomUUID(), type: 'B2C' },
    };
    const send = async (body: unknown) => {
      const res = await fetch(`${sim.url}/airtel/standard/v1/disbursements/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'x-country': 'UG',
          'x-currency': 'UGX',
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { status: Record<string, unknown> } };
    };
    const bad: unknown[] = [
      { ...good, pin: '' },
      { ...good, pin: undefined },
      { ...good, transaction: { ...good.transaction, type: 'B2B' } },
      { ...good, transaction: { ...good.transaction, amount: 0 } },
      { ...good, payee: { msisdn: payment.msisdn } },
      { ...good, reference: 'Refund' },
    ];
    for (const body of bad) assert.equal((await send(body)).status, 400, JSON.stringify(body));
    const stranger = await send({ ...good, payee: { msisdn: '700000099', wallet_type: 'NORMAL' } });
    assert.equal(stranger.body.status.result_code, 'ESB000045');
    assert.equal(partsOf(payment.paymentReference).length, 0);
    const ok = await send(good);
    assert.equal(ok.body.status.success, true);
    assert.equal((await send(good)).body.status.result_code, 'ESB000041');
    assert.deepEqual(partsOf(payment.paymentReference), [[500, 'successful']]);
  });
});

describe('disbursement answer mappings', () => {
  test('the disbursement answer', () => {
    const table: Array<[unknown, string | null]> = [
      [{ status: { success: true, response_code: 'DP00900001001' } }, 'submitted'],
      [{ status: { success: 'true' } }, 'submitted'],
      [{ status: { success: false, result_code: 'ESB000041' } }, 'submitted'],
      [{ status: { success: false, response_code: 'DP00900001006' } }, 'unknown'],
      [{ status: { success: false, response_code: 'DP00900001000' } }, 'unknown'],
      [{ status: { success: false, response_code: 'DP00900001004', message: 'Invalid amount' } }, 'rejected'],
      [{ status: { success: false, result_code: 'ESB000039' } }, 'rejected'],
      [{}, null],
      ['x', null],
    ];
    for (const [body, expected] of table) {
      assert.equal(mapAirtelDisbursementSubmit(body)?.kind ?? null, expected, JSON.stringify(body));
    }
    assert.deepEqual(
      mapAirtelDisbursementSubmit({ status: { success: false, response_code: 'DP00900001004' } }),
      {
        kind: 'rejected',
        message: 'Airtel refused the disbursement.',
        providerCode: 'DP00900001004',
      },
    );
  });

  test('the disbursement enquiry: TS, TF, TIP, TA, not found', () => {
    const enquiry = (status: string, code = 'DP00900001001') => ({
      data: { transaction: { status, airtel_money_id: 'AM7' } },
      status: { response_code: code, success: true },
    });
    assert.deepEqual(mapAirtelDisbursementEnquiry(enquiry('TS')), {
      status: 'succeeded',
      providerReference: 'AM7',
    });
    assert.deepEqual(mapAirtelDisbursementEnquiry(enquiry('TF', 'DP00900001004')), {
      status: 'failed',
      message: 'Airtel reported the disbursement failed (DP00900001004).',
      providerCode: 'DP00900001004',
    });
    assert.deepEqual(mapAirtelDisbursementEnquiry(enquiry('TIP')), { status: 'pending' });
    assert.deepEqual(mapAirtelDisbursementEnquiry(enquiry('ta')), { status: 'pending' });
    assert.deepEqual(mapAirtelDisbursementEnquiry(enquiry('NEW')), { status: 'pending' });
    assert.deepEqual(mapAirtelDisbursementEnquiry({ status: { result_code: 'ESB000045' } }), {
      status: 'not_found',
    });
    assert.deepEqual(mapAirtelDisbursementEnquiry({ status: { response_code: 'DP00900001025' } }), {
      status: 'not_found',
    });
    assert.equal(mapAirtelDisbursementEnquiry({ status: { response_code: 'DP00900001004' } }), null);
    assert.equal(mapAirtelDisbursementEnquiry('x'), null);
  });
});
