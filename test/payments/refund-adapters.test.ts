// Refunds through both adapters against the simulator over real HTTP: MTN's Disbursement refund
// (its own subscription key and token) and Airtel's refund naming the airtel_money_id, each
// refund scenario (the payer number's last two digits), a resend under the same reference, a
// refund of nothing; the Disbursement credentials of the settings against a fake MTN on loopback;
// then the answer mappings as tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.ts';
import {
  mapAirtelRefundEnquiry,
  mapAirtelRefundSubmit,
} from '../../src/payments/methods/airtel/airtel-status.ts';
import { createAirtelProvider } from '../../src/payments/methods/airtel/airtel.ts';
import { mapMtnRefundStatus } from '../../src/payments/methods/momo/mtn-momo-status.ts';
import { createPaymentGateway } from '../../src/payments/gateway.ts';
import { createMtnMomoProvider } from '../../src/payments/methods/momo/mtn-momo.ts';
import type { PaymentProvider, RefundRequest } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { msisdnFor, paymentRequest, pollUntilFinal, sleep } from './payments-helpers.ts';
/** The two networks whose adapters these tests run against the simulator. */
type SimNetwork = 'momo' | 'airtel';

let sim: Simulator;
let providers: Record<SimNetwork, PaymentProvider>;

before(async () => {
  // 0.01: a pending refund (scenarios 22 and 23) settles after 300 ms; a payment after 30 ms.
  sim = await startSimulator({ timeScale: 0.01 });
  providers = {
    momo: createMtnMomoProvider(sim.part('momo').settings),
    airtel: createAirtelProvider(sim.part('airtel').settings),
  };
});
after(() => sim.close());

/** A payment from the scenario's number, approved; returns what a refund of it needs. */
async function paidPayment(method: SimNetwork, code: string): Promise<Omit<RefundRequest, 'reference'>> {
  const payment = paymentRequest({ msisdn: msisdnFor(method, code), amount: 15_000 });
  assert.equal((await providers[method].requestPayment(payment)).kind, 'submitted');
  sim.approve(payment.reference);
  const { status } = await pollUntilFinal(providers[method], payment.reference);
  assert.equal(status.status, 'successful');
  return {
    paymentReference: payment.reference,
    providerTransactionId: status.status === 'successful' ? status.providerTransactionId : null,
    amount: 15_000,
    paymentAmount: 15_000,
    msisdn: payment.msisdn,
    currency: 'UGX',
    description: 'Refund of your ticket payment',
  };
}

async function refundUntilFinal(method: SimNetwork, req: RefundRequest, timeoutMs = 3_000) {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await providers[method].getRefundStatus(req);
    seen.push(status.status);
    if (status.status === 'succeeded' || status.status === 'failed' || Date.now() > deadline) {
      return { status, seen };
    }
    await sleep(20);
  }
}

describe('MTN MoMo partial refunds through the simulator', () => {
  test('parts of a payment are refunded, each for its amount, until nothing is left', async () => {
    const paid = await paidPayment('momo', '01');
    const first = { ...paid, reference: randomUUID(), amount: 5_000 };
    assert.deepEqual(await providers.momo.requestRefund(first), { kind: 'submitted' });
    assert.equal((await refundUntilFinal('momo', first)).status.status, 'succeeded');
    const second = { ...paid, reference: randomUUID(), amount: 10_000 };
    assert.deepEqual(await providers.momo.requestRefund(second), { kind: 'submitted' });
    assert.equal((await refundUntilFinal('momo', second)).status.status, 'succeeded');
    assert.deepEqual(
      sim
        .refunds()
        .filter((r) => r.paymentReference === paid.paymentReference)
        .map((r) => r.amount),
      ['5000', '10000'],
    );
    const third = { ...paid, reference: randomUUID(), amount: 1 };
    assert.equal((await providers.momo.requestRefund(third)).kind, 'rejected');
  });

  test('a refund above what is left of the payment is refused and moves nothing', async () => {
    const paid = await paidPayment('momo', '01');
    const first = { ...paid, reference: randomUUID(), amount: 10_000 };
    assert.deepEqual(await providers.momo.requestRefund(first), { kind: 'submitted' });
    assert.equal((await refundUntilFinal('momo', first)).status.status, 'succeeded');
    const tooMuch = { ...paid, reference: randomUUID(), amount: 5_001 };
    const answer = await providers.momo.requestRefund(tooMuch);
    assert.equal(answer.kind, 'rejected');
    assert.equal(sim.refunds().filter((r) => r.reference === tooMuch.reference).length, 0);
  });
});

