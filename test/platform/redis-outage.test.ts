// Redis is optional at run time. With REDIS_URL at a port that refuses, or with Redis cut or
// stalled mid-run through a TCP proxy this test controls (the shared Redis itself is never
// touched), every request is answered as usual and rate limits are counted in this process's
// memory: one warning when that begins, one line when Redis is back, JSON lines only, /readyz 200
// naming redis as degraded, redis_up 0. Once Redis answers again, limits count in Redis again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { createLogger } from '../../src/platform/logger.ts';
import {
  bearer,
  makeEvent,
  makePartner,
  startHarness,
  TEST_ADMIN_KEY,
  testRedisKeyPrefix,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { freePort, startMain } from '../helpers/process.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { parseMetrics } from '../metrics/parse-metrics.ts';
import { waitFor } from '../helpers/wait.ts';

const REDIS = process.env.TEST_REDIS_URL;
/** A bound against a hang, not a performance assertion: a request usually takes milliseconds. */
const ANSWER_MS = 3000;
const FALLBACK_BEGINS = /^Redis unreachable/;
const REDIS_BACK = /^Redis reachable again/;

type Line = Record<string, unknown> & { msg?: string; level?: number };

/** A logger at info whose lines are kept parsed; a line that is not JSON is kept as a failure. */
function keptLog(): { logger: Logger; lines: Line[]; notJson: string[] } {
  const lines: Line[] = [];
  const notJson: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        try {
          lines.push(JSON.parse(line) as Line);
        } catch {
          notJson.push(line);
        }
      }
      done();
    },
  });
  return { logger: createLogger('info', sink), lines, notJson };
}

function countLines(lines: Line[], match: RegExp, level?: number): number {
  return lines.filter((l) => match.test(String(l.msg)) && (level === undefined || l.level === level)).length;
}

/** What anything else writes to stderr meanwhile (ioredis prints "Unhandled error event" there). */
function captureStderr(): { text: () => string; restore: () => void } {
  const write = process.stderr.write;
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    text += String(chunk);
    return (write as (...a: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
  }) as typeof process.stderr.write;
  return { text: () => text, restore: () => void (process.stderr.write = write) };
}

/** A port on loopback that refuses connections: listened on, then closed. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `promise`, or a failure naming `what` if it takes longer than `ms`. */
async function within<T>(what: string, promise: Promise<T>, ms = ANSWER_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function samples(h: Harness): Promise<Map<string, number>> {
  return parseMetrics(await h.service.ctx.metrics!.registry.metrics());
}

async function degraded(h: Harness): Promise<string[]> {
  const res = await within('GET /readyz', h.service.api.inject({ url: '/readyz' }));
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.degraded as string[];
}

/** A token request, answered within its usual time. */
function tokenRequest(h: Harness, clientId: string, clientSecret: string, remoteAddress?: string) {
  return within(
    'POST /v1/oauth/token',
    h.service.api.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
      ...(remoteAddress !== undefined && { remoteAddress }),
    }),
  );
}

/** One token request for `clientId` from one IP with a wrong secret: 401 while allowed, 429 once limited. */
async function tokenAttempt(h: Harness, clientId: string): Promise<number> {
  return (await tokenRequest(h, clientId, 'sk_wrong', '10.7.7.7')).statusCode;
}

const unknownClientId = () => `cli_${randomBytes(12).toString('hex')}`;

/** A free ticket type large enough for the load below, and a paid one. */
const TICKET_TYPES = [
  { name: '5 km', price_minor: 0, capacity: 100_000, distance_km: 5 },
  { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 },
];

interface Seller {
  partner: TestPartner;
  token: string;
  eventId: string;
  free: string;
}

async function makeSeller(h: Harness): Promise<Seller> {
  const partner = await makePartner(h);
  const event = await makeEvent(h, partner, { ticket_types: TICKET_TYPES });
  const res = await tokenRequest(h, partner.clientId, partner.clientSecret);
  assert.equal(res.statusCode, 200, `token endpoint: ${res.body}`);
  const token = res.json().access_token as string;
  const detail = await within(
    'GET /v1/events/{id}',
    h.service.api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) }),
  );
  assert.equal(detail.statusCode, 200, detail.body);
  const types = detail.json().data.ticket_types as { ticket_type_id: string; price_minor: number }[];
  return { partner, token, eventId: event.id, free: types.find((t) => t.price_minor === 0)!.ticket_type_id };
}

