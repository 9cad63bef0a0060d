import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getToken, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import {
  admin,
  createClientFor,
  createEventFor,
  createOrg,
  dataOf,
  errorOf,
  eventBody,
  type AdminRequest,
} from './admin-helpers.ts';

let h: Harness;
let routes: AdminRequest[];
let clientId: string;

before(async () => {
  h = await startHarness();
  const org = await createOrg(h);
  const event = await createEventFor(h, org.id);
  const client = await createClientFor(h, org.id);
  clientId = client.client_id;
  const tt = event.ticket_types[0].ticket_type_id;
  // Every admin route, with real ids and valid bodies, so only the credential can make it fail.
  routes = [
    { method: 'POST', url: '/organizations', body: { name: 'Nope' } },
    { method: 'GET', url: '/organizations' },
    { method: 'GET', url: `/organizations/${org.id}` },
    { method: 'PATCH', url: `/organizations/${org.id}`, body: { name: 'Renamed' } },
    { method: 'POST', url: `/organizations/${org.id}/events`, body: eventBody(h) },
    { method: 'GET', url: `/organizations/${org.id}/events` },
    { method: 'GET', url: `/events/${event.event_id}` },
    { method: 'PATCH', url: `/events/${event.event_id}`, body: { status: 'closed' } },
    {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { name: 'VIP', price_minor: 1, capacity: 1 },
    },
    { method: 'PATCH', url: `/ticket-types/${tt}`, body: { capacity: 5 } },
    { method: 'POST', url: `/organizations/${org.id}/clients`, body: { name: 'x', scopes: [] } },
    { method: 'GET', url: `/organizations/${org.id}/clients` },
    { method: 'GET', url: `/clients/${clientId}` },
    { method: 'PATCH', url: `/clients/${clientId}`, body: { scopes: [] } },
    { method: 'POST', url: `/clients/${clientId}/rotate-secret` },
    { method: 'POST', url: `/clients/${clientId}/regenerate-publishable-key` },
    { method: 'POST', url: `/clients/${clientId}/revoke` },
  ];
});
after(() => h.close());

describe('admin API authentication', () => {
  test('refuses every route without the admin key: 401 unauthorized, WWW-Authenticate, X-Request-Id', async () => {
    for (const route of routes) {
      const res = await admin(h, { ...route, key: null });
      const body = errorOf(res, 401, 'unauthorized');
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="service-partner"', route.url);
      assert.match(body.message, /Authorization: Bearer/);
    }
  });

  test('refuses every route with a wrong key, a wrong scheme or an empty bearer', async () => {
    const wrong = [
      { authorization: 'Bearer adm_wrong_key_0123456789abcdefghijklmnop' },
      { authorization: 'Bearer adm_test_key_0123456789abcdefghijklmno' }, // a prefix of the real key
      {
        authorization: `Basic ${Buffer.from('admin:adm_test_key_0123456789abcdefghijklmnop').toString('base64')}`,
      },
      { authorization: 'Bearer ' },
      { authorization: 'adm_test_key_0123456789abcdefghijklmnop' },
    ];
    for (const route of routes) {
      for (const headers of wrong) {
        const res = await admin(h, { ...route, key: null, headers });
        errorOf(res, 401, 'unauthorized');
        assert.ok(res.headers['www-authenticate'], `${route.url} ${headers.authorization}`);
      }
    }
  });

  test('changes nothing when refused', async () => {
    const before = dataOf(await admin(h, { url: `/clients/${clientId}` }), 200);
    for (const route of routes.filter((r) => r.method !== 'GET')) await admin(h, { ...route, key: 'wrong' });
    const after = dataOf(await admin(h, { url: `/clients/${clientId}` }), 200);
    assert.deepEqual(after, before);
    assert.equal(after.status, 'active');
  });

  test('checks the key before reading the body: a malformed body without the key is still 401', async () => {
    const res = await admin(h, {
      method: 'POST',
      url: '/organizations',
      key: null,
      payload: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    errorOf(res, 401, 'unauthorized');
  });

  test('accepts the bearer scheme in any case', async () => {
    const res = await admin(h, {
      url: '/organizations',
      key: null,
      headers: { authorization: 'bearer adm_test_key_0123456789abcdefghijklmnop' },
    });
    assert.equal(res.statusCode, 200);
  });

  test('refuses a partner access token on the admin API with partner_credential_not_accepted', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const res = await admin(h, { url: '/organizations', key: token });
    errorOf(res, 401, 'partner_credential_not_accepted');
  });

  test('answers every route with 2xx when the key is right (the routes above are real)', async () => {
    for (const route of routes) {
      const res = await admin(h, route);
      assert.equal(
        res.statusCode,
        route.method === 'POST' && !route.url.startsWith('/clients/') ? 201 : 200,
        route.url,
      );
      assert.match(String(res.headers['x-request-id']), /^req_/);
    }
  });

  test('is served on the APP host only, not on the partner API host', async () => {
    const res = await h.service.api.inject({
      url: '/admin/v1/organizations',
      headers: { authorization: 'Bearer adm_test_key_0123456789abcdefghijklmnop' },
    });
    errorOf(res, 404, 'not_found');
  });
});
