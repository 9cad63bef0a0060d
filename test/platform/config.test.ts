// Configuration: the schema's defaults, its refusals (each naming the variable, what it accepts and
// what it got), the rules between variables, and the README table that documents it. Also the
// PostgreSQL connections, whose defaults follow WRITE_CONCURRENCY.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Type, type TSchema, type TSchemaOptions } from 'typebox';
import { ConfigError, EnvSchema, loadConfig, readVariable, type Config } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createHost } from '../../src/platform/http.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { LIVE_PAYMENT_ENV } from '../helpers/live-env.ts';

describe('database connections', () => {
  test('default: 2 for reads, WRITE_CONCURRENCY + 2 for transactions', () => {
    assert.deepEqual(loadConfig({ NODE_ENV: 'test' }).databaseConnections, { reads: 2, transactions: 34 });
    assert.deepEqual(loadConfig({ NODE_ENV: 'test', WRITE_CONCURRENCY: '8' }).databaseConnections, {
      reads: 2,
      transactions: 10,
    });
  });

  test('each size can be set', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_READ_CONNECTIONS: '4',
      DATABASE_TRANSACTION_CONNECTIONS: '50',
    });
    assert.deepEqual(config.databaseConnections, { reads: 4, transactions: 50 });
  });

  test('a size that is not a positive number fails at start naming the variable', () => {
    for (const name of ['DATABASE_READ_CONNECTIONS', 'DATABASE_TRANSACTION_CONNECTIONS']) {
      for (const value of ['0', '-3', 'many']) {
        assert.throws(
          () => loadConfig({ NODE_ENV: 'test', [name]: value }),
          (error: unknown) => error instanceof ConfigError && error.message.includes(name),
          `${name}=${value}`,
        );
      }
    }
  });
});

