// What the adapters refuse before calling, and how they fail when the provider will not talk to
// them: wrong credentials, wrong environment, nobody listening, a hung provider.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAirtelProvider, type AirtelConfig } from '../../src/payments/methods/airtel/airtel.ts';
import { createMtnMomoProvider, type MtnConfig } from '../../src/payments/methods/momo/mtn-momo.ts';
import { MIN_AMOUNT, PaymentProviderError, type PaymentProvider } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { freePort } from '../helpers/process.ts';
import { msisdnFor, paymentRequest } from './payments-helpers.ts';
/** The two networks whose adapters these tests run against the simulator. */
type SimNetwork = 'momo' | 'airtel';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
});
after(() => sim.close());

function adapter(method: SimNetwork, overrides: Partial<MtnConfig & AirtelConfig> = {}): PaymentProvider {
  return method === 'momo'
    ? createMtnMomoProvider({ ...sim.part('momo').settings, ...overrides })
    : createAirtelProvider({ ...sim.part('airtel').settings, ...overrides });
}

/** Runs `fn` and asserts the simulator received no request at all meanwhile. */
async function withoutContact<T>(fn: () => Promise<T>): Promise<T> {
  const before = sim.requestCount();
  const result = await fn();
  assert.equal(sim.requestCount(), before, 'the provider was contacted');
  return result;
}

const WRONG_CREDENTIALS: Record<SimNetwork, [string, Partial<MtnConfig & AirtelConfig>][]> = {
  momo: [
    ['API key', { apiKey: 'wrong' }],
    ['API user', { apiUser: '00000000-0000-4000-8000-000000000000' }],
    ['subscription key', { subscriptionKey: 'wrong' }],
  ],
  airtel: [
    ['client secret', { clientSecret: 'wrong' }],
    ['client id', { clientId: 'wrong' }],
  ],
};

for (const method of ['momo', 'airtel'] as const) {
  describe(`${method} adapter guards`, () => {
    test(`an amount below MIN_AMOUNT (${MIN_AMOUNT.UGX! - 1}) is refused without contacting the provider`, async () => {
      const result = await withoutContact(() =>
        adapter(method).requestPayment(
          paymentRequest({ amount: MIN_AMOUNT.UGX! - 1, msisdn: msisdnFor(method, '01') }),
        ),
      );
      assert.deepEqual(result, {
        kind: 'rejected',
        failureKind: 'provider_error',
        message: 'amount below the provider minimum',
      });
    });

    test('exactly MIN_AMOUNT is submitted', async () => {
      const result = await adapter(method).requestPayment(
        paymentRequest({ amount: MIN_AMOUNT.UGX!, msisdn: msisdnFor(method, '01') }),
      );
      assert.deepEqual(result, { kind: 'submitted' });
    });

    test('a malformed number, a fractional amount or an unsupported currency is refused without contact', async () => {
      const provider = adapter(method);
      const bad = [
        paymentRequest({ msisdn: '0770000001' }),
        paymentRequest({ amount: 1500.5, msisdn: msisdnFor(method, '01') }),
        paymentRequest({ currency: 'KES', msisdn: msisdnFor(method, '01') }),
      ];
      const results = await withoutContact(() => Promise.all(bad.map((req) => provider.requestPayment(req))));
      assert.deepEqual(
        results.map((r) => (r.kind === 'rejected' ? r.failureKind : r.kind)),
        ['invalid_phone_number', 'provider_error', 'provider_error'],
      );
    });

    test('a reference that is not a UUID v4 is a programming error (TypeError), not a payment outcome', async () => {
      await withoutContact(() =>
        assert.rejects(adapter(method).requestPayment(paymentRequest({ reference: 'ord_123' })), TypeError),
      );
    });

    for (const [what, overrides] of WRONG_CREDENTIALS[method]) {
      test(`a wrong ${what}: submit is rejected provider_error, status queries fail with auth_failed`, async () => {
        const provider = adapter(method, overrides);
        const reference = randomUUID();
        const result = await provider.requestPayment(
          paymentRequest({ reference, msisdn: msisdnFor(method, '01') }),
        );
        assert.equal(result.kind, 'rejected');
        if (result.kind === 'rejected') {
          assert.equal(result.failureKind, 'provider_error');
          assert.match(result.message, /refused our API credentials \(401 at the token endpoint\)/);
          assert.doesNotMatch(result.message, /wrong|sim-/, 'no credential in the message');
        }
        await assert.rejects(provider.getStatus(reference), (error: unknown) => {
          assert.ok(error instanceof PaymentProviderError);
          assert.equal(error.kind, 'auth_failed');
          assert.equal(error.method, method);
          assert.equal(error.httpStatus, 401);
          return true;
        });
        assert.equal(sim.submissions().filter((s) => s.reference === reference).length, 0);
      });
    }

    test('nobody listening: submit is rejected (no token, nothing sent); status queries fail unreachable', async () => {
      const port = await freePort();
      const provider = adapter(method, { baseUrl: `http://127.0.0.1:${port}/${method}` });
      const result = await provider.requestPayment(paymentRequest({ msisdn: msisdnFor(method, '01') }));
      assert.equal(result.kind, 'rejected');
      if (result.kind === 'rejected') assert.equal(result.failureKind, 'provider_error');
      await assert.rejects(
        provider.getStatus(randomUUID()),
        (error: unknown) => error instanceof PaymentProviderError && error.kind === 'unreachable',
      );
    });
  });
}

test('momo: a wrong target environment is rejected provider_error naming the reason', async () => {
  const provider = adapter('momo', { targetEnvironment: 'mtnghana' });
  const reference = randomUUID();
  const result = await provider.requestPayment(
    paymentRequest({ reference, msisdn: msisdnFor('momo', '01') }),
  );
  assert.equal(result.kind, 'rejected');
  if (result.kind === 'rejected') {
    assert.equal(result.failureKind, 'provider_error');
    assert.equal(result.providerCode, 'NOT_ALLOWED_TARGET_ENVIRONMENT');
  }
  await assert.rejects(
    provider.getStatus(reference),
    (error: unknown) =>
      error instanceof PaymentProviderError && error.kind === 'auth_failed' && error.httpStatus === 403,
  );
});

describe('a provider that accepts the connection and never answers', () => {
  let hung: Server;
  let base: string;
  before(async () => {
    hung = createServer(() => {
      // never respond
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
  });
  after(async () => {
    hung.closeAllConnections();
    await new Promise((resolve) => hung.close(resolve));
  });

  test('the token request times out: submit rejected, status query fails with timeout', async () => {
    const provider = createMtnMomoProvider({ ...sim.part('momo').settings, baseUrl: base, timeoutMs: 200 });
    const result = await provider.requestPayment(paymentRequest({ msisdn: msisdnFor('momo', '01') }));
    assert.equal(result.kind, 'rejected');
    if (result.kind === 'rejected') assert.match(result.message, /no answer within 200 ms/);
    await assert.rejects(
      provider.getStatus(randomUUID()),
      (error: unknown) => error instanceof PaymentProviderError && error.kind === 'timeout',
    );
  });
});