for (const method of ['momo', 'airtel'] as const) {
  describe(`${method} refunds through the simulator`, () => {
    test('a refund of a successful payment succeeds and names the network id of the refund', async () => {
      const req = { ...(await paidPayment(method, '01')), reference: randomUUID() };
      assert.deepEqual(await providers[method].requestRefund(req), { kind: 'submitted' });
      const { status } = await refundUntilFinal(method, req);
      assert.equal(status.status, 'succeeded');
      assert.ok(status.status === 'succeeded' && status.providerReference);
      assert.deepEqual(
        sim.refunds().filter((r) => r.reference === req.reference),
        [
          {
            network: method,
            reference: req.reference,
            paymentReference: req.paymentReference,
            // MTN's request names the amount (a major-unit string); Airtel's names none: the payment's
            amount: method === 'momo' ? '15000' : 15_000,
            state: 'successful',
          },
        ],
      );
    });

    test('scenario 21: the refund fails and no money moves', async () => {
      const req = { ...(await paidPayment(method, '21')), reference: randomUUID() };
      const sent = await providers[method].requestRefund(req);
      // Airtel refuses in its answer; MTN takes the request and reports the failure on the status.
      if (method === 'airtel') assert.equal(sent.kind, 'rejected');
      else {
        assert.equal(sent.kind, 'submitted');
        assert.equal((await refundUntilFinal(method, req)).status.status, 'failed');
      }
    });

    test('scenario 22: the refund stays pending, then succeeds', async () => {
      const req = { ...(await paidPayment(method, '22')), reference: randomUUID() };
      assert.equal((await providers[method].requestRefund(req)).kind, 'submitted');
      const { status, seen } = await refundUntilFinal(method, req);
      assert.equal(seen[0], 'pending');
      assert.equal(status.status, 'succeeded');
    });

    test('scenario 23: the refund stays pending, then fails', async () => {
      const req = { ...(await paidPayment(method, '23')), reference: randomUUID() };
      assert.equal((await providers[method].requestRefund(req)).kind, 'submitted');
      const { status, seen } = await refundUntilFinal(method, req);
      assert.equal(seen[0], 'pending');
      assert.equal(status.status, 'failed');
    });

    test('a resend under the same reference is taken as the same refund, never a second one', async () => {
      const req = { ...(await paidPayment(method, '24')), reference: randomUUID() };
      assert.equal((await providers[method].requestRefund(req)).kind, 'submitted');
      assert.equal((await providers[method].requestRefund(req)).kind, 'submitted');
      assert.equal(sim.refunds().filter((r) => r.paymentReference === req.paymentReference).length, 1);
      assert.equal((await providers[method].getRefundStatus(req)).status, 'pending');
    });

    test('a second refund of a refunded payment is refused', async () => {
      const paid = await paidPayment(method, '01');
      assert.equal(
        (await providers[method].requestRefund({ ...paid, reference: randomUUID() })).kind,
        'submitted',
      );
      assert.equal(
        (await providers[method].requestRefund({ ...paid, reference: randomUUID() })).kind,
        'rejected',
      );
    });

    test('a refund of a payment the network never took is refused', async () => {
      const req: RefundRequest = {
        reference: randomUUID(),
        paymentReference: randomUUID(),
        providerTransactionId: 'SIM0000000000',
        amount: 15_000,
        paymentAmount: 15_000,
        msisdn: '256700000001',
        currency: 'UGX',
        description: 'Refund',
      };
      assert.equal((await providers[method].requestRefund(req)).kind, 'rejected');
      assert.equal((await providers[method].getRefundStatus(req)).status, 'not_found');
    });
  });
}

test('MTN refunds need the Disbursement subscription key, not the Collection one', async () => {
  const { disbursement: _unused, ...collectionOnly } = sim.part('momo').settings;
  const provider = createMtnMomoProvider(collectionOnly);
  const paid = await paidPayment('momo', '01');
  const sent = await provider.requestRefund({ ...paid, reference: randomUUID() });
  assert.equal(sent.kind, 'rejected');
});

/** What the fake MTN saw of one call: which product's key and which credentials it carried. */
interface MtnCall {
  method: string;
  path: string;
  subscriptionKey: string | undefined;
  authorization: string | undefined;
}

/**
 * A fake MTN on loopback with a different subscription key, API user and token per product, so
 * that a call made with the other product's credentials is refused as MTN would refuse it.
 */