const VARIABLES = EnvSchema.properties as unknown as Record<string, TSchema & TSchemaOptions>;

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('configuration defaults', () => {
  const config = loadConfig({ NODE_ENV: 'development' });
  const table: [string, (c: Config) => unknown, unknown][] = [
    ['NODE_ENV', (c) => c.env, 'development'],
    ['API_URL', (c) => c.apiUrl.href, 'http://127.0.0.1:4000/'],
    ['SITE_URL', (c) => c.siteUrl.href, 'http://localhost:4001/'],
    ['APP_URL', (c) => c.appUrl.href, 'http://127.0.0.1:4002/'],
    ['DATABASE_URL', (c) => c.databaseUrl, undefined],
    ['DATA_DIR', (c) => c.dataDir, '.data'],
    ['REDIS_URL', (c) => c.redisUrl, undefined],
    ['REDIS_KEY_PREFIX', (c) => c.redisKeyPrefix, ''],
    ['ADMIN_API_KEY', (c) => c.adminApiKey, undefined],
    ['LOG_LEVEL', (c) => c.logLevel, 'info'],
    ['SEED_DEMO', (c) => c.seedDemo, true],
    ['TRUST_PROXY', (c) => c.trustProxy, false],
    ['RATE_LIMIT_TOKEN_*', (c) => c.rateLimits.tokenEndpoint, { rate: 10 / 60, burst: 10 }],
    ['RATE_LIMIT_BEARER_*', (c) => c.rateLimits.bearer, { rate: 100, burst: 200 }],
    ['RATE_LIMIT_PUBLISHABLE_*', (c) => c.rateLimits.publishableKey, { rate: 20, burst: 40 }],
    ['RATE_LIMIT_SITE_*', (c) => c.rateLimits.sitePages, { rate: 30, burst: 60 }],
    ['RATE_LIMIT_CALLBACK_*', (c) => c.rateLimits.callback, { rate: 50, burst: 200 }],
    ['SHUTDOWN_GRACE_SECONDS', (c) => c.shutdownGraceSeconds, 10],
    [
      'REQUEST_*_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS',
      (c) => c.http,
      {
        headersTimeoutMs: 10_000,
        bodyTimeoutMs: 10_000,
        keepAliveTimeoutMs: 72_000,
      },
    ],
    ['WRITE_CONCURRENCY', (c) => c.writeConcurrency, 32],
    // development never sheds (the other environments' defaults: below, and overload.test.ts)
    [
      'OVERLOAD_*',
      (c) => c.overload,
      { maxEventLoopDelayMs: 0, maxQueued: 0, maxQueueTimeMs: 0, retryAfterSeconds: 5 },
    ],
    ['DATABASE_*_CONNECTIONS', (c) => c.databaseConnections, { reads: 2, transactions: 34 }],
    ['RUN_JOBS', (c) => c.runJobs, true],
    ['HOLD_MINUTES', (c) => c.holdMinutes, 15],
    ['HOLD_LIMIT_TICKETS_PER_IP', (c) => c.holdLimitTicketsPerIp, 20],
    ['PROMPT_LIMIT_PER_PHONE', (c) => c.promptLimitPerPhone, 3],
    [
      'payments',
      (c) => c.payments,
      {
        provider: 'simulator',
        timeScale: 1,
        simulatorPort: 0,
        httpTimeoutMs: 15_000,
        // cards: UGX 20,000,000 and KES 750,000 (in cents)
        methods: {
          momo: { maxAmount: { UGX: 5_000_000 } },
          airtel: { maxAmount: { UGX: 5_000_000 } },
          mpesa: { maxAmount: { KES: 25_000_000 } },
          card: { maxAmount: { UGX: 20_000_000, KES: 75_000_000 } },
        },
      },
    ],
    // local receivers work on a developer's machine (test and production keep the guard: ssrf.test.ts)
    [
      'webhooks',
      (c) => c.webhooks,
      { allowPrivateUrls: true, timeScale: 1, timeoutMs: 15_000, concurrency: 16, sendRate: 600 },
    ],
    ['DEMO_WEBHOOK_URL', (c) => c.demoWebhookUrl, undefined],
    ['EVENT_STREAMS_PER_*', (c) => c.eventStreams, { perProcess: 500, perOrganization: 50 }],
    ['API_CLIENTS_PER_ORGANIZATION', (c) => c.apiClientsPerOrganization, 25],
  ];
  for (const [name, read, expected] of table) {
    test(`${name} defaults to ${JSON.stringify(expected)}`, () => assert.deepEqual(read(config), expected));
  }

  test('an empty value counts as unset', () => {
    const empty = Object.fromEntries(Object.keys(VARIABLES).map((name) => [name, '']));
    assert.deepEqual(loadConfig({ ...empty, NODE_ENV: 'test' }), loadConfig({ NODE_ENV: 'test' }));
  });

  test("an organization's share of event streams is never above the process's", () => {
    const config = loadConfig({ EVENT_STREAMS_PER_PROCESS: '20' });
    assert.deepEqual(config.eventStreams, { perProcess: 20, perOrganization: 20 });
  });

  test('some defaults follow other variables', () => {
    assert.equal(loadConfig({ NODE_ENV: 'test' }).logLevel, 'silent');
    assert.equal(loadConfig({ NODE_ENV: 'test' }).seedDemo, false);
    // the suite's processes share a small machine: their waits are its load, not their own work
    assert.deepEqual(loadConfig({ NODE_ENV: 'test' }).overload, {
      maxEventLoopDelayMs: 0,
      maxQueued: 1200,
      maxQueueTimeMs: 0,
      retryAfterSeconds: 5,
    });
    assert.equal(
      loadConfig({ NODE_ENV: 'test', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '250' }).overload.maxEventLoopDelayMs,
      250,
    );
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db.example.org/tickets' }).seedDemo, false);
    assert.equal(loadConfig({ SIMULATOR_TIME_SCALE: '0.5' }).payments.timeScale, 0.5);
    assert.equal(
      loadConfig({ SIMULATOR_TIME_SCALE: '0.5', PAYMENT_TIME_SCALE: '0.25' }).payments.timeScale,
      0.25,
    );
    const production = loadConfig({
      NODE_ENV: 'production',
      ADMIN_API_KEY: 'k'.repeat(24),
      ...LIVE_PAYMENT_ENV,
      PAYMENT_PROVIDER: '',
    });
    assert.equal(production.payments.provider, 'live');
    assert.equal(production.payments.methods.momo.live?.targetEnvironment, 'mtnuganda');
  });

  test('every variable says what it is for', () => {
    for (const [name, schema] of Object.entries(VARIABLES)) {
      assert.equal(typeof schema.description, 'string', name);
    }
  });
});