/** A checkout session through the partner API; its hosted page's path on the SITE host. */
async function createSession(
  h: Harness,
  seller: Seller,
  ms = ANSWER_MS,
): Promise<{ id: string; path: string }> {
  const res = await within(
    'POST /v1/checkout-sessions',
    h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: { ...bearer(seller.token), 'content-type': 'application/json' },
      payload: JSON.stringify({
        event_id: seller.eventId,
        on_success_url: 'https://shop.example.org/thanks',
        on_cancel_url: 'https://shop.example.org/cart',
      }),
    }),
    ms,
  );
  assert.equal(res.statusCode, 201, `POST /v1/checkout-sessions: ${res.body}`);
  const data = res.json().data as { id: string; url: string };
  return { id: data.id, path: new URL(data.url).pathname };
}

/** The buyer's free order on the hosted page: one 5 km place, no payment. */
function freeOrderForm(seller: Seller, n: number): string {
  return new URLSearchParams({
    [`qty.${seller.free}`]: '1',
    'items[0].ticket_type_id': seller.free,
    'items[0].participant_name': `Runner ${n}`,
    'buyer.name': 'Amina Nakato',
    'buyer.email': 'amina@example.org',
    'buyer.phone': '0772123456',
    payment_method: '',
    payment_phone: '',
    action: 'pay',
  }).toString();
}