async function startFakeMtn(): Promise<{ url: string; calls: MtnCall[]; close(): Promise<void> }> {
  const calls: MtnCall[] = [];
  const products = {
    collection: { key: 'col-key', basic: 'col-user:col-secret', token: 'col-token' },
    disbursement: { key: 'dis-key', basic: 'dis-user:dis-secret', token: 'dis-token' },
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const call: MtnCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        subscriptionKey: req.headers['ocp-apim-subscription-key'] as string | undefined,
        authorization: req.headers.authorization,
      };
      calls.push(call);
      const product = call.path.startsWith('/disbursement/') ? products.disbursement : products.collection;
      const send = (status: number, body?: unknown) =>
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(body ? JSON.stringify(body) : '');
      if (call.subscriptionKey !== product.key) return send(401, { message: 'invalid subscription key' });
      if (/\/token\/?$/.test(call.path)) {
        const basic = `Basic ${Buffer.from(product.basic).toString('base64')}`;
        if (call.authorization !== basic) return send(401, { error: 'login_failed' });
        return send(200, { access_token: product.token, token_type: 'access_token', expires_in: 3600 });
      }
      if (call.authorization !== `Bearer ${product.token}`) return send(401, { code: 'UNAUTHORIZED' });
      if (call.method === 'POST' && call.path === '/disbursement/v1_0/refund') return send(202);
      if (call.method === 'GET' && call.path.startsWith('/disbursement/v1_0/refund/')) {
        return send(200, { status: 'SUCCESSFUL', financialTransactionId: '4711' });
      }
      return send(404, { code: 'RESOURCE_NOT_FOUND' });
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

test('with MOMO_DISBURSEMENT_* set, a refund takes a Disbursement token and sends it with the Disbursement key', async () => {
  const mtn = await startFakeMtn();
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      PAYMENT_PROVIDER: 'live',
      MOMO_BASE_URL: mtn.url,
      MOMO_SUBSCRIPTION_KEY: 'col-key',
      MOMO_API_USER: 'col-user',
      MOMO_API_KEY: 'col-secret',
      MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'dis-key',
      MOMO_DISBURSEMENT_API_USER: 'dis-user',
      MOMO_DISBURSEMENT_API_KEY: 'dis-secret',
      AIRTEL_BASE_URL: 'http://127.0.0.1:9',
      AIRTEL_CLIENT_ID: 'unused',
      AIRTEL_CLIENT_SECRET: 'unused',
    });
    const { gateway, close } = await createPaymentGateway(config, createLogger('silent'));
    const req: RefundRequest = {
      reference: randomUUID(),
      paymentReference: randomUUID(),
      providerTransactionId: '1234',
      amount: 15_000,
      paymentAmount: 15_000,
      msisdn: '256770000001',
      currency: 'UGX',
      description: 'Refund of your ticket payment',
    };
    assert.deepEqual(await gateway.providers.momo.requestRefund(req), { kind: 'submitted' });
    assert.deepEqual(await gateway.providers.momo.getRefundStatus(req), {
      status: 'succeeded',
      providerReference: '4711',
    });
    await close();
    const dis = `Basic ${Buffer.from('dis-user:dis-secret').toString('base64')}`;
    assert.deepEqual(
      mtn.calls.map((c) => [c.method, c.path, c.subscriptionKey, c.authorization]),
      [
        ['POST', '/disbursement/token/', 'dis-key', dis],
        ['POST', '/disbursement/v1_0/refund', 'dis-key', 'Bearer dis-token'],
        ['GET', `/disbursement/v1_0/refund/${req.reference}`, 'dis-key', 'Bearer dis-token'],
      ],
    );
  } finally {
    await mtn.close();
  }
});

describe('refund answer mappings', () => {
  test('MTN refund status bodies', () => {
    const table: Array<[unknown, string | null]> = [
      [{ status: 'SUCCESSFUL', financialTransactionId: '123' }, 'succeeded'],
      [{ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }, 'failed'],
      [{ status: 'REJECTED' }, 'failed'],
      [{ status: 'PENDING' }, 'pending'],
      [{ status: 'SOMETHING_NEW' }, 'pending'],
      [{}, null],
      ['x', null],
    ];
    for (const [body, expected] of table) assert.equal(mapMtnRefundStatus(body)?.status ?? null, expected);
    assert.deepEqual(mapMtnRefundStatus({ status: 'SUCCESSFUL', financialTransactionId: '123' }), {
      status: 'succeeded',
      providerReference: '123',
    });
  });

  test('Airtel refund answers and enquiries', () => {
    const ok = { status: { success: true, response_code: 'DP00800001001', result_code: 'ESB000010' } };
    assert.deepEqual(mapAirtelRefundSubmit(ok), { kind: 'submitted' });
    assert.deepEqual(mapAirtelRefundSubmit({ status: { success: false, result_code: 'ESB000041' } }), {
      kind: 'submitted',
    });
    assert.equal(
      mapAirtelRefundSubmit({ status: { success: false, response_code: 'DP00800001004' } })?.kind,
      'rejected',
    );
    assert.equal(
      mapAirtelRefundSubmit({ status: { success: false, response_code: 'DP00800001000' } })?.kind,
      'unknown',
    );
    assert.equal(mapAirtelRefundSubmit('nope'), null);
    const enquiry = (status: string, code: string) => ({
      data: { transaction: { status, airtel_money_id: 'R1' } },
      status: { response_code: code },
    });
    assert.deepEqual(mapAirtelRefundEnquiry(enquiry('TS', 'DP00800001001')), {
      status: 'succeeded',
      providerReference: 'R1',
    });
    assert.equal(mapAirtelRefundEnquiry(enquiry('TF', 'DP00800001004'))?.status, 'failed');
    assert.equal(mapAirtelRefundEnquiry(enquiry('TIP', 'DP00800001006'))?.status, 'pending');
    assert.equal(mapAirtelRefundEnquiry({ status: { response_code: 'DP00800001025' } })?.status, 'not_found');
  });
});