describe('configuration refusals', () => {
  // [variable, bad value, what the message says is allowed]
  const table: [string, string, RegExp][] = [
    ['NODE_ENV', 'staging', /must be development, production or test/],
    ['API_URL', 'not a url', /must be an absolute http\(s\) URL without a path/],
    ['SITE_URL', 'ftp://localhost:4001', /must be an absolute http\(s\) URL/],
    ['APP_URL', 'http://127.0.0.1:4002/app', /without a path, such as http:\/\/127\.0\.0\.1:4002/],
    ['DATABASE_URL', 'mysql://root:hunter2@db/tickets', /must be a postgres:\/\/ or postgresql:\/\/ URL/],
    ['REDIS_KEY_PREFIX', 'a b', /must be up to 64 letters, digits, '_', '.', ':' or '-'/],
    ['REDIS_KEY_PREFIX', 'x'.repeat(65), /must be up to 64 letters/],
    ['ADMIN_API_KEY', 'hunter2-too-short', /must be at least 24 characters long/],
    ['LOG_LEVEL', 'verbose', /must be fatal, error, warn, info, debug, trace or silent/],
    ['SEED_DEMO', 'sometimes', /must be true or false/],
    ['TRUST_PROXY', 'maybe', /must be true or false/],
    ['RATE_LIMIT_TOKEN_RATE', '0', /must be a positive number/],
    ['RATE_LIMIT_BEARER_BURST', '-5', /must be a positive number/],
    ['WRITE_CONCURRENCY', 'Infinity', /must be a positive number/],
    ['DATABASE_TRANSACTION_CONNECTIONS', 'lots', /must be a positive number/],
    ['HOLD_LIMIT_TICKETS_PER_IP', '9', /must be a whole number, at least 10/],
    ['HOLD_LIMIT_TICKETS_PER_IP', '20.5', /must be a whole number, at least 10/],
    ['PROMPT_LIMIT_PER_PHONE', '1.5', /must be a positive whole number/],
    ['OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', '-1', /must be a number from 0 to 60000/],
    ['OVERLOAD_MAX_QUEUED', '10.5', /must be a whole number from 0 to 1000000/],
    ['OVERLOAD_MAX_QUEUE_TIME_MS', '60001', /must be a whole number from 0 to 60000/],
    ['OVERLOAD_RETRY_AFTER_SECONDS', '0', /must be a positive whole number/],
    ['PAYMENT_PROVIDER', 'paypal', /must be simulator or live/],
    ['SIMULATOR_PORT', '65536', /must be a whole number from 0 to 65535/],
    ['SIMULATOR_URL', 'localhost:4010', /must be an absolute http\(s\) URL/],
    ['MOMO_BASE_URL', 'momo.example.org', /must be an absolute http\(s\) URL/],
    ['FLUTTERWAVE_BASE_URL', 'api.flutterwave.com', /must be an absolute http\(s\) URL/],
    ['FLUTTERWAVE_SECRET_HASH', 'too-short', /must be at least 16 characters long/],
    ['CARD_MAX_AMOUNT_UGX', '1.5', /must be a positive whole number/],
    ['CARD_MAX_AMOUNT_KES', '0', /must be a positive whole number/],
    ['WEBHOOK_TIMEOUT_MS', '30001', /must be a positive number, at most 30000/],
    ['WEBHOOK_SEND_RATE', '0', /must be a positive whole number, at most 100000/],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'on', /must be true or false/],
    ['DEMO_WEBHOOK_URL', 'javascript:alert(1)', /must be an absolute http\(s\) URL/],
    ['EVENT_STREAMS_PER_PROCESS', '0', /must be a positive whole number, at most 100000/],
    ['EVENT_STREAMS_PER_ORGANIZATION', '2.5', /must be a positive whole number, at most 100000/],
    ['API_CLIENTS_PER_ORGANIZATION', '10001', /must be a positive whole number, at most 10000/],
  ];
  for (const [name, value, allowed] of table) {
    test(`${name}=${value} is refused, naming the variable and what it accepts`, () => {
      const message = refusal({ NODE_ENV: 'test', [name]: value });
      assert.ok(message.startsWith(`${name} must be `), message);
      assert.match(message, allowed);
      if (VARIABLES[name]!.writeOnly) {
        assert.ok(!message.includes(value), `a secret is not repeated: ${message}`);
      } else {
        assert.ok(message.includes(`got "${value}"`), message);
      }
    });
  }

  test('every number refuses what is not one, and every flag what is not true or false', () => {
    for (const [name, schema] of Object.entries(VARIABLES)) {
      const value = Type.IsBoolean(schema)
        ? 'maybe'
        : Type.IsNumber(schema) || Type.IsInteger(schema)
          ? 'many'
          : null;
      if (value === null) continue;
      assert.ok(refusal({ NODE_ENV: 'test', [name]: value }).startsWith(`${name} must be `), name);
    }
  });

  test('flags read true, 1 and yes (any case) as on, false, 0 and no as off', () => {
    for (const on of ['true', 'TRUE', '1', 'yes'])
      assert.equal(loadConfig({ TRUST_PROXY: on }).trustProxy, true, on);
    for (const off of ['false', 'False', '0', 'no'])
      assert.equal(loadConfig({ RUN_JOBS: off }).runJobs, false, off);
  });

  test('rules between variables name the variables', () => {
    assert.match(
      refusal({ NODE_ENV: 'production', ...LIVE_PAYMENT_ENV }),
      /^ADMIN_API_KEY is required when NODE_ENV=production/,
    );
    for (const name of Object.keys(LIVE_PAYMENT_ENV).filter((n) => n !== 'PAYMENT_PROVIDER')) {
      assert.equal(
        refusal({ NODE_ENV: 'test', ...LIVE_PAYMENT_ENV, [name]: '' }),
        `${name} is required when PAYMENT_PROVIDER=live: a live start needs every MTN MoMo and Airtel ` +
          'Money credential (README, "Going live"); PAYMENT_PROVIDER=simulator runs without them',
      );
    }
  });
});

