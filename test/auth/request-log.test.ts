// The API request log through the real API host: what is recorded (refusals included), what never
// is (requests naming no client, query strings, bodies, credentials), the bound of 100 rows per
// organization even with two writers at once, and a failing write that no request notices.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { insertApiClient, markClientRevoked } from '../../src/auth/clients.ts';
import {
  COMPACT_EVERY,
  KEPT_PER_ORG,
  listRequestLog,
  MAX_BUFFERED,
  RequestLog,
  storedPath,
} from '../../src/auth/request-log.ts';
import type { AppContext } from '../../src/context.ts';
import {
  bearer,
  getToken,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

const ORIGIN = 'https://shop.example.org';

let h: Harness;
let ctx: AppContext;
before(async () => {
  h = await startHarness();
  ctx = h.service.ctx;
});
after(() => h.close());

function api(options: InjectOptions) {
  return h.service.api.inject(options);
}

async function logOf(partner: TestPartner, clientId?: string) {
  await ctx.requestLog.flush();
  return listRequestLog(ctx.database.db, partner.organizationId, { clientId });
}

function tokenRequest(clientId: string, clientSecret: string, ip = '10.20.0.1') {
  return api({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
    remoteAddress: ip,
  });
}

describe('what the request log records', () => {
  test('a successful GET /v1/events: client, method, path without its query, status, request id, time', async () => {
    const partner = await makePartner(h);
    h.clock.advance(3600_000);
    const token = await getToken(h, partner);
    const res = await api({ url: '/v1/events?limit=5', headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    const [row, tokenRow] = await logOf(partner);
    assert.equal(row!.clientId, partner.clientId);
    assert.equal(row!.organizationId, partner.organizationId);
    assert.equal(row!.credential, 'bearer');
    assert.equal(row!.method, 'GET');
    assert.equal(row!.path, '/v1/events');
    assert.equal(row!.status, 200);
    assert.equal(row!.errorCode, null);
    assert.equal(row!.requestId, res.headers['x-request-id']);
    // the service's clock, an hour ahead of the real one
    assert.ok(row!.at.getTime() > Date.now() + 3500_000, row!.at.toISOString());
    assert.equal(tokenRow!.credential, 'token');
    assert.equal(tokenRow!.path, '/v1/oauth/token');
    assert.equal(tokenRow!.status, 200);
  });

  test("a revoked client's 401, a missing scope's 403 and a validation failure, with their error codes", async () => {
    const partner = await makePartner(h);
    const narrow = await getToken(h, partner, 'events:read');
    const full = await getToken(h, partner);
    const scoped = await api({ url: '/v1/orders/ord_ZZZZZZZZZZZZZZZZZZZZZZZZ', headers: bearer(narrow) });
    assert.equal(scoped.statusCode, 403);
    const invalid = await api({
      method: 'POST',
      url: '/v1/orders',
      headers: { ...bearer(full), 'content-type': 'application/json' },
      payload: JSON.stringify({ event_id: 'BODYMARKER1', nonsense: true }),
    });
    assert.equal(invalid.statusCode, 400, invalid.body);
    await markClientRevoked(ctx.database.db, partner.clientId, h.clock.now());
    const revoked = await api({ url: '/v1/events', headers: bearer(full) });
    assert.equal(revoked.statusCode, 401);

    const rows = await logOf(partner);
    const seen = rows.slice(0, 3).map((r) => [r.method, r.path, r.status, r.errorCode, r.requestId]);
    assert.deepEqual(seen, [
      ['GET', '/v1/events', 401, 'invalid_token', revoked.headers['x-request-id']],
      ['POST', '/v1/orders', 400, 'validation_failed', invalid.headers['x-request-id']],
      [
        'GET',
        '/v1/orders/ord_ZZZZZZZZZZZZZZZZZZZZZZZZ',
        403,
        'insufficient_scope',
        scoped.headers['x-request-id'],
      ],
    ]);
  });

  test('an expired token still names its client: its 401 is logged', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    h.clock.advance((h.config.tokenTtlSeconds + 1) * 1000);
    const res = await api({ url: '/v1/events', headers: bearer(token) });
    assert.equal(res.statusCode, 401);
    const [row] = await logOf(partner);
    assert.deepEqual(
      [row!.requestId, row!.status, row!.errorCode],
      [res.headers['x-request-id'], 401, 'invalid_token'],
    );
  });

  test('the token endpoint: a wrong secret and the rate limit are logged; an unknown client id is not', async () => {
    const partner = await makePartner(h);
    const wrong = await tokenRequest(partner.clientId, 'not-the-secret');
    assert.equal(wrong.statusCode, 401);
    const unknown = await tokenRequest('cli_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'whatever');
    assert.equal(unknown.statusCode, 401);
    let limited;
    for (let i = 0; i < 50 && limited?.statusCode !== 429; i++) {
      limited = await tokenRequest(partner.clientId, 'not-the-secret', '10.20.0.2');
    }
    assert.equal(limited!.statusCode, 429);

    const rows = await logOf(partner);
    const first = rows.at(-1)!;
    assert.deepEqual([first.credential, first.status, first.errorCode], ['token', 401, 'invalid_client']);
    assert.equal(first.requestId, wrong.headers['x-request-id']);
    assert.deepEqual([rows[0]!.status, rows[0]!.errorCode], [429, 'rate_limited']);
    const ids = rows.map((r) => r.requestId);
    assert.ok(!ids.includes(String(unknown.headers['x-request-id'])));
  });

  test("a publishable key's requests are logged under its client, refusals included", async () => {
    const partner = await makePartner(h, { allowedDomains: [ORIGIN] });
    const headers = { 'x-service-publishable-key': partner.publishableKey };
    const ok = await api({ url: '/v1/events', headers: { ...headers, origin: ORIGIN } });
    assert.equal(ok.statusCode, 200);
    const foreign = await api({ url: '/v1/events', headers: { ...headers, origin: 'https://evil.example' } });
    assert.equal(foreign.statusCode, 403);
    let limited;
    for (let i = 0; i < 300 && limited?.statusCode !== 429; i++) {
      limited = await api({
        url: '/v1/events',
        headers: { ...headers, origin: ORIGIN },
        remoteAddress: '10.20.1.1',
      });
    }
    assert.equal(limited!.statusCode, 429);

    const rows = await logOf(partner);
    assert.ok(rows.every((r) => r.clientId === partner.clientId && r.credential === 'publishable'));
    assert.deepEqual([rows[0]!.status, rows[0]!.errorCode], [429, 'rate_limited']);
    const byId = new Map(rows.map((r) => [r.requestId, r]));
    assert.equal(byId.get(String(ok.headers['x-request-id']))?.status, 200);
    assert.equal(byId.get(String(foreign.headers['x-request-id']))?.errorCode, 'origin_not_allowed');
  });

  test('requests naming no client are not logged: no credential, a forged token, an unknown key', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const before = await logOf(partner);
    const answers = [
      await api({ url: '/v1/events' }),
      await api({ url: '/v1/events', headers: bearer(token.slice(0, -4) + 'AAAA') }),
      await api({
        url: '/v1/events',
        headers: { 'x-service-publishable-key': 'pk_unknown0123456789', origin: ORIGIN },
      }),
    ];
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [401, 401, 401],
    );
    await ctx.requestLog.flush();
    const ids = new Set(answers.map((r) => String(r.headers['x-request-id'])));
    const all = await ctx.database.rows<{ request_id: string }>(sql`SELECT request_id FROM api_request_log`);
    assert.ok(all.every((r) => !ids.has(r.request_id)));
    assert.equal((await logOf(partner)).length, before.length);
  });

  test('no query string, body, secret, token or publishable key is stored', async () => {
    const partner = await makePartner(h, { allowedDomains: [ORIGIN] });
    const token = await getToken(h, partner);
    await api({ url: '/v1/events?cursor=QUERYVALUE2', headers: bearer(token) });
    await api({
      url: '/v1/events?x=1#frag',
      headers: { 'x-service-publishable-key': partner.publishableKey, origin: ORIGIN },
    });
    await api({
      method: 'POST',
      url: '/v1/orders?QUERYVALUE3=1',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: JSON.stringify({ buyer: { email: 'BODYMARKER2@example.org' } }),
    });
    await tokenRequest(partner.clientId, partner.clientSecret);
    const rows = await logOf(partner);
    assert.ok(rows.length >= 4);
    const text = JSON.stringify(rows);
    for (const secret of [
      'QUERYVALUE',
      'BODYMARKER',
      'frag',
      partner.clientSecret,
      token,
      partner.publishableKey,
      '?',
      '#',
    ]) {
      assert.ok(!text.includes(secret), `${secret} stored`);
    }
  });

  test('stored paths: query and fragment cut, bounded, no control characters', () => {
    assert.equal(storedPath('/v1/events?a=1'), '/v1/events');
    assert.equal(storedPath('/v1/x#y?z'), '/v1/x');
    assert.equal(storedPath(`/v1/${'a'.repeat(500)}`).length, 200);
    assert.equal(storedPath('/v1/a\u0000b\u001fc'), '/v1/a?b?c');
  });
});

describe('the bound, the organizations and the filter', () => {
  test('150 requests leave exactly the newest 100', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await api({ url: `/v1/events/evt_n${i}`, headers: bearer(token) });
      ids.push(String(res.headers['x-request-id']));
    }
    const rows = await logOf(partner);
    assert.equal(rows.length, KEPT_PER_ORG);
    assert.deepEqual(
      rows.map((r) => r.requestId),
      ids.slice(-KEPT_PER_ORG).reverse(),
    );
    const [count] = await ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM api_request_log WHERE organization_id = ${partner.organizationId}`,
    );
    assert.equal(count!.n, KEPT_PER_ORG);
  });

  test('two writers at once still keep exactly the newest 100', async () => {
    const partner = await makePartner(h);
    const writers = [new RequestLog(ctx), new RequestLog(ctx)];
    for (let i = 0; i < 240; i++) {
      writers[i % 2]!.record({
        credential: 'bearer',
        client: partner.clientId,
        method: 'GET',
        url: `/v1/events/${i}`,
        status: 200,
        errorCode: null,
        requestId: `req_concurrent_${i}`,
        at: h.clock.now(),
      });
    }
    await Promise.all(writers.map((w) => w.flush()));
    await Promise.all(writers.map((w) => w.flush()));
    assert.equal((await logOf(partner)).length, KEPT_PER_ORG);
  });

  test("two organizations do not see each other's requests", async () => {
    const a = await makePartner(h);
    const b = await makePartner(h);
    await api({ url: '/v1/events', headers: bearer(await getToken(h, a)) });
    await api({ url: '/v1/events', headers: bearer(await getToken(h, b)) });
    const rowsA = await logOf(a);
    const rowsB = await logOf(b);
    assert.ok(rowsA.length > 0 && rowsB.length > 0);
    assert.ok(rowsA.every((r) => r.organizationId === a.organizationId && r.clientId === a.clientId));
    assert.ok(rowsB.every((r) => r.organizationId === b.organizationId && r.clientId === b.clientId));
    assert.deepEqual(await logOf(a, b.clientId), []);
  });

  test('the client filter keeps one client', async () => {
    const partner = await makePartner(h);
    const { client: second, clientSecret } = await insertApiClient(ctx.database.db, {
      organizationId: partner.organizationId,
      name: 'Second',
      scopes: ['events:read'],
      allowedDomains: [],
      returnUrlDomains: [],
    });
    await api({ url: '/v1/events', headers: bearer(await getToken(h, partner)) });
    const token = (await tokenRequest(second.id, clientSecret, '10.20.3.3')).json().access_token as string;
    await api({ url: '/v1/events', headers: bearer(token) });
    const all = await logOf(partner);
    const only = await logOf(partner, second.id);
    assert.equal(all.length, 4);
    assert.equal(only.length, 2);
    assert.ok(only.every((r) => r.clientId === second.id));
    assert.equal((await listRequestLog(ctx.database.db, partner.organizationId, { limit: 1 })).length, 1);
  });
});

describe('failures stay out of requests', () => {
  test('a failing write is logged once, drops its entries, and requests still succeed', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    await ctx.requestLog.flush();
    const log = ctx.requestLog;
    const warnings: unknown[] = [];
    const saved = { log: log.log, write: ctx.database.write };
    log.log = { warn: (...args: unknown[]) => warnings.push(args), info: () => {} } as never;
    ctx.database.write = async () => {
      throw new Error('database down');
    };
    const dropped = log.dropped;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await api({ url: '/v1/events', headers: bearer(token) });
        assert.equal(res.statusCode, 200);
        await ctx.requestLog.flush(); // resolves: the failure is not thrown
      }
    } finally {
      ctx.database.write = saved.write;
      log.log = saved.log;
    }
    assert.equal(warnings.length, 1);
    assert.equal(log.dropped, dropped + 2);
    const res = await api({ url: '/v1/events', headers: bearer(token) });
    const rows = await logOf(partner);
    assert.equal(rows[0]!.requestId, res.headers['x-request-id']);
  });

  test("between writes the buffer keeps each client's newest 100 entries, the others superseded", async () => {
    const [busy, quiet] = [await makePartner(h), await makePartner(h)];
    const inserted: number[] = [];
    const spied = {
      ...ctx,
      database: {
        ...ctx.database,
        write: async <T>(statement: Parameters<typeof ctx.database.write>[0]) => {
          const rows = await ctx.database.write<T>(statement);
          inserted.push(rows.length);
          return rows;
        },
      },
    };
    const log = new RequestLog(spied as AppContext);
    const entry = (client: string, n: number) => ({
      credential: 'bearer' as const,
      client,
      method: 'GET',
      url: '/v1/events',
      status: 200,
      errorCode: null,
      requestId: `req_${client}_${n}`,
      at: ctx.clock.now(),
    });
    for (let n = 0; n < 3 * COMPACT_EVERY; n++) log.record(entry(busy.clientId, n));
    for (let n = 0; n < 5; n++) log.record(entry(quiet.clientId, n));
    await log.flush();
    assert.equal(log.dropped, 0, 'superseded entries are not counted as dropped');
    assert.equal(inserted[0], KEPT_PER_ORG + 5, 'the INSERT carried only what can be shown');
    const rows = await listRequestLog(ctx.database.db, busy.organizationId);
    assert.deepEqual(
      rows.map((r) => r.requestId),
      Array.from({ length: KEPT_PER_ORG }, (_, i) => `req_${busy.clientId}_${3 * COMPACT_EVERY - 1 - i}`),
      "the busy client's newest 100, newest first",
    );
    assert.equal((await listRequestLog(ctx.database.db, quiet.organizationId)).length, 5);
  });

  test('a write stuck on an unreachable database does not hold the shutdown up', async () => {
    const stalled = { ...ctx, database: { ...ctx.database, write: () => new Promise<never>(() => {}) } };
    const log = new RequestLog(stalled);
    const warnings: unknown[] = [];
    log.log = { warn: (...args: unknown[]) => warnings.push(args), info: () => {} } as never;
    log.record({
      credential: 'bearer',
      client: 'cli_x',
      method: 'GET',
      url: '/v1/events',
      status: 200,
      errorCode: null,
      requestId: 'req_stuck',
      at: new Date(),
    });
    const started = Date.now();
    await log.close();
    assert.ok(Date.now() - started < 10_000, 'close() gave up waiting');
    assert.equal(warnings.length, 1);
  });

  test('the buffer is bounded: with more clients than it holds, the oldest are dropped and counted', async () => {
    const stalled = { ...ctx, database: { ...ctx.database, write: () => new Promise<never>(() => {}) } };
    const log = new RequestLog(stalled);
    const total = MAX_BUFFERED + COMPACT_EVERY + 10;
    for (let i = 0; i < total; i++) {
      log.record({
        credential: 'publishable' as const,
        client: `pk_${i}`,
        method: 'GET',
        url: '/v1/events',
        status: 401,
        errorCode: 'invalid_key',
        requestId: `req_${i}`,
        at: new Date(),
      });
    }
    const held = (log as unknown as { buffer: unknown[] }).buffer.length;
    assert.ok(held <= MAX_BUFFERED + COMPACT_EVERY, `${held} entries held`);
    assert.equal(log.dropped, total - held);
    assert.ok(log.dropped > 0);
  });
});
