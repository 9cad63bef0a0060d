// The shared security suite over the admin API (APP host, /admin/v1): every route against every
// way a caller can be wrong. A new route must be added to ROUTES; the last test fails if a route
// the APP host serves is missing, and every route gets every case from its path alone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventBody } from '../admin/admin-helpers.ts';
import {
  fillPath,
  ID_PREFIX,
  makeAdminObjects,
  paramsOf,
  type AdminObjects,
} from '../helpers/admin-world.ts';
import { getToken, resolveNoNames, startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { registeredRoutes } from '../helpers/registered-routes.ts';

let h: Harness;
let mine: AdminObjects;
let theirs: AdminObjects;
let partnerToken: string;

interface RouteCase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** as registered; each `:param` is filled with an object of the kind its previous segment names */
  path: string;
  /** a body the route accepts with the admin key */
  body?: () => Record<string, unknown>;
}

const ROUTES: RouteCase[] = [
  { method: 'POST', path: '/admin/v1/organizations', body: () => ({ name: 'Lake Runners' }) },
  { method: 'GET', path: '/admin/v1/organizations' },
  { method: 'GET', path: '/admin/v1/organizations/:id' },
  { method: 'PATCH', path: '/admin/v1/organizations/:id', body: () => ({ name: 'Renamed' }) },
  { method: 'POST', path: '/admin/v1/organizations/:id/events', body: () => eventBody(h) },
  { method: 'GET', path: '/admin/v1/organizations/:id/events' },
  { method: 'GET', path: '/admin/v1/events/:id' },
  { method: 'PATCH', path: '/admin/v1/events/:id', body: () => ({ name: 'Renamed run' }) },
  {
    method: 'POST',
    path: '/admin/v1/events/:id/ticket-types',
    body: () => ({ name: 'Half', price_minor: 1000, capacity: 10 }),
  },
  { method: 'PATCH', path: '/admin/v1/ticket-types/:id', body: () => ({ capacity: 500 }) },
  {
    method: 'POST',
    path: '/admin/v1/organizations/:id/clients',
    body: () => ({ name: 'Shop', scopes: ['events:read'] }),
  },
  { method: 'GET', path: '/admin/v1/organizations/:id/clients' },
  { method: 'GET', path: '/admin/v1/clients/:client_id' },
  { method: 'PATCH', path: '/admin/v1/clients/:client_id', body: () => ({ name: 'Shop 2' }) },
  { method: 'POST', path: '/admin/v1/clients/:client_id/revoke' },
  { method: 'POST', path: '/admin/v1/clients/:client_id/rotate-secret' },
  { method: 'POST', path: '/admin/v1/clients/:client_id/regenerate-publishable-key' },
  {
    method: 'POST',
    path: '/admin/v1/organizations/:id/webhook-endpoints',
    // loopback, allowed by this file's harness; no job runs, so nothing is ever sent there
    body: () => ({ url: 'http://127.0.0.1:9/hooks', events: ['order.paid'] }),
  },
  { method: 'GET', path: '/admin/v1/organizations/:id/webhook-endpoints' },
  { method: 'GET', path: '/admin/v1/webhook-endpoints/:id' },
  { method: 'PATCH', path: '/admin/v1/webhook-endpoints/:id', body: () => ({ events: ['order.paid'] }) },
  { method: 'DELETE', path: '/admin/v1/webhook-endpoints/:id' },
  { method: 'POST', path: '/admin/v1/webhook-endpoints/:id/disable' },
  { method: 'POST', path: '/admin/v1/webhook-endpoints/:id/enable' },
  { method: 'POST', path: '/admin/v1/webhook-endpoints/:id/rotate-secret' },
  { method: 'POST', path: '/admin/v1/webhook-endpoints/:id/test' },
  { method: 'GET', path: '/admin/v1/webhook-endpoints/:id/deliveries' },
  { method: 'GET', path: '/admin/v1/webhook-endpoints/:id/deliveries/:delivery_id' },
  { method: 'POST', path: '/admin/v1/webhook-endpoints/:id/deliveries/:delivery_id/retry' },
  { method: 'GET', path: '/admin/v1/organizations/:id/payments/needs-refund' },
  { method: 'POST', path: '/admin/v1/organizations/:id/orders/:orderId/refunds', body: () => ({}) },
  {
    method: 'POST',
    path: '/admin/v1/organizations/:id/invitations',
    body: () => ({ email: 'owner@example.org', role: 'owner' }),
  },
  { method: 'GET', path: '/admin/v1/organizations/:id/invitations' },
  // an address nobody used: zero counts, nothing erased
  { method: 'POST', path: '/admin/v1/buyer-erasures', body: () => ({ email: 'nobody@example.org' }) },
];

