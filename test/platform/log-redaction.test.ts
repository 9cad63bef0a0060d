// No secret or personal data in logs: the three hosts built on the harness with a logger at info
// that writes to memory, credentials sent every way, and failed queries carrying a buyer's email
// and phone; the log must hold none of them, and still say what happened.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../src/context.ts';
import { buildApiHost, buildAppHost, buildSiteHost } from '../../src/hosts.ts';
import type { Host } from '../../src/platform/http.ts';
import { createLogger, redactSqlLiterals, redactUrl, serializeError } from '../../src/platform/logger.ts';
import {
  makeEvent,
  makePartner,
  startHarness,
  TEST_ADMIN_KEY,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { ticketTypeIds } from '../orders/order-helpers.ts';

const SHOP = 'https://shop.example.org';
// The buyer whose order fails: the email and phone (as typed and as stored) must never be logged.
const BUYER = { name: 'Nakato Refused', email: 'nakato.refused@example.org', phone: '0772 987 654' };
const BUYER_TEXTS = ['nakato.refused@example.org', '0772 987 654', '0772987654', '256772987654'];

let h: Harness;
let partner: TestPartner;
let api: Host;
let site: Host;
let app: Host;
let logger: ReturnType<typeof createLogger>;
const lines: string[] = [];
/** Every secret sent in this file, to be found nowhere in the log. */
const secrets: string[] = [];

before(async () => {
  h = await startHarness();
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  logger = createLogger('info', sink);
  const ctx: AppContext = { ...h.service.ctx, log: logger };
  [api, site, app] = await Promise.all([
    buildApiHost(ctx, logger),
    buildSiteHost(ctx, logger),
    buildAppHost(ctx, logger),
  ]);
  await Promise.all([api.ready(), site.ready(), app.ready()]);
  partner = await makePartner(h, { allowedDomains: [SHOP], returnUrlDomains: [SHOP] });
  secrets.push(partner.clientSecret, partner.publishableKey, TEST_ADMIN_KEY);
});
after(async () => {
  await Promise.all([api?.close(), site?.close(), app?.close()]);
  await h.close();
});

let ip = 0;
/** A token request from its own address, so the endpoint's rate limit never answers instead. */
function tokenRequest(options: { url?: string; headers?: Record<string, string>; payload?: string }) {
  return api.inject({
    method: 'POST',
    url: options.url ?? '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    payload: options.payload ?? 'grant_type=client_credentials',
    remoteAddress: `10.61.0.${++ip}`,
  });
}

async function mintToken(): Promise<string> {
  const res = await tokenRequest({
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: partner.clientId,
      client_secret: partner.clientSecret,
    }).toString(),
  });
  assert.equal(res.statusCode, 200, res.body);
  const token = res.json().access_token as string;
  secrets.push(token);
  return token;
}

function logText(): string {
  return lines.join('\n');
}

function expectNoSecretOrBuyerData(label: string): void {
  const text = logText();
  for (const secret of secrets)
    assert.ok(!text.includes(secret), `${label}: ${secret.slice(0, 6)}... is not logged`);
  for (const value of BUYER_TEXTS) assert.ok(!text.includes(value), `${label}: ${value} is not logged`);
}

describe('credentials sent every way', () => {
  test('the token endpoint: Basic, form and JSON body, and the refused query string', async () => {
    const basic = Buffer.from(
      `${encodeURIComponent(partner.clientId)}:${encodeURIComponent(partner.clientSecret)}`,
    ).toString('base64');
    const viaBasic = await tokenRequest({ headers: { authorization: `Basic ${basic}` } });
    assert.equal(viaBasic.statusCode, 200, viaBasic.body);
    secrets.push(viaBasic.json().access_token);
    await mintToken();
    const viaJson = await tokenRequest({
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      }),
    });
    assert.equal(viaJson.statusCode, 200, viaJson.body);
    secrets.push(viaJson.json().access_token);
    const wrong = `sk_wrong${'x'.repeat(30)}`;
    secrets.push(wrong);
    const wrongBasic = await tokenRequest({
      headers: { authorization: `Basic ${Buffer.from(`${partner.clientId}:${wrong}`).toString('base64')}` },
    });
    assert.equal(wrongBasic.statusCode, 401);

    const inQuery = await tokenRequest({
      url: `/v1/oauth/token?grant_type=client_credentials&client_id=${partner.clientId}&client_secret=${partner.clientSecret}`,
      payload: '',
    });
    assert.equal(inQuery.statusCode, 400, inQuery.body);
    const requestLine = lines.find(
      (l) => l.includes(inQuery.headers['x-request-id'] as string) && l.includes('"url"'),
    );
    assert.ok(requestLine, 'the refused request is logged');
    assert.match(requestLine, /"url":"\/v1\/oauth\/token\?\[redacted\]"/);
    expectNoSecretOrBuyerData('token endpoint');
  });

  test('partner routes: bearer header, access_token in the query, the publishable key, and other hosts', async () => {
    const token = await mintToken();
    const viaHeader = await api.inject({ url: '/v1/events', headers: { authorization: `Bearer ${token}` } });
    assert.equal(viaHeader.statusCode, 200, viaHeader.body);
    const viaQuery = await api.inject({ url: `/v1/events?limit=5&access_token=${token}&api_key=${token}` });
    assert.equal(viaQuery.statusCode, 401);
    const queryLine = lines.find(
      (l) => l.includes(viaQuery.headers['x-request-id'] as string) && l.includes('"url"'),
    );
    assert.match(
      queryLine ?? '',
      /"url":"\/v1\/events\?limit=5&access_token=\[redacted\]&api_key=\[redacted\]"/,
    );
    const viaKey = await api.inject({
      url: '/v1/events',
      headers: { 'x-service-publishable-key': partner.publishableKey, origin: SHOP },
    });
    assert.equal(viaKey.statusCode, 200, viaKey.body);
    for (const headers of [
      { authorization: `Bearer ${token}` },
      { 'x-service-publishable-key': partner.publishableKey },
      {
        authorization: `Basic ${Buffer.from(`${partner.clientId}:${partner.clientSecret}`).toString('base64')}`,
      },
    ]) {
      const refused = await site.inject({ url: '/healthz', headers });
      assert.equal(refused.statusCode, 401);
    }
    const adminCall = await app.inject({
      url: `/admin/v1/organizations?admin_api_key=${TEST_ADMIN_KEY}`,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    assert.ok(adminCall.statusCode < 500, adminCall.body);
    expectNoSecretOrBuyerData('partner routes');
    assert.ok(lines.length >= 20, `the requests were logged (${lines.length} lines)`);
  });
});