describe('MTN Disbursement credentials (refunds)', () => {
  const DISBURSEMENT = {
    MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'disbursement-key',
    MOMO_DISBURSEMENT_API_USER: 'disbursement-user',
    MOMO_DISBURSEMENT_API_KEY: 'disbursement-secret',
  };

  test('absent by default: refunds use the Collection credentials', () => {
    assert.equal(
      loadConfig({ NODE_ENV: 'test', ...LIVE_PAYMENT_ENV }).payments.methods.momo.live?.disbursement,
      undefined,
    );
  });

  test('the subscription key alone, or with its own API user and key, reach the MTN settings', () => {
    const keyOnly = loadConfig({
      NODE_ENV: 'test',
      ...LIVE_PAYMENT_ENV,
      MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'disbursement-key',
    });
    assert.deepEqual(keyOnly.payments.methods.momo.live?.disbursement, {
      subscriptionKey: 'disbursement-key',
    });
    const all = loadConfig({ NODE_ENV: 'test', ...LIVE_PAYMENT_ENV, ...DISBURSEMENT });
    assert.deepEqual(all.payments.methods.momo.live?.disbursement, {
      subscriptionKey: 'disbursement-key',
      apiUser: 'disbursement-user',
      apiKey: 'disbursement-secret',
    });
    assert.equal(
      all.payments.methods.momo.live?.subscriptionKey,
      'subscription-key',
      'Collection keeps its own key',
    );
  });

  test('the key and API key are secrets; a half-set API user and key is refused, naming both', () => {
    assert.equal(VARIABLES.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY!.writeOnly, true);
    assert.equal(VARIABLES.MOMO_DISBURSEMENT_API_KEY!.writeOnly, true);
    for (const missing of ['MOMO_DISBURSEMENT_API_USER', 'MOMO_DISBURSEMENT_API_KEY']) {
      const message = refusal({ NODE_ENV: 'test', ...LIVE_PAYMENT_ENV, ...DISBURSEMENT, [missing]: '' });
      assert.equal(
        message,
        'MOMO_DISBURSEMENT_API_USER and MOMO_DISBURSEMENT_API_KEY are set together or not at all',
      );
      assert.ok(!message.includes('disbursement-secret'), 'the secret is not repeated');
    }
    assert.equal(
      refusal({
        NODE_ENV: 'test',
        ...LIVE_PAYMENT_ENV,
        ...DISBURSEMENT,
        MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: '',
      }),
      'MOMO_DISBURSEMENT_API_USER needs MOMO_DISBURSEMENT_SUBSCRIPTION_KEY',
    );
  });

  test('with the simulator they are not used', () => {
    const config = loadConfig({ NODE_ENV: 'test', PAYMENT_PROVIDER: 'simulator', ...DISBURSEMENT });
    assert.equal(config.payments.methods.momo.live, undefined);
  });
});