describe('with REDIS_URL at a port that refuses', () => {
  let h: Harness;
  let log: ReturnType<typeof keptLog>;
  let stderr: ReturnType<typeof captureStderr>;
  let seller: Seller;

  before(async () => {
    log = keptLog();
    stderr = captureStderr();
    const port = await refusingPort();
    h = await within(
      'the start',
      startHarness({
        env: {
          REDIS_URL: `redis://127.0.0.1:${port}`,
          METRICS_PORT: '0',
          RATE_LIMIT_TOKEN_BURST: '3',
          // the load below is many requests of few clients: no bearer limit gets in its way
          RATE_LIMIT_BEARER_RATE: '100000',
          RATE_LIMIT_BEARER_BURST: '100000',
        },
        service: { logger: log.logger },
      }),
      120_000,
    );
    seller = await makeSeller(h);
  });
  after(async () => {
    stderr?.restore();
    await h?.close();
  });

  test('the token endpoint, GET /v1/events, a checkout session and its page answer as usual; /readyz names redis', async () => {
    const events = await within(
      'GET /v1/events',
      h.service.api.inject({ url: '/v1/events', headers: bearer(seller.token) }),
    );
    assert.equal(events.statusCode, 200, events.body);
    const session = await createSession(h, seller);
    const page = await within('the checkout page', h.service.site.inject({ url: session.path }));
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /^text\/html/);

    for (const host of [h.service.api, h.service.site, h.service.app]) {
      const ready = await within('GET /readyz', host.inject({ url: '/readyz' }));
      assert.equal(ready.statusCode, 200, ready.body);
      assert.equal(ready.json().data.status, 'ready');
      assert.equal(ready.json().data.database, h.service.ctx.database.kind);
      assert.deepEqual(ready.json().data.degraded, ['redis']);
    }
    const metrics = await samples(h);
    assert.equal(metrics.get('redis_up'), 0);
    assert.ok((metrics.get('rate_limit_redis_fallbacks_total') ?? 0) >= 4, 'the checks above, in memory');
  });

  test('limits still hold, counted in memory', async () => {
    const id = unknownClientId();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await tokenAttempt(h, id));
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  });

  test('sales go on with 0 errors under a steady load of a few clients for 5 s', async (t) => {
    const sellers = [seller, ...(await Promise.all([1, 2, 3].map(() => makeSeller(h))))];
    const failures: string[] = [];
    let sessions = 0;
    let orders = 0;
    const deadline = Date.now() + 5000;
    await Promise.all(
      sellers.map(async (s, client) => {
        for (let n = 0; Date.now() < deadline; n++) {
          // Each buyer from an address of its own: the per-IP page and hold limits are not what is tested.
          const remoteAddress = `10.${client}.${Math.floor(n / 250)}.${n % 250}`;
          try {
            const session = await createSession(h, s, 10_000);
            sessions++;
            const res = await within(
              'the free order',
              h.service.site.inject({
                method: 'POST',
                url: `${session.path}/order`,
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                payload: freeOrderForm(s, n),
                remoteAddress,
              }),
              10_000,
            );
            if (res.statusCode !== 303)
              failures.push(`free order: ${res.statusCode} ${res.body.slice(0, 200)}`);
            else orders++;
          } catch (error) {
            failures.push(String(error));
          }
        }
      }),
    );
    assert.deepEqual(failures, [], '0 errors');
    assert.ok(orders >= sellers.length, `orders placed (${orders})`);
    const [row] = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM orders WHERE status = 'paid'`,
    );
    assert.equal(Number(row!.n), orders, 'every free order is paid');
    assert.ok(sessions >= orders);
    t.diagnostic(
      `${sessions} checkout sessions and ${orders} free orders by ${sellers.length} clients, 0 errors`,
    );
    assert.deepEqual(await degraded(h), ['redis']);
  });

  test('the log has JSON lines only, one warning that limits are counted in memory, nothing from ioredis', () => {
    assert.deepEqual(log.notJson, []);
    assert.equal(countLines(log.lines, FALLBACK_BEGINS, 40), 1, 'one warning');
    assert.equal(countLines(log.lines, /redis/i, 40), 1, 'no other warning about Redis');
    const warning = log.lines.find((l) => FALLBACK_BEGINS.test(String(l.msg)))!;
    // ECONNREFUSED, or ETIMEDOUT when a busy start kept the event loop past the connect timeout
    assert.match(String(warning.code), /^E[A-Z]+$/);
    assert.match(String(warning.reason), /\S/);
    assert.equal(countLines(log.lines, REDIS_BACK), 0);
    assert.equal(log.lines.filter((l) => (l.level ?? 0) >= 50).length, 0, 'no error line');
    assert.doesNotMatch(stderr.text(), /ioredis|Unhandled error event/);
  });
});

test('the service itself (src/main.ts) starts with REDIS_URL at a port that refuses, answers, and prints JSON lines only', async () => {
  const metricsPort = await freePort();
  const child = await startMain(
    {
      NODE_ENV: 'test',
      DATABASE_URL: '',
      DATA_DIR: 'memory://',
      SEED_DEMO: 'false',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      PAYMENT_PROVIDER: 'simulator',
      REDIS_URL: `redis://127.0.0.1:${await refusingPort()}`,
      METRICS_PORT: String(metricsPort),
    },
    120_000,
  );
  try {
    const token = await within(
      'POST /v1/oauth/token',
      fetch(`${child.urls.api}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${unknownClientId()}&client_secret=sk_wrong`,
      }),
    );
    assert.equal(token.status, 401);
    const ready = await within('GET /readyz', fetch(`${child.urls.api}/readyz`));
    assert.equal(ready.status, 200);
    assert.deepEqual(((await ready.json()) as { data: { degraded: string[] } }).data.degraded, ['redis']);
    const scrape = await within('GET /metrics', fetch(`http://127.0.0.1:${metricsPort}/metrics`));
    assert.equal(parseMetrics(await scrape.text()).get('redis_up'), 0);
  } finally {
    child.process.kill('SIGTERM');
  }
  assert.equal(await within('the stop', child.exited, 30_000), 0);
  const lines: Line[] = [];
  for (const line of child.output().split('\n').filter(Boolean)) {
    assert.doesNotThrow(() => lines.push(JSON.parse(line) as Line), `not a JSON line: ${line}`);
  }
  assert.equal(countLines(lines, FALLBACK_BEGINS, 40), 1, 'one warning');
  assert.equal(countLines(lines, /redis/i, 40), 1, 'no other warning about Redis');
  assert.equal(lines.filter((l) => (l.level ?? 0) >= 50).length, 0, 'no error line');
});

