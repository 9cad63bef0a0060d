import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { replacePublishableKey, markClientRevoked, patchApiClient } from '../../src/auth/clients.ts';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const ORIGIN = 'https://shop.example.org';

function withKey(key: string, origin?: string) {
  return { 'x-service-publishable-key': key, ...(origin !== undefined && { origin }) };
}

describe('publishable keys', () => {
  test('lists events from an allowed origin, with CORS headers on the response', async () => {
    const partner = await makePartner(h);
    await makeEvent(h, partner);
    const res = await h.service.api.inject({
      url: '/v1/events',
      headers: withKey(partner.publishableKey, ORIGIN),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.events.length, 1);
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
    assert.equal(res.headers['access-control-expose-headers'], 'Retry-After, X-Request-Id');
    assert.match(String(res.headers.vary), /Origin/);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
  });

  test('reads event detail with a publishable key', async () => {
    const partner = await makePartner(h);
    const event = await makeEvent(h, partner);
    const res = await h.service.api.inject({
      url: `/v1/events/${event.id}`,
      headers: withKey(partner.publishableKey, ORIGIN),
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.event_id, event.id);
  });

  test('a request without Origin is 403 origin_not_allowed', async () => {
    const partner = await makePartner(h);
    const res = await h.service.api.inject({ url: '/v1/events', headers: withKey(partner.publishableKey) });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error_code, 'origin_not_allowed');
  });

  test('the Origin must match an allowed domain exactly (www, scheme and port matter)', async () => {
    const partner = await makePartner(h, { allowedDomains: [ORIGIN, 'http://localhost:5173'] });
    for (const origin of [
      'https://www.shop.example.org',
      'http://shop.example.org',
      'https://shop.example.org:8443',
      'https://shop.example.org.evil.test',
      'http://localhost:5174',
      'http://127.0.0.1:5173',
      'null',
    ]) {
      const res = await h.service.api.inject({
        url: '/v1/events',
        headers: withKey(partner.publishableKey, origin),
      });
      assert.equal(res.statusCode, 403, origin);
      assert.equal(res.json().error_code, 'origin_not_allowed', origin);
    }
    const local = await h.service.api.inject({
      url: '/v1/events',
      headers: withKey(partner.publishableKey, 'http://localhost:5173'),
    });
    assert.equal(local.statusCode, 200);
  });

  test('a wrong, regenerated or revoked key is 401 invalid_key with the realm challenge', async () => {
    const partner = await makePartner(h);
    const check = async (key: string) => {
      const res = await h.service.api.inject({ url: '/v1/events', headers: withKey(key, ORIGIN) });
      assert.equal(res.statusCode, 401, key);
      assert.equal(res.json().error_code, 'invalid_key');
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
    };
    await check('pk_doesnotexist');
    await check('not-a-key');
    const db = h.service.ctx.database.db;
    const regenerated = await replacePublishableKey(db, partner.clientId, new Date());
    await check(partner.publishableKey);
    const fresh = await h.service.api.inject({
      url: '/v1/events',
      headers: withKey(regenerated!.publishableKey, ORIGIN),
    });
    assert.equal(fresh.statusCode, 200);
    await markClientRevoked(db, partner.clientId, new Date());
    await check(regenerated!.publishableKey);
  });

  test('is capped to events:read and checkout_sessions:write whatever the client holds', async () => {
    const partner = await makePartner(h);
    const { authenticate } = await import('../../src/auth/authenticate.ts');
    const auth = await authenticate(
      h.service.ctx,
      { headers: withKey(partner.publishableKey, ORIGIN) } as never,
      { publishable: true },
    );
    assert.deepEqual(auth.scopes, ['events:read', 'checkout_sessions:write']);
    await assert.rejects(
      authenticate(h.service.ctx, { headers: withKey(partner.publishableKey, ORIGIN) } as never, {
        publishable: false,
      }),
      (e: { code: string; message: string }) =>
        e.code === 'invalid_token' && /Publishable keys cannot/.test(e.message),
    );
  });

  test('a client without events:read gets 403 insufficient_scope through its key', async () => {
    const partner = await makePartner(h, { scopes: ['checkout_sessions:write'] });
    const res = await h.service.api.inject({
      url: '/v1/events',
      headers: withKey(partner.publishableKey, ORIGIN),
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error_code, 'insufficient_scope');
  });

  test('the publishable rate limit is per key and IP', async () => {
    const limited = await startHarness({
      env: { RATE_LIMIT_PUBLISHABLE_RATE: '1', RATE_LIMIT_PUBLISHABLE_BURST: '2' },
    });
    try {
      const partner = await makePartner(limited);
      const hit = (ip: string) =>
        limited.service.api.inject({
          url: '/v1/events',
          headers: withKey(partner.publishableKey, ORIGIN),
          remoteAddress: ip,
        });
      assert.equal((await hit('10.3.0.1')).statusCode, 200);
      assert.equal((await hit('10.3.0.1')).statusCode, 200);
      const third = await hit('10.3.0.1');
      assert.equal(third.statusCode, 429);
      assert.equal(third.json().error_code, 'rate_limited');
      assert.ok(Number(third.headers['retry-after']) >= 1);
      assert.equal(third.headers['access-control-allow-origin'], ORIGIN, 'the browser can read the 429');
      assert.equal((await hit('10.3.0.2')).statusCode, 200);
    } finally {
      await limited.close();
    }
  });

  test('an allowlist change acts on the next request', async () => {
    const partner = await makePartner(h);
    const other = 'https://club.example.net';
    const before = await h.service.api.inject({
      url: '/v1/events',
      headers: withKey(partner.publishableKey, other),
    });
    assert.equal(before.statusCode, 403);
    await patchApiClient(
      h.service.ctx.database.db,
      partner.clientId,
      { allowedDomains: [ORIGIN, other] },
      new Date(),
    );
    const afterChange = await h.service.api.inject({
      url: '/v1/events',
      headers: withKey(partner.publishableKey, other),
    });
    assert.equal(afterChange.statusCode, 200);
  });
});