describe('readVariable (programs beside the service)', () => {
  test('reads one variable through its schema: default, value, refusal', () => {
    assert.equal(readVariable('DATA_DIR', {}), '.data');
    assert.equal(readVariable('SIMULATOR_PORT', {}), undefined);
    assert.equal(readVariable('SIMULATOR_PORT', { SIMULATOR_PORT: '4011' }), 4011);
    assert.equal(readVariable('LOG_LEVEL', { LOG_LEVEL: 'debug' }), 'debug');
    assert.throws(
      () => readVariable('SIMULATOR_TIME_SCALE', { SIMULATOR_TIME_SCALE: 'fast' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.startsWith('SIMULATOR_TIME_SCALE must be a positive number, got "fast"'),
    );
    assert.throws(() => readVariable('DEMO_WEBHOOK_URL', { DEMO_WEBHOOK_URL: 'x' }), ConfigError);
  });
});

describe('TRUST_PROXY', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const [value, ip] of [
    ['false', '192.0.2.7'],
    ['true', '203.0.113.9'],
  ] as const) {
    test(`TRUST_PROXY=${value}: request.ip is ${ip}`, async () => {
      const config = loadConfig({ NODE_ENV: 'test', TRUST_PROXY: value });
      // a host reads the setting from its context's config
      const ctx: AppContext = { ...h.service.ctx, config };
      const host = createHost(ctx, {
        name: 'api',
        logger: createLogger('silent'),
      });
      host.get('/ip', async (request) => ({ ip: request.ip }));
      try {
        const res = await host.inject({
          url: '/ip',
          remoteAddress: '192.0.2.7',
          headers: { 'x-forwarded-for': '203.0.113.9' },
        });
        assert.deepEqual(res.json(), { ip });
      } finally {
        await host.close();
      }
    });
  }
});

describe('README', () => {
  test('its configuration table lists exactly the variables of the schema', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('## Configuration');
    const section = readme.slice(start, readme.indexOf('\n## ', start));
    const listed = new Set<string>();
    for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
      let previous = '';
      // `RATE_LIMIT_TOKEN_RATE` / `_BURST` names RATE_LIMIT_TOKEN_BURST too; names may hold digits (B2C)
      for (const [, name] of row.split('|')[1]!.matchAll(/`([A-Z0-9_]+)`/g)) {
        previous = name!.startsWith('_') ? previous.replace(/_[A-Z]+$/, name!) : name!;
        listed.add(previous);
      }
    }
    assert.deepEqual([...listed].sort(), Object.keys(VARIABLES).sort());
  });
});