describe('failed queries', () => {
  test("an order whose insert fails is a 500 logged with its SQL, without the buyer's email or phone", async () => {
    const token = await mintToken();
    const event = await makeEvent(h, partner);
    const [ticketTypeId] = await ticketTypeIds(h, event.id);
    const db = h.service.ctx.database;
    await db.rows(
      sql`ALTER TABLE orders ADD CONSTRAINT orders_log_test CHECK (buyer_email <> ${BUYER.email}) NOT VALID`.inlineParams(),
    );
    try {
      const res = await api.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          event_id: event.id,
          items: [{ ticket_type_id: ticketTypeId, participant_name: 'Okello Brian' }],
          buyer: BUYER,
        }),
      });
      assert.equal(res.statusCode, 500, res.body);
      const failed = lines.filter(
        (l) => l.includes(res.headers['x-request-id'] as string) && l.includes('"err"'),
      );
      assert.ok(failed.length > 0, 'the failure is logged');
      assert.match(failed.join('\n'), /orders_log_test/, 'the log still says which constraint refused');
      assert.match(failed.join('\n'), /INSERT INTO/i, 'and which statement');
    } finally {
      await db.rows(sql`ALTER TABLE orders DROP CONSTRAINT orders_log_test`);
    }
    expectNoSecretOrBuyerData('failed order');
  });

  test("a failed query's error logged under err, alone, or under another name shows no parameter", async () => {
    const db = h.service.ctx.database.db;
    let caught: unknown;
    try {
      // a data error: PostgreSQL quotes the value in its message
      await db.execute(sql`SELECT ${BUYER.email}::int AS n, ${'256772987654'} AS phone`);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof Error, 'the query failed');
    assert.match(
      String((caught as Error).message),
      /nakato\.refused@example\.org/,
      'the raw error carries it',
    );
    logger.error({ err: caught }, 'query failed');
    logger.error(caught);
    logger.warn({ error: caught, context: { buyer_email: BUYER.email, phone: BUYER.phone } }, 'query failed');
    const serialized = JSON.stringify(serializeError(caught));
    assert.match(serialized, /SELECT \$1::int/, 'the SQL text is kept');
    assert.doesNotMatch(serialized, /params/);
    expectNoSecretOrBuyerData('failed query');
  });
});

describe('the redaction functions', () => {
  test('redactUrl keeps harmless parameters and redacts the rest (table)', () => {
    const table: Array<[string, string]> = [
      ['/v1/events?limit=5', '/v1/events?limit=5'],
      ['/v1/oauth/token?grant_type=client_credentials', '/v1/oauth/token?[redacted]'],
      ['/v1/events?client_secret=s&limit=5', '/v1/events?client_secret=[redacted]&limit=5'],
      [
        '/x?Password=p&token=t&refresh_token=r&code=c',
        '/x?Password=[redacted]&token=[redacted]&refresh_token=[redacted]&code=[redacted]',
      ],
      ['/x?client%5Fsecret=s', '/x?client%5Fsecret=[redacted]'],
      ['/x?idempotency_key=k&key=v', '/x?idempotency_key=k&key=[redacted]'],
      [
        'https://hooks.example.org/in?sig=abc#access_token=t',
        'https://hooks.example.org/in?sig=[redacted]#access_token=[redacted]',
      ],
      ['/checkout/cs_1/pay?error=sold_out', '/checkout/cs_1/pay?error=sold_out'],
    ];
    for (const [given, logged] of table) assert.equal(redactUrl(given), logged, given);
  });

  test('redactSqlLiterals replaces string literals, quotes doubled inside included', () => {
    assert.equal(
      redactSqlLiterals(
        `select * from "orders" where buyer_email = 'a@b.org' and note = 'it''s' and id = $1`,
      ),
      `select * from "orders" where buyer_email = '?' and note = '?' and id = $1`,
    );
  });
});
