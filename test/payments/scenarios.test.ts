// Every simulator test number, through both real adapters over real HTTP: what the submit call
// returns, the final status found by polling, the failure kind, the amount echoed, and the
// callbacks delivered. Time runs 100 times faster (the 5-minute window takes 3 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createAirtelProvider } from '../../src/payments/methods/airtel/airtel.ts';
import { parseAirtelCallback } from '../../src/payments/methods/airtel/airtel-provider.ts';
import { parseMtnCallback } from '../../src/payments/methods/momo/momo-provider.ts';
import { createMtnMomoProvider } from '../../src/payments/methods/momo/mtn-momo.ts';
import type { PaymentProvider, ProviderFailureKind } from '../../src/payments/provider.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import {
  msisdnFor,
  paymentRequest,
  pollUntilFinal,
  sleep,
  startCallbackReceiver,
  statusesOver,
  type CallbackReceiver,
} from './payments-helpers.ts';
/** The two networks whose adapters these tests run against the simulator. */
type SimNetwork = 'momo' | 'airtel';

const TIME_SCALE = 0.01;
/** the prompt window (5 min) at this scale, plus a margin */
const PAST_PROMPT_WINDOW_MS = 5 * 60_000 * TIME_SCALE + 300;
const NETWORKS: SimNetwork[] = ['momo', 'airtel'];
/** numbers outside the test range: "any other number" */
const OTHER_NUMBER: Record<SimNetwork, string> = { momo: '256772123456', airtel: '256752123456' };

let sim: Simulator;
let receiver: CallbackReceiver;
let providers: Record<SimNetwork, PaymentProvider>;
/** the same adapters with a 300 ms deadline, for the lost response of 11 */
let impatient: Record<SimNetwork, PaymentProvider>;

before(async () => {
  receiver = await startCallbackReceiver();
  sim = await startSimulator({
    timeScale: TIME_SCALE,
    callbackUrls: { airtel: `${receiver.url}/v1/payment-callbacks/airtel/{reference}` },
  });
  providers = {
    momo: createMtnMomoProvider({ ...sim.part('momo').settings, timeoutMs: 10_000 }),
    airtel: createAirtelProvider({ ...sim.part('airtel').settings, timeoutMs: 10_000 }),
  };
  impatient = {
    momo: createMtnMomoProvider({ ...sim.part('momo').settings, timeoutMs: 300 }),
    airtel: createAirtelProvider({ ...sim.part('airtel').settings, timeoutMs: 300 }),
  };
  // Their token first, so that on a busy machine only the lost response can hit the 300 ms deadline.
  for (const provider of Object.values(impatient)) {
    for (let i = 0; i < 20; i++) {
      if (
        await provider.getStatus(randomUUID()).then(
          () => true,
          () => false,
        )
      )
        break;
    }
  }
});

after(async () => {
  await sim.close();
  await receiver.close();
});

let nextAmount = 1_000;

async function submit(method: SimNetwork, code: string, provider = providers[method]) {
  const reference = randomUUID();
  const amount = (nextAmount += 111); // a different amount per payment, so an echo cannot be a coincidence
  const req = paymentRequest({
    reference,
    amount,
    msisdn: code === 'other' ? OTHER_NUMBER[method] : msisdnFor(method, code),
    callbackUrl: `${receiver.url}/v1/payment-callbacks/${method}/${reference}`,
    description: `Order ord_${code} & friends`,
  });
  return { req, reference, amount, result: await provider.requestPayment(req) };
}

/** Waits for `count` callbacks about the reference, then makes sure no more arrive. */
async function exactCallbacks(reference: string, count: number) {
  await receiver.waitFor(reference, count, 8_000);
  await sleep(150);
  const got = receiver.about(reference);
  assert.equal(got.length, count, `expected ${count} callback(s), got ${got.length}`);
  return got;
}

/** The callback says what the simulator decided, names our reference, and came the provider's way. */
function assertCallback(
  method: SimNetwork,
  callback: { method: string; body: unknown },
  reference: string,
  ok: boolean,
) {
  if (method === 'momo') {
    assert.equal(callback.method, 'PUT');
    assert.equal(parseMtnCallback(callback.body).reference, reference);
    assert.equal((callback.body as { status: string }).status, ok ? 'SUCCESSFUL' : 'FAILED');
  } else {
    assert.equal(callback.method, 'POST');
    assert.equal(parseAirtelCallback(callback.body).reference, reference);
    assert.equal(
      (callback.body as { transaction: { status_code: string } }).transaction.status_code,
      ok ? 'TS' : 'TF',
    );
  }
}

interface FinalCase {
  code: string;
  outcome: 'successful' | ProviderFailureKind;
  message?: RegExp;
  callbacks: number;
  /** the simulator's delay before the outcome, unscaled: it cannot be seen any sooner */
  settlesAfterMs: number;
}

