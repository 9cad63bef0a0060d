// Access tokens: one token serves many calls, is refreshed before it expires (80 % of its
// lifetime), and is replaced once after the provider answers 401.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { OffsetClock } from '../../src/platform/clock.ts';
import { createAirtelProvider } from '../../src/payments/methods/airtel/airtel.ts';
import { createMtnMomoProvider } from '../../src/payments/methods/momo/mtn-momo.ts';
import type { PaymentProvider } from '../../src/payments/provider.ts';
import { createTokenCache } from '../../src/payments/provider-http.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { msisdnFor, paymentRequest, sleep } from './payments-helpers.ts';
/** The two networks whose adapters these tests run against the simulator. */
type SimNetwork = 'momo' | 'airtel';

let sim: Simulator;
/** tokens that really expire after 1 s */
let shortLived: Simulator;
before(async () => {
  sim = await startSimulator({ timeScale: 0.01, tokenTtlSeconds: 60 });
  shortLived = await startSimulator({ timeScale: 0.01, tokenTtlSeconds: 1 });
});
after(async () => {
  await sim.close();
  await shortLived.close();
});

function adapter(method: SimNetwork, on = sim, clock?: OffsetClock): PaymentProvider {
  return method === 'momo'
    ? createMtnMomoProvider(on.part('momo').settings, { clock })
    : createAirtelProvider(on.part('airtel').settings, { clock });
}
const tokensFetched = (method: SimNetwork, on = sim) => on.tokenRequests()[method] ?? 0;

for (const method of ['momo', 'airtel'] as const) {
  describe(`${method} access token`, () => {
    test('one token serves many calls, including concurrent first calls', async () => {
      const provider = adapter(method);
      const before = tokensFetched(method);
      await Promise.all([1, 2, 3, 4, 5].map(() => provider.getStatus(randomUUID())));
      const reference = randomUUID();
      const submitted = await provider.requestPayment(
        paymentRequest({ reference, msisdn: msisdnFor(method, '09') }),
      );
      assert.deepEqual(submitted, { kind: 'submitted' });
      assert.equal((await provider.getStatus(reference)).status, 'pending');
      assert.equal(tokensFetched(method) - before, 1);
    });

    test('a token is renewed at 80 % of its lifetime, by the adapter clock (60 s token: at 48 s)', async () => {
      const clock = new OffsetClock();
      const provider = adapter(method, sim, clock);
      const before = tokensFetched(method);
      await provider.getStatus(randomUUID());
      clock.advance(47_000);
      await provider.getStatus(randomUUID());
      assert.equal(tokensFetched(method) - before, 1, 'still fresh at 47 s');
      clock.advance(2_000);
      assert.deepEqual(await provider.getStatus(randomUUID()), { status: 'not_found' });
      assert.equal(tokensFetched(method) - before, 2, 'renewed at 49 s');
    });

    test('a token that really expired (lifetime 1 s) is replaced and calls keep working', async () => {
      const provider = adapter(method, shortLived);
      const before = tokensFetched(method, shortLived);
      await provider.getStatus(randomUUID());
      await sleep(1_100);
      assert.deepEqual(await provider.getStatus(randomUUID()), { status: 'not_found' });
      const reference = randomUUID();
      assert.deepEqual(
        await provider.requestPayment(paymentRequest({ reference, msisdn: msisdnFor(method, '01') })),
        { kind: 'submitted' },
      );
      // Two at least: on a slow machine a third may be fetched, never fewer.
      assert.ok(tokensFetched(method, shortLived) - before >= 2);
    });

    test('after a 401 the adapter fetches a new token once and the call succeeds', async () => {
      const provider = adapter(method);
      await provider.getStatus(randomUUID());
      const before = tokensFetched(method);
      sim.revokeTokens();
      assert.deepEqual(await provider.getStatus(randomUUID()), { status: 'not_found' });
      assert.equal(tokensFetched(method) - before, 1);
      sim.revokeTokens();
      const reference = randomUUID();
      assert.deepEqual(
        await provider.requestPayment(paymentRequest({ reference, msisdn: msisdnFor(method, '01') })),
        { kind: 'submitted' },
      );
      assert.equal(tokensFetched(method) - before, 2);
      assert.equal(sim.submissions().filter((s) => s.reference === reference).length, 1);
    });
  });
}

describe('token cache', () => {
  test('refreshes at 80 % of expires_in by the clock, and forgets only the refused token', async () => {
    const clock = new OffsetClock();
    let issued = 0;
    const cache = createTokenCache({
      clock,
      fetchToken: async () => ({ token: `t${++issued}`, expiresInSeconds: 100 }),
    });
    assert.equal(await cache.get(), 't1');
    clock.advance(79_000);
    assert.equal(await cache.get(), 't1');
    clock.advance(1_000);
    assert.equal(await cache.get(), 't2');
    cache.invalidate('t1'); // an old token refused late: keep the newer one
    assert.equal(await cache.get(), 't2');
    cache.invalidate('t2');
    assert.equal(await cache.get(), 't3');
  });

  test('a failed fetch is not cached: the next call tries again', async () => {
    let calls = 0;
    const cache = createTokenCache({
      fetchToken: async () => {
        calls++;
        if (calls === 1) throw new Error('down');
        return { token: 'ok', expiresInSeconds: 60 };
      },
    });
    await assert.rejects(cache.get(), /down/);
    assert.equal(await cache.get(), 'ok');
    assert.equal(calls, 2);
  });
});
