import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';

let h: Harness;
let partner: TestPartner;
let ipCounter = 0;
// Each request from its own address, so the per-IP token limit never interferes unless tested.
const freshIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h, { scopes: ['events:read', 'checkout_sessions:write', 'orders:read'] });
});
after(() => h.close());

function form(fields: Record<string, string>) {
  return new URLSearchParams(fields).toString();
}

function basic(id: string, secret: string, encode = true) {
  const e = (s: string) => (encode ? encodeURIComponent(s) : s);
  return `Basic ${Buffer.from(`${e(id)}:${e(secret)}`).toString('base64')}`;
}

async function tokenRequest(options: {
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  ip?: string;
  url?: string;
}) {
  return h.service.api.inject({
    method: 'POST',
    url: options.url ?? '/v1/oauth/token',
    headers: {
      ...(options.contentType !== '' && {
        'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
      }),
      ...options.headers,
    },
    payload: options.body ?? '',
    remoteAddress: options.ip ?? freshIp(),
  });
}

describe('POST /v1/oauth/token', () => {
  test('issues a bearer token with Basic credentials, bare OAuth shape, no-store', async () => {
    const res = await tokenRequest({
      body: form({ grant_type: 'client_credentials' }),
      headers: { authorization: basic(partner.clientId, partner.clientSecret) },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
    assert.match(String(res.headers['x-request-id']), /^req_/);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 3600);
    assert.equal(body.scope, 'events:read checkout_sessions:write orders:read');
    assert.match(body.access_token, /^pat_[A-Za-z0-9_-]+$/);
    const events = await h.service.api.inject({ url: '/v1/events', headers: bearer(body.access_token) });
    assert.equal(events.statusCode, 200);
  });

  test('form-URL-decodes each Basic part (RFC 6749 2.3.1)', async () => {
    // openid-client style: every character outside unreserved is percent-encoded, even - and _.
    const strictEncode = (s: string) =>
      s.replace(/[^A-Za-z0-9.~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const header = `Basic ${Buffer.from(`${strictEncode(partner.clientId)}:${strictEncode(partner.clientSecret)}`).toString('base64')}`;
    const res = await tokenRequest({
      body: form({ grant_type: 'client_credentials' }),
      headers: { authorization: header },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('issues a token with body credentials as JSON', async () => {
    const res = await tokenRequest({
      contentType: 'application/json',
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      }),
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('refuses Basic and body credentials together with invalid_request', async () => {
    const res = await tokenRequest({
      body: form({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      }),
      headers: { authorization: basic(partner.clientId, partner.clientSecret) },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_request');
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('refuses a request with an Origin header, with no CORS headers', async () => {
    const res = await tokenRequest({
      body: form({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      }),
      headers: { origin: 'https://shop.example.org' },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_request');
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.equal(
      Object.keys(res.headers).some((k) => k.startsWith('access-control-')),
      false,
    );
  });

  test('grants a subset of scopes and refuses unknown or unheld ones with invalid_scope', async () => {
    const subset = await tokenRequest({
      body: form({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
        scope: 'events:read',
      }),
    });
    assert.equal(subset.statusCode, 200);
    assert.equal(subset.json().scope, 'events:read');
    for (const scope of ['orders:write', 'events:write', 'events:read  orders:read']) {
      const res = await tokenRequest({
        body: form({
          grant_type: 'client_credentials',
          client_id: partner.clientId,
          client_secret: partner.clientSecret,
          scope,
        }),
      });
      assert.equal(res.statusCode, 400, scope);
      assert.equal(res.json().error, 'invalid_scope', scope);
    }
  });

  test('refuses other grant types and a missing grant_type', async () => {
    const other = await tokenRequest({
      body: form({
        grant_type: 'password',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      }),
    });
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().error, 'unsupported_grant_type');
    const missing = await tokenRequest({
      body: form({ client_id: partner.clientId, client_secret: partner.clientSecret }),
    });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'invalid_request');
  });

  test('answers unknown client and wrong secret identically with invalid_client', async () => {
    const unknown = await tokenRequest({
      body: form({
        grant_type: 'client_credentials',
        client_id: 'cli_doesnotexist00000000000',
        client_secret: 'sk_x',
      }),
    });
    const wrong = await tokenRequest({
      body: form({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: 'sk_wrong',
      }),
    });
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(unknown.json(), wrong.json());
    assert.equal(unknown.json().error, 'invalid_client');
    const viaBasic = await tokenRequest({
      body: form({ grant_type: 'client_credentials' }),
      headers: { authorization: basic(partner.clientId, 'sk_wrong') },
    });
    assert.equal(viaBasic.statusCode, 401);
    assert.equal(viaBasic.headers['www-authenticate'], 'Basic realm="service-partner"');
  });

  test('a client id that is not of the issued form (a NUL) is invalid_client, however it is sent', async () => {
    const answers = [
      await tokenRequest({
        contentType: 'application/json',
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' }),
      }),
      await tokenRequest({ body: 'grant_type=client_credentials&client_id=a%00b&client_secret=x' }),
      await tokenRequest({
        body: form({ grant_type: 'client_credentials' }),
        headers: { authorization: basic('a\u0000b', 'x', false) },
      }),
    ];
    for (const res of answers) {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().error, 'invalid_client');
    }
  });

  test('refuses unsupported content types and malformed bodies in the OAuth shape', async () => {
    const cases = [
      { contentType: 'text/plain', body: 'grant_type=client_credentials' },
      { contentType: 'application/json', body: '{not json' },
      { contentType: 'application/json', body: '[]' },
      { contentType: 'application/json', body: JSON.stringify({ grant_type: 5 }) },
      { contentType: '', body: '' },
      {
        contentType: 'application/x-www-form-urlencoded',
        body: 'grant_type=client_credentials&grant_type=client_credentials',
      },
    ];
    for (const c of cases) {
      const res = await tokenRequest(c);
      assert.equal(res.statusCode, 400, JSON.stringify(c));
      const body = res.json();
      assert.equal(body.error, 'invalid_request', JSON.stringify(c));
      assert.equal(typeof body.error_description, 'string');
      assert.equal(body.code, undefined);
    }
  });

  test('limits about 10 requests per minute per client id from one IP, with Retry-After', async () => {
    const ip = '10.200.0.1';
    const codes: number[] = [];
    let last;
    for (let i = 0; i < 12; i++) {
      last = await tokenRequest({
        ip,
        body: form({
          grant_type: 'client_credentials',
          client_id: partner.clientId,
          client_secret: partner.clientSecret,
        }),
      });
      codes.push(last.statusCode);
    }
    assert.deepEqual(codes.slice(0, 10), Array(10).fill(200));
    assert.equal(codes[10], 429);
    assert.equal(last!.json().error, 'rate_limited');
    assert.ok(Number(last!.headers['retry-after']) >= 1);
    // Another IP for the same client is not affected.
    const elsewhere = await tokenRequest({
      body: form({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      }),
    });
    assert.equal(elsewhere.statusCode, 200);
  });
});
