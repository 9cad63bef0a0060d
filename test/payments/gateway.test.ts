// The gateway built from configuration: SIMULATOR_URL points both adapters at a simulator that
// runs elsewhere (started here as a stand-in for `npm run simulator`), which outlives the gateway.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import { createPaymentGateway } from '../../src/payments/gateway.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { msisdnFor, pollUntilFinal } from './payments-helpers.ts';
import { LIVE_PAYMENT_ENV } from '../helpers/live-env.ts';

const BASE_ENV = { NODE_ENV: 'test', PAYMENT_PROVIDER: 'simulator', PAYMENT_TIME_SCALE: '0.01' };

describe('payment settings', () => {
  test('MOMO_MAX_AMOUNT and AIRTEL_MAX_AMOUNT default to UGX 5,000,000 and must be whole numbers', () => {
    // M-Pesa's is KES 250,000, kept in cents; cards have one per currency.
    const maxAmounts = (config: Config) =>
      Object.fromEntries(Object.entries(config.payments.methods).map(([key, m]) => [key, m?.maxAmount]));
    assert.deepEqual(maxAmounts(loadConfig(BASE_ENV)), {
      momo: { UGX: 5_000_000 },
      airtel: { UGX: 5_000_000 },
      mpesa: { KES: 25_000_000 },
      card: { UGX: 20_000_000, KES: 75_000_000 },
    });
    const set = loadConfig({
      ...BASE_ENV,
      MOMO_MAX_AMOUNT: '2000000',
      AIRTEL_MAX_AMOUNT: '4000000',
      MPESA_MAX_AMOUNT: '150000',
      CARD_MAX_AMOUNT_UGX: '10000000',
      CARD_MAX_AMOUNT_KES: '300000',
    });
    assert.deepEqual(maxAmounts(set), {
      momo: { UGX: 2_000_000 },
      airtel: { UGX: 4_000_000 },
      mpesa: { KES: 15_000_000 },
      card: { UGX: 10_000_000, KES: 30_000_000 },
    });
    for (const bad of ['0', '-1', '1.5', 'lots']) {
      assert.throws(() => loadConfig({ ...BASE_ENV, MOMO_MAX_AMOUNT: bad }), /MOMO_MAX_AMOUNT/);
      assert.throws(() => loadConfig({ ...BASE_ENV, AIRTEL_MAX_AMOUNT: bad }), /AIRTEL_MAX_AMOUNT/);
    }
  });

  test('callbacks are limited per IP to 50 a second with bursts of 200 by default (RATE_LIMIT_CALLBACK_*)', () => {
    assert.deepEqual(loadConfig(BASE_ENV).rateLimits.callback, { rate: 50, burst: 200 });
    const set = loadConfig({ ...BASE_ENV, RATE_LIMIT_CALLBACK_RATE: '5', RATE_LIMIT_CALLBACK_BURST: '20' });
    assert.deepEqual(set.rateLimits.callback, { rate: 5, burst: 20 });
    assert.throws(() => loadConfig({ ...BASE_ENV, RATE_LIMIT_CALLBACK_RATE: '0' }), ConfigError);
  });
});

describe('live M-Pesa settings', () => {
  const LIVE = { NODE_ENV: 'test', ...LIVE_PAYMENT_ENV };
  const MPESA = {
    MPESA_BASE_URL: 'https://sandbox.safaricom.co.ke',
    MPESA_CONSUMER_KEY: 'consumer-key',
    MPESA_CONSUMER_SECRET: 'consumer-secret',
    MPESA_SHORTCODE: '174379',
    MPESA_PASSKEY: 'passkey',
  };

  test('none: the live service takes MTN and Airtel only, and no event offers M-Pesa', async () => {
    const config = loadConfig(LIVE);
    assert.equal(config.payments.methods.mpesa.live, undefined);
    const { gateway } = await createPaymentGateway(config, createLogger('silent'));
    assert.deepEqual(
      gateway.methods.map((m) => m.key),
      ['momo', 'airtel'],
    );
    assert.equal(gateway.providers.mpesa, undefined);
  });

  test('all five: M-Pesa is taken, as a paybill unless a till is named', async () => {
    const config = loadConfig({ ...LIVE, ...MPESA });
    assert.deepEqual(config.payments.methods.mpesa.live, {
      baseUrl: 'https://sandbox.safaricom.co.ke',
      consumerKey: 'consumer-key',
      consumerSecret: 'consumer-secret',
      shortcode: '174379',
      passkey: 'passkey',
      transactionType: 'CustomerPayBillOnline',
    });
    const { gateway } = await createPaymentGateway(config, createLogger('silent'));
    assert.deepEqual(
      gateway.methods.map((m) => m.key),
      ['momo', 'airtel', 'mpesa'],
    );
    const till = loadConfig({
      ...LIVE,
      ...MPESA,
      MPESA_TRANSACTION_TYPE: 'CustomerBuyGoodsOnline',
      MPESA_TILL_NUMBER: '5566778',
      MPESA_INITIATOR: 'api-operator',
      MPESA_SECURITY_CREDENTIAL: 'encrypted',
      MPESA_B2C_SHORTCODE: '600000',
    }).payments.methods.mpesa.live;
    assert.equal(till?.partyB, '5566778');
    assert.deepEqual(till?.reversal, { initiator: 'api-operator', securityCredential: 'encrypted' });
    assert.equal(till?.b2cShortcode, '600000');
  });

  test('some but not all are refused at start, with a line naming what is missing', () => {
    const { MPESA_PASSKEY: _passkey, MPESA_SHORTCODE: _shortcode, ...three } = MPESA;
    assert.throws(
      () => loadConfig({ ...LIVE, ...three }),
      (error: Error) =>
        error instanceof ConfigError &&
        /^MPESA_SHORTCODE, MPESA_PASSKEY are required with /.test(error.message),
    );
    assert.throws(() => loadConfig({ ...LIVE, ...MPESA, MPESA_INITIATOR: 'api-operator' }), /set together/);
    assert.throws(
      () => loadConfig({ ...LIVE, ...MPESA, MPESA_TRANSACTION_TYPE: 'CustomerBuyGoodsOnline' }),
      /MPESA_TILL_NUMBER is required/,
    );
    assert.throws(() => loadConfig({ ...LIVE, ...MPESA, MPESA_SHORTCODE: '17-43' }), /MPESA_SHORTCODE/);
    assert.throws(
      () => loadConfig({ ...LIVE, ...MPESA, MPESA_B2C_SHORTCODE: '6000' }),
      /MPESA_B2C_SHORTCODE/,
    );
  });
});