describe(
  'Redis cut, stalled and restored through a TCP proxy',
  { skip: REDIS ? false : 'needs Redis (TEST_REDIS_URL)' },
  () => {
    let proxy: TcpProxy;
    let a: Harness;
    let b: Harness;
    let log: ReturnType<typeof keptLog>;

    before(async () => {
      const target = new URL(REDIS!);
      proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
      await proxy.start();
      log = keptLog();
      // Two services of one deployment: `a` reaches Redis through the proxy, `b` directly.
      const prefix = testRedisKeyPrefix();
      const env = { REDIS_KEY_PREFIX: prefix, RATE_LIMIT_TOKEN_BURST: '3', METRICS_PORT: '0' };
      const through = new URL(REDIS!);
      through.host = `127.0.0.1:${proxy.port}`;
      a = await startHarness({
        env: { ...env, REDIS_URL: through.toString() },
        service: { logger: log.logger },
      });
      b = await startHarness({ env: { ...env, REDIS_URL: REDIS! } });
      await waitFor('both services to count in Redis', async () => {
        return (await degraded(a)).length === 0 && (await degraded(b)).length === 0;
      });
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await proxy?.cut();
    });

    /** Three attempts on `first` are allowed; the fourth, on `second`, is refused only if they share counts. */
    async function fourthOn(first: Harness, second: Harness): Promise<number[]> {
      const id = unknownClientId();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await tokenAttempt(first, id));
      statuses.push(await tokenAttempt(second, id));
      return statuses;
    }

    test('limits are shared through Redis, counted in memory while it refuses, and shared again once it is back', async () => {
      assert.deepEqual(await fourthOn(a, b), [401, 401, 401, 429], 'shared through Redis');
      assert.equal((await samples(a)).get('redis_up'), 1);

      await proxy.cut();
      // Answered from the first request on, and limited in this process's memory.
      const id = unknownClientId();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await tokenAttempt(a, id));
      assert.deepEqual(statuses, [401, 401, 401, 429], 'limited in memory');
      assert.equal(await tokenAttempt(b, id), 401, "b never saw a's counts");
      assert.deepEqual(await degraded(a), ['redis']);
      assert.deepEqual(await degraded(b), []);
      const down = await samples(a);
      assert.equal(down.get('redis_up'), 0);
      assert.ok((down.get('rate_limit_redis_fallbacks_total') ?? 0) >= 3);
      assert.equal(countLines(log.lines, FALLBACK_BEGINS, 40), 1);

      await proxy.start();
      await waitFor('a to count in Redis again', async () => (await degraded(a)).length === 0);
      assert.equal(countLines(log.lines, REDIS_BACK, 30), 1, 'one info line when Redis is back');
      assert.deepEqual(await fourthOn(a, b), [401, 401, 401, 429], 'a counts in Redis again');
      assert.deepEqual(await fourthOn(b, a), [401, 401, 401, 429], 'and reads what b counted');
      assert.equal((await samples(a)).get('redis_up'), 1);
    });

    test('a Redis that stops answering costs a request at most the command timeout, then nothing', async () => {
      const before = countLines(log.lines, FALLBACK_BEGINS, 40);
      proxy.stall();
      const id = unknownClientId();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await tokenAttempt(a, id));
      assert.deepEqual(statuses, [401, 401, 401, 429]);
      assert.deepEqual(await degraded(a), ['redis']);
      assert.equal(countLines(log.lines, FALLBACK_BEGINS, 40), before + 1, 'one warning for this outage');

      await proxy.cut();
      await proxy.start();
      await waitFor('a to count in Redis again', async () => (await degraded(a)).length === 0);
      assert.deepEqual(await fourthOn(a, b), [401, 401, 401, 429]);
      assert.deepEqual(log.notJson, []);
      assert.equal(countLines(log.lines, /redis/i, 40), before + 1, 'no other warning about Redis');
    });
  },
);