before(async () => {
  h = await startHarness({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    service: { webhookResolver: resolveNoNames },
  });
  mine = await makeAdminObjects(h);
  theirs = await makeAdminObjects(h);
  partnerToken = await getToken(h, mine.partner);
});
after(() => h.close());

/** A made-up id of the right shape that names nothing. */
function missingId(kind: keyof typeof ID_PREFIX | undefined): string {
  return `${kind ? ID_PREFIX[kind] : 'x'}_ZZZZZZZZZZZZZZZZZZZZZZZZ`;
}

function call(route: RouteCase, url: string, headers: Record<string, string>, body = route.body?.()) {
  return h.service.app.inject({
    method: route.method,
    url,
    headers: { ...headers, ...(body && { 'content-type': 'application/json' }) },
    ...(body && { payload: JSON.stringify(body) }),
  });
}

const adminKey = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

type Answer = { statusCode: number; headers: Record<string, unknown>; body: string; json(): unknown };

function assertRefused(res: Answer, status: number, errorCode: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as { code: number; error_code: string; request_id: string; message: string };
  assert.equal(body.code, status);
  assert.equal(body.error_code, errorCode, res.body);
  assert.equal(typeof body.message, 'string');
  assert.match(String(res.headers['x-request-id']), /^req_/);
  assert.equal(body.request_id, res.headers['x-request-id']);
  if (status === 401)
    assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
}

describe('security suite over every admin route', () => {
  for (const route of ROUTES) {
    const name = `${route.method} ${route.path}`;
    const own = () => fillPath(route.path, (p) => mine[p.kind!]);

    test(`${name}: the admin key works`, async () => {
      // its own objects, so that revoking or deleting leaves the other cases theirs
      const fresh = await makeAdminObjects(h);
      const res = await call(
        route,
        fillPath(route.path, (p) => fresh[p.kind!]),
        adminKey,
      );
      assert.ok([200, 201, 202].includes(res.statusCode), `${res.statusCode} ${res.body}`);
    });

    test(`${name}: no credential is 401 unauthorized, whatever the body`, async () => {
      assertRefused(await call(route, own(), {}), 401, 'unauthorized');
      if (route.method !== 'GET') {
        assertRefused(await call(route, own(), {}, { not: 'valid' }), 401, 'unauthorized');
      }
    });

    test(`${name}: a wrong admin key is 401 unauthorized`, async () => {
      for (const authorization of [
        `Bearer ${TEST_ADMIN_KEY.slice(0, -1)}x`,
        `Bearer ${TEST_ADMIN_KEY}x`,
        'Bearer ',
        `Basic ${Buffer.from(`admin:${TEST_ADMIN_KEY}`).toString('base64')}`,
        TEST_ADMIN_KEY,
      ]) {
        assertRefused(await call(route, own(), { authorization }), 401, 'unauthorized');
      }
    });

    test(`${name}: a partner credential is 401 partner_credential_not_accepted`, async () => {
      const pk = { 'x-service-publishable-key': mine.partner.publishableKey };
      const basic = Buffer.from(`${mine.partner.clientId}:${mine.partner.clientSecret}`).toString('base64');
      const refused: Array<Record<string, string>> = [
        { authorization: `Bearer ${partnerToken}` },
        pk,
        { ...pk, origin: 'https://shop.example.org' },
        { ...adminKey, ...pk },
        { authorization: `Basic ${basic}` },
      ];
      for (const headers of refused) {
        assertRefused(await call(route, own(), headers), 401, 'partner_credential_not_accepted');
      }
    });

    const params = paramsOf(route.path);
    if (params.length > 0) {
      test(`${name}: a missing object is 404 not_found`, async () => {
        for (const missing of params) {
          const url = fillPath(route.path, (p) =>
            p.index === missing.index ? missingId(p.kind) : mine[p.kind!],
          );
          assertRefused(await call(route, url, adminKey), 404, 'not_found');
        }
      });
    }
    if (params.length > 1) {
      test(`${name}: another organization's object under this one is 404 not_found`, async () => {
        for (const other of params) {
          const url = fillPath(route.path, (p) => (p.index === other.index ? theirs : mine)[p.kind!]);
          assertRefused(await call(route, url, adminKey), 404, 'not_found');
        }
      });
    }
  }

  test('every route the APP host serves under /admin/v1 is in this suite', () => {
    const covered = ROUTES.map((r) => `${r.method} ${r.path}`).sort();
    assert.deepEqual(covered, registeredRoutes(h.service.app, '/admin/v1'));
    for (const route of ROUTES) {
      for (const param of paramsOf(route.path)) {
        assert.ok(
          param.kind,
          `${route.method} ${route.path}: no object kind for its parameter ${param.index}`,
        );
      }
    }
  });
});
