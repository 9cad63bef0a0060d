import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mintAccessToken } from '../../src/auth/tokens.ts';
import { markClientRevoked, patchApiClient } from '../../src/auth/clients.ts';
import { seal } from '../../src/platform/crypto.ts';
import { bearer, getToken, makePartner, startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const REALM = 'Bearer realm="service-partner"';

async function events(headers: Record<string, string>) {
  return h.service.api.inject({ url: '/v1/events', headers });
}

function assertInvalidToken(res: Awaited<ReturnType<typeof events>>, withErrorAttr: boolean) {
  assert.equal(res.statusCode, 401, res.body);
  const body = res.json();
  assert.equal(body.error_code, 'invalid_token');
  assert.equal(body.code, 401);
  assert.match(body.request_id, /^req_/);
  assert.equal(res.headers['x-request-id'], body.request_id);
  const header = String(res.headers['www-authenticate']);
  assert.ok(header.startsWith(REALM), header);
  assert.equal(header.includes('error="invalid_token"'), withErrorAttr, header);
}

describe('bearer tokens on /v1 routes', () => {
  test('a missing token is 401 invalid_token with the bare realm challenge', async () => {
    const res = await events({});
    assertInvalidToken(res, false);
    assert.equal(res.headers['www-authenticate'], REALM);
  });

  test('malformed Authorization headers are 401 invalid_token', async () => {
    for (const value of [
      'Bearer',
      'Bearer ',
      'Token abc',
      'Basic Zm9vOmJhcg==',
      'Bearer a b',
      'bearer pat_%%%',
    ]) {
      assertInvalidToken(await events({ authorization: value }), true);
    }
  });

  test('an unknown, tampered or foreign-key token is 401 invalid_token', async () => {
    const partner = await makePartner(h);
    const good = await getToken(h, partner);
    const tampered = good.slice(0, -3) + (good.endsWith('A') ? 'BBB' : 'AAA');
    const otherKey = mintAccessToken(
      randomBytes(32),
      partner.clientId,
      ['events:read'],
      new Date(Date.now() + 3600_000),
    );
    for (const token of [`pat_${'x'.repeat(60)}`, tampered, otherKey, 'pat_']) {
      assertInvalidToken(await events(bearer(token)), true);
    }
  });

  test('an expired token is 401 invalid_token; it works until then', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    assert.equal((await events(bearer(token))).statusCode, 200);
    h.clock.advance(3598_000);
    assert.equal((await events(bearer(token))).statusCode, 200);
    h.clock.advance(3_000);
    try {
      assertInvalidToken(await events(bearer(token)), true);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('a revoked client token stops on the next request', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    assert.equal((await events(bearer(token))).statusCode, 200);
    await markClientRevoked(h.service.ctx.database.db, partner.clientId, new Date());
    assertInvalidToken(await events(bearer(token)), true);
  });

  test('a sign-in token of the organizer app is not a partner credential', async () => {
    const partner = await makePartner(h);
    // Even sealed with the partner-token key, the app prefix is refused.
    const appToken = `ast_${seal(h.service.ctx.keys.token, `1.${partner.clientId}.31.${Math.floor(Date.now() / 1000) + 3600}`)}`;
    assertInvalidToken(await events(bearer(appToken)), true);
  });

  test('a scope removed from the client stops working on the next request: 403 insufficient_scope', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    assert.equal((await events(bearer(token))).statusCode, 200);
    await patchApiClient(
      h.service.ctx.database.db,
      partner.clientId,
      { scopes: ['orders:read'] },
      new Date(),
    );
    const res = await events(bearer(token));
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error_code, 'insufficient_scope');
    assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope"/);
  });

  test('a token granted fewer scopes cannot use more', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner, 'orders:read');
    const res = await events(bearer(token));
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error_code, 'insufficient_scope');
  });

  test('a token minted before a secret rotation keeps working until it expires', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const { replaceClientSecret } = await import('../../src/auth/clients.ts');
    await replaceClientSecret(h.service.ctx.database.db, partner.clientId, new Date());
    assert.equal((await events(bearer(token))).statusCode, 200);
    const old = await h.service.api.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${partner.clientId}&client_secret=${partner.clientSecret}`,
      remoteAddress: '10.77.0.1',
    });
    assert.equal(old.statusCode, 401);
    assert.equal(old.json().error, 'invalid_client');
  });

  test('bearer wins when a publishable key is also sent', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    // A wrong publishable key and no Origin would fail on their own; with a bearer token they are ignored.
    const res = await events({ ...bearer(token), 'x-service-publishable-key': 'pk_wrong' });
    assert.equal(res.statusCode, 200);
    const bad = await events({
      ...bearer('pat_nope'),
      'x-service-publishable-key': partner.publishableKey,
      origin: 'https://shop.example.org',
    });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().error_code, 'invalid_token');
  });

  test('the bearer rate limit answers 429 rate_limited with Retry-After', async () => {
    const limited = await startHarness({
      env: { RATE_LIMIT_BEARER_RATE: '1', RATE_LIMIT_BEARER_BURST: '3' },
    });
    try {
      const partner = await makePartner(limited);
      const token = await getToken(limited, partner);
      const codes = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await limited.service.api.inject({ url: '/v1/events', headers: bearer(token) });
        codes.push(last.statusCode);
      }
      assert.deepEqual(codes.slice(0, 3), [200, 200, 200]);
      assert.equal(codes[4], 429);
      assert.equal(last!.json().error_code, 'rate_limited');
      assert.ok(Number(last!.headers['retry-after']) >= 1);
      assert.match(String(last!.headers['ratelimit-policy']), /q=3/);
    } finally {
      await limited.close();
    }
  });
});
