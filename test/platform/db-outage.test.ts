// Database outages answer 503 service_unavailable with Retry-After, never 500, and the log says once
// per outage that the database is unreachable (and once that it is back), not once per request.
// The real outage runs on PostgreSQL through a TCP proxy this test cuts and restores; the shared
// server itself is never touched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import postgres from 'postgres';
import { loadConfig } from '../../src/config.ts';
import { OffsetClock } from '../../src/platform/clock.ts';
import { databaseUnavailable } from '../../src/platform/db-errors.ts';
import { toApiError } from '../../src/platform/error-replies.ts';
import { createHost, type Host } from '../../src/platform/http.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createService } from '../../src/service.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  TEST_ADMIN_KEY,
  type Harness,
} from '../helpers/harness.ts';
import { TEST_DATABASE_CONNECTIONS } from '../helpers/process.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { waitFor } from '../helpers/wait.ts';

const PG = process.env.TEST_DATABASE_URL;
const UNREACHABLE = /^database unreachable/;
const BACK = 'database reachable again';

type Line = Record<string, unknown> & { msg?: string; level?: number };

/** A service as the harness makes one, with its log kept in `lines` (the harness's is silent). */
async function startLoggedService(databaseUrl?: string): Promise<{ h: Harness; lines: Line[] }> {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    DATA_DIR: 'memory://',
    SEED_DEMO: 'false',
    PAYMENT_PROVIDER: 'simulator',
    PAYMENT_TIME_SCALE: '0.01',
    PAYMENT_HTTP_TIMEOUT_MS: '500',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, ...TEST_DATABASE_CONNECTIONS } : {}),
  });
  const clock = new OffsetClock();
  const service = await createService(config, { clock, logger: createLogger('info', sink) });
  return { h: { service, clock, config, close: () => service.close() }, lines };
}

function countLines(lines: Line[], match: RegExp | string): number {
  return lines.filter((l) => (typeof match === 'string' ? l.msg === match : match.test(String(l.msg))))
    .length;
}

function assertUnavailable(
  res: { statusCode: number; headers: Record<string, unknown>; json(): Record<string, unknown> },
  what: string,
) {
  assert.equal(res.statusCode, 503, `${what}: 503 (got ${res.statusCode})`);
  const body = res.json();
  assert.equal(body.code, 503, what);
  assert.equal(body.error_code, 'service_unavailable', what);
  assert.equal(res.headers['retry-after'], '5', `${what}: Retry-After`);
  assert.match(String(res.headers['x-request-id']), /^req_[A-Za-z0-9]{24}$/, `${what}: X-Request-Id`);
  assert.equal(body.request_id, res.headers['x-request-id'], what);
}

describe('connection-level database failures', () => {
  test('are recognised through Drizzle wrappers; other failures are not', () => {
    const socketError = (code: string) =>
      Object.assign(new Error(`connect ${code}`), { code, syscall: 'connect' });
    const wrapped = (cause: unknown) =>
      Object.assign(new Error('Failed query: select 1\nparams: '), { cause });
    for (const error of [
      socketError('ECONNREFUSED'),
      wrapped(socketError('ECONNRESET')),
      wrapped(Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' })),
      Object.assign(new Error('write CONNECTION_ENDED'), { code: 'CONNECTION_ENDED' }),
      Object.assign(new Error('connect timeout'), { code: 'CONNECT_TIMEOUT' }),
      wrapped(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      wrapped(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' })),
      Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        syscall: 'write',
      }),
      new Error('PGlite is closed'),
    ]) {
      assert.ok(databaseUnavailable(error), String((error as Error).message));
      const apiError = toApiError(error);
      assert.equal(apiError.status, 503);
      assert.equal(apiError.code, 'service_unavailable');
      assert.equal(apiError.headers['Retry-After'], '5');
    }
    for (const error of [
      new Error('boom'),
      wrapped(Object.assign(new Error('duplicate key'), { code: '23505' })),
      Object.assign(new Error('syntax error'), { code: '42601' }),
      Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT', syscall: 'open' }),
      // a payment provider out of reach is not the database
      Object.assign(new TypeError('fetch failed'), { cause: socketError('ECONNREFUSED') }),
    ]) {
      assert.equal(databaseUnavailable(error), false, String((error as Error).message));
      assert.equal(toApiError(error).status, 500);
    }
  });

  describe('through the HTTP layer', () => {
    let h: Harness;
    let lines: Line[];
    let host: Host;
    let failing = true;

    before(async () => {
      ({ h, lines } = await startLoggedService());
      host = createHost(h.service.ctx, { name: 'api', logger: createLogger('silent') });
      host.get('/query', async () => {
        if (failing) {
          throw Object.assign(new Error('Failed query: select $1\nparams: buyer@example.org'), {
            cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
              code: 'ECONNREFUSED',
              syscall: 'connect',
            }),
          });
        }
        return { ok: true };
      });
      await host.ready();
    });
    after(async () => {
      await host.close();
      await h.close();
    });

    test('answer 503 with Retry-After, logged once, and the end of the outage once', async () => {
      for (let i = 0; i < 5; i++) assertUnavailable(await host.inject({ url: '/query' }), `request ${i}`);
      assert.equal(countLines(lines, UNREACHABLE), 1, 'one line for the outage');
      const line = lines.find((l) => UNREACHABLE.test(String(l.msg)))!;
      assert.ok(line.level! >= 40, 'warn or error');
      assert.equal(line.code, 'ECONNREFUSED');
      assert.doesNotMatch(JSON.stringify(lines), /buyer@example\.org/, 'no statement parameters in the log');
      assert.equal(lines.filter((l) => l.level === 50 && l.msg === 'request failed').length, 0);
      failing = false;
      // The database itself answers, so the watch sees the outage over at its next probe.
      await waitFor('the end of the outage in the log', () => countLines(lines, BACK) === 1, 30_000);
      assert.equal((await host.inject({ url: '/query' })).statusCode, 200);
    });
  });
});