const FINAL_CASES: FinalCase[] = [
  { code: '01', outcome: 'successful', callbacks: 1, settlesAfterMs: 2_000 },
  { code: '02', outcome: 'successful', callbacks: 1, settlesAfterMs: 25_000 },
  { code: '03', outcome: 'payment_declined', message: /declined/, callbacks: 2, settlesAfterMs: 2_000 },
  { code: '04', outcome: 'payment_timeout', message: /approve/, callbacks: 1, settlesAfterMs: 5 * 60_000 },
  {
    code: '05',
    outcome: 'insufficient_funds',
    message: /balance is too low/,
    callbacks: 1,
    settlesAfterMs: 2_000,
  },
  { code: '06', outcome: 'payment_declined', message: /PIN/, callbacks: 1, settlesAfterMs: 2_000 },
  {
    code: '07',
    outcome: 'payment_declined',
    message: /over the payer's .*limit/,
    callbacks: 1,
    settlesAfterMs: 2_000,
  },
  { code: '08', outcome: 'payment_declined', message: /not registered/, callbacks: 1, settlesAfterMs: 2_000 },
  { code: '13', outcome: 'successful', callbacks: 0, settlesAfterMs: 2_000 },
  { code: 'other', outcome: 'successful', callbacks: 1, settlesAfterMs: 3_000 },
];

for (const method of NETWORKS) {
  describe(`${method} adapter against the simulator`, { concurrency: true }, () => {
    for (const c of FINAL_CASES) {
      test(`${c.code}: submitted, ends ${c.outcome}, ${c.callbacks} callback(s)`, async () => {
        const started = Date.now();
        const { reference, amount, result } = await submit(method, c.code);
        assert.deepEqual(result, { kind: 'submitted' });

        const { status } = await pollUntilFinal(providers[method], reference);
        // A lower bound only (a busy machine makes everything later, never sooner): 02 and 04 are slow.
        const earliest = c.settlesAfterMs * TIME_SCALE - 5;
        assert.ok(
          Date.now() - started >= earliest,
          `final after ${Date.now() - started} ms, before ${earliest} ms`,
        );
        if (c.outcome === 'successful') {
          assert.equal(status.status, 'successful');
          if (status.status !== 'successful') return;
          assert.equal(status.amount, amount);
          assert.equal(status.currency, 'UGX');
          assert.match(status.providerTransactionId ?? '', /^\S+$/);
        } else {
          assert.equal(status.status, 'failed');
          if (status.status !== 'failed') return;
          assert.equal(status.failureKind, c.outcome);
          if (c.message) assert.match(status.message, c.message);
        }

        const callbacks = await exactCallbacks(reference, c.callbacks);
        for (const callback of callbacks)
          assertCallback(method, callback, reference, c.outcome === 'successful');

        // What went over the wire, as the simulator received it.
        const sent = sim.submissions().filter((s) => s.reference === reference);
        assert.equal(sent.length, 1);
        assert.equal(sent[0]!.result, 'accepted');
        assert.equal(sent[0]!.currency, 'UGX');
        assert.doesNotMatch(sent[0]!.description, /&/);
        if (method === 'momo') {
          assert.equal(sent[0]!.amount, String(amount));
          assert.equal(sent[0]!.msisdn, c.code === 'other' ? OTHER_NUMBER.momo : msisdnFor('momo', c.code));
          assert.equal(sent[0]!.callbackUrl, `${receiver.url}/v1/payment-callbacks/momo/${reference}`);
        } else {
          assert.equal(sent[0]!.amount, amount);
          assert.equal(
            sent[0]!.msisdn,
            (c.code === 'other' ? OTHER_NUMBER.airtel : msisdnFor('airtel', c.code)).slice(3),
          );
        }
      });
    }

    test('09: stays pending past the prompt window, and no callback comes', async () => {
      const { reference, result } = await submit(method, '09');
      assert.deepEqual(result, { kind: 'submitted' });
      assert.deepEqual(await statusesOver(providers[method], reference, PAST_PROMPT_WINDOW_MS), ['pending']);
      assert.equal(receiver.about(reference).length, 0);
    });

    test('10: the callback says success while the status query keeps answering pending', async () => {
      const { reference, result } = await submit(method, '10');
      assert.deepEqual(result, { kind: 'submitted' });
      const [callback] = await exactCallbacks(reference, 1);
      assertCallback(method, callback!, reference, true);
      assert.deepEqual(await statusesOver(providers[method], reference, 300), ['pending']);
    });

    test('11: the submit response is lost (unknown), a resend is already_submitted, the payment succeeds', async () => {
      const started = Date.now();
      const { req, reference, amount, result } = await submit(method, '11', impatient[method]);
      assert.equal(result.kind, 'unknown');
      assert.ok(Date.now() - started >= 290, 'the adapter waited for its deadline');
      assert.deepEqual(await providers[method].requestPayment(req), { kind: 'already_submitted' });
      const { status } = await pollUntilFinal(providers[method], reference);
      assert.equal(status.status, 'successful');
      if (status.status === 'successful') assert.equal(status.amount, amount);
      await exactCallbacks(reference, 1);
      assert.deepEqual(
        sim
          .submissions()
          .filter((s) => s.reference === reference)
          .map((s) => s.result),
        ['response_lost', 'duplicate'],
      );
    });

    test('12: provider outage is rejected provider_error, and nothing exists afterwards', async () => {
      const { reference, result } = await submit(method, '12');
      assert.equal(result.kind, 'rejected');
      if (result.kind === 'rejected') {
        assert.equal(result.failureKind, 'provider_error');
        assert.match(result.message, /unavailable \(503\)/);
      }
      assert.deepEqual(await providers[method].getStatus(reference), { status: 'not_found' });
      assert.deepEqual(
        sim
          .submissions()
          .filter((s) => s.reference === reference)
          .map((s) => s.result),
        ['outage'],
      );
      await exactCallbacks(reference, 0);
    });

    test('an unknown reference is not_found', async () => {
      assert.deepEqual(await providers[method].getStatus(randomUUID()), { status: 'not_found' });
    });
  });
}