describe('live card settings', () => {
  const LIVE = { NODE_ENV: 'test', ...LIVE_PAYMENT_ENV };
  const FLUTTERWAVE = {
    FLUTTERWAVE_BASE_URL: 'https://api.flutterwave.example',
    FLUTTERWAVE_SECRET_KEY: 'FLWSECK-secret',
    FLUTTERWAVE_SECRET_HASH: 'a-hash-of-sixteen-or-more',
  };

  test('none: the live service takes no card, and no event offers it', async () => {
    const config = loadConfig(LIVE);
    assert.equal(config.payments.methods.card.live, undefined);
    const { gateway } = await createPaymentGateway(config, createLogger('silent'));
    assert.ok(!gateway.methods.some((m) => m.key === 'card'));
    assert.equal(gateway.providers.card, undefined);
  });

  test('all three: card is taken, after the mobile money methods', async () => {
    const config = loadConfig({ ...LIVE, ...FLUTTERWAVE });
    assert.deepEqual(config.payments.methods.card.live, {
      baseUrl: 'https://api.flutterwave.example',
      secretKey: 'FLWSECK-secret',
      secretHash: 'a-hash-of-sixteen-or-more',
    });
    const { gateway } = await createPaymentGateway(config, createLogger('silent'));
    assert.deepEqual(
      gateway.methods.map((m) => m.key),
      ['momo', 'airtel', 'card'],
    );
    assert.ok(gateway.providers.card);
  });

  test('some but not all are refused at start, with a line naming what is missing', () => {
    for (const left of Object.keys(FLUTTERWAVE)) {
      const some = Object.fromEntries(Object.entries(FLUTTERWAVE).filter(([name]) => name !== left));
      assert.throws(
        () => loadConfig({ ...LIVE, ...some }),
        (error: Error) =>
          error instanceof ConfigError && error.message.startsWith(`${left} is required with `),
        left,
      );
    }
    const { FLUTTERWAVE_BASE_URL: url } = FLUTTERWAVE;
    assert.throws(
      () => loadConfig({ ...LIVE, FLUTTERWAVE_BASE_URL: url }),
      (error: Error) =>
        error.message ===
        'FLUTTERWAVE_SECRET_KEY, FLUTTERWAVE_SECRET_HASH are required with FLUTTERWAVE_BASE_URL: live card ' +
          'payments need all three Flutterwave settings, or none for no cards (README, "Going live")',
    );
  });
});

describe('SIMULATOR_URL', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({ timeScale: 0.01 });
  });
  after(() => sim.close());

  test('is read without a trailing slash, and absent by default', () => {
    const config = loadConfig({ ...BASE_ENV, SIMULATOR_URL: 'http://127.0.0.1:4010/' });
    assert.equal(config.payments.simulatorUrl, 'http://127.0.0.1:4010');
    assert.equal(loadConfig(BASE_ENV).payments.simulatorUrl, undefined);
  });

  test('is refused when not a URL, with PAYMENT_PROVIDER=live, or together with SIMULATOR_PORT', () => {
    assert.throws(() => loadConfig({ ...BASE_ENV, SIMULATOR_URL: 'localhost:4010' }), ConfigError);
    assert.throws(
      () => loadConfig({ ...BASE_ENV, SIMULATOR_URL: 'http://127.0.0.1:4010', SIMULATOR_PORT: '4010' }),
      /not both/,
    );
    assert.throws(
      () =>
        loadConfig({
          NODE_ENV: 'test',
          PAYMENT_PROVIDER: 'live',
          SIMULATOR_URL: 'http://127.0.0.1:4010',
        }),
      ConfigError,
    );
  });

  test('sends prompts to the simulator running there and leaves it running on close', async () => {
    const config = loadConfig({ ...BASE_ENV, SIMULATOR_URL: sim.url });
    const { gateway, close } = await createPaymentGateway(config, createLogger('silent'));
    const before = sim.submissions().length;
    const reference = randomUUID();
    const submitted = await gateway.providers.momo.requestPayment({
      reference,
      amount: 30_000,
      currency: 'UGX',
      msisdn: msisdnFor('momo', '01'),
      callbackUrl: 'http://127.0.0.1:9/v1/payment-callbacks/momo/x',
      description: 'Order payment',
    });
    assert.equal(submitted.kind, 'submitted');
    const { status } = await pollUntilFinal(gateway.providers.momo, reference);
    assert.equal(status.status, 'successful');
    const airtel = await gateway.providers.airtel.getStatus(randomUUID());
    assert.equal(airtel.status, 'not_found');
    await close();
    assert.equal(sim.submissions().length, before + 1);
    assert.equal(sim.submissions().at(-1)!.reference, reference);
    const res = await fetch(sim.url);
    assert.equal(res.status, 200, 'the simulator still answers after the gateway closed');
  });
});