describe('a PostgreSQL outage', { skip: PG ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let h: Harness;
  let lines: Line[];
  let proxy: TcpProxy;
  let name: string;
  let token: string;
  let eventId: string;

  before(async () => {
    const base = new URL(PG!);
    proxy = new TcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
    await proxy.start();
    name = `t_outage_${randomBytes(4).toString('hex')}`;
    const admin = postgres(PG!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(PG!);
    url.host = `127.0.0.1:${proxy.port}`;
    url.pathname = `/${name}`;
    ({ h, lines } = await startLoggedService(url.toString()));
    const partner = await makePartner(h);
    token = await getToken(h, partner);
    eventId = (await makeEvent(h, partner)).id;
  });
  after(async () => {
    if (proxy && proxy.port) await proxy.start().catch(() => {});
    await h?.close();
    await proxy?.cut();
    if (name) {
      const admin = postgres(PG!, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  const events = () => h.service.api.inject({ url: '/v1/events', headers: bearer(token) });

  test('every request answers 503 with Retry-After while it lasts, one line says so, and service resumes', async () => {
    assert.equal((await events()).statusCode, 200, 'before the outage');
    assert.equal(countLines(lines, UNREACHABLE), 0);

    await proxy.cut();
    // A few requests, not many: each failed reconnection makes postgres.js wait longer before the
    // next (its backoff, up to 20 s), and a request waits for the next attempt before it fails.
    assertUnavailable(await events(), 'GET /v1/events');
    assertUnavailable(
      await h.service.api.inject({ url: `/v1/events/${eventId}`, headers: bearer(token) }),
      'GET /v1/events/{id}',
    );
    assertUnavailable(
      await h.service.api.inject({
        method: 'POST',
        url: '/v1/checkout-sessions',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: {
          event_id: eventId,
          on_success_url: 'https://shop.example.org/thanks',
          on_cancel_url: 'https://shop.example.org/cart',
        },
      }),
      'POST /v1/checkout-sessions',
    );
    for (const app of [h.service.api, h.service.site, h.service.app]) {
      assertUnavailable(await app.inject({ url: '/readyz' }), 'GET /readyz');
    }
    assert.equal(countLines(lines, UNREACHABLE), 1, 'one line for the whole outage');
    assert.equal(
      lines.filter((l) => l.level === 50 && l.msg === 'request failed').length,
      0,
      'no failed-request error line per request',
    );
    assert.equal(countLines(lines, BACK), 0);

    await proxy.start();
    await waitFor('GET /v1/events to succeed again', async () => (await events()).statusCode === 200);
    await waitFor('the end of the outage in the log', () => countLines(lines, BACK) === 1, 30_000);
    assert.equal((await h.service.api.inject({ url: '/readyz' })).statusCode, 200);

    // A second outage is a new one: one more line.
    await proxy.cut();
    assertUnavailable(await events(), 'second outage');
    assertUnavailable(await events(), 'second outage, again');
    assert.equal(countLines(lines, UNREACHABLE), 2);
    await proxy.start();
    await waitFor(
      'GET /v1/events to succeed after the second outage',
      async () => (await events()).statusCode === 200,
    );
    await waitFor('the end of the second outage in the log', () => countLines(lines, BACK) === 2, 30_000);
  });
});
