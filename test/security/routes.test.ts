// The shared security suite: every partner route against every way a caller can be wrong.
// A new route must be added to ROUTES; the last test fails if one is missing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { markClientRevoked } from '../../src/auth/clients.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

let h: Harness;
let owner: TestPartner;
let stranger: TestPartner;
/** a token whose seal holds, of a client revoked since */
let revokedToken: string;
const ids: Record<string, string> = {};
const ORIGIN = 'https://shop.example.org';
let endpointsMade = 0;

interface RouteCase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** path with :event, :session, :order, :endpoint, :delivery filled from the owner's objects */
  path: string;
  scope: Scope;
  publishable: boolean;
  /** an object path whose other-organization access must be 404 */
  ownedObject?: boolean;
  body?: () => Record<string, unknown>;
  /**
   * A request no caller could get accepted (bad body, query or path): without a valid credential
   * the answer is still 401, before any field is looked at. `validated`: the route's validation
   * (body or query) would refuse it, rather than the path check before it.
   */
  invalid: { url: string; payload?: Record<string, unknown>; validated: boolean };
  /**
   * What the owner's own credential gets when it is not a success: the route answers the object's
   * state (a refund of the suite's unpaid order is 409 conflict), past every check of the caller.
   */
  ownerAnswer?: { status: number; errorCode: string };
  /**
   * A server-sent event stream: inject waits for a response's end, which never comes, so success
   * is checked over a real connection up to the first message. Refusals answer at once in JSON.
   */
  stream?: boolean;
}

const buyer = { name: 'Ann', email: 'ann@example.org', phone: '0772123456' };

const ROUTES: RouteCase[] = [
  {
    method: 'GET',
    path: '/v1/events',
    scope: 'events:read',
    publishable: true,
    invalid: { url: '/v1/events?limit=abc', validated: true },
  },
  {
    method: 'GET',
    path: '/v1/events/:event',
    scope: 'events:read',
    publishable: true,
    ownedObject: true,
    invalid: { url: '/v1/events/evt_%00x', validated: false },
  },
  {
    method: 'POST',
    path: '/v1/checkout-sessions',
    scope: 'checkout_sessions:write',
    publishable: true,
    ownedObject: true,
    body: () => ({ event_id: ids.event, on_success_url: `${ORIGIN}/ok`, on_cancel_url: `${ORIGIN}/no` }),
    invalid: { url: '/v1/checkout-sessions', payload: {}, validated: true },
  },
  {
    method: 'GET',
    path: '/v1/checkout-sessions/:session',
    scope: 'checkout_sessions:read',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/checkout-sessions/cs_%00x', validated: false },
  },
  {
    method: 'POST',
    path: '/v1/orders',
    scope: 'orders:write',
    publishable: false,
    ownedObject: true,
    body: () => ({
      event_id: ids.event,
      items: [{ ticket_type_id: ids.ticketType, participant_name: 'Ann' }],
      buyer,
    }),
    invalid: { url: '/v1/orders', payload: {}, validated: true },
  },
  {
    method: 'POST',
    path: '/v1/orders/:order/pay',
    scope: 'orders:write',
    publishable: false,
    ownedObject: true,
    body: () => ({ payment_method: 'momo', phone: '0770000001' }),
    invalid: { url: '/v1/orders/:order/pay', payload: {}, validated: true },
  },
  {
    method: 'POST',
    path: '/v1/orders/:order/refunds',
    scope: 'orders:write',
    publishable: false,
    ownedObject: true,
    body: () => ({ reason: 'Injured' }),
    ownerAnswer: { status: 409, errorCode: 'conflict' },
    invalid: { url: '/v1/orders/:order/refunds', payload: { amount_minor: 0 }, validated: true },
  },
  {
    method: 'GET',
    path: '/v1/orders',
    scope: 'orders:read',
    publishable: false,
    invalid: { url: '/v1/orders?limit=abc&status=nope', validated: true },
  },
  {
    method: 'GET',
    path: '/v1/orders/:order',
    scope: 'orders:read',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/orders/ord_%00x', validated: false },
  },
  {
    method: 'GET',
    path: '/v1/webhook-endpoints',
    scope: 'webhooks:write',
    publishable: false,
    invalid: { url: '/v1/webhook-endpoints?limit=5', validated: true },
  },
  {
    method: 'POST',
    path: '/v1/webhook-endpoints',
    scope: 'webhooks:write',
    publishable: false,
    // a URL of its own each time: an organization has one endpoint per URL
    body: () => ({ url: `http://127.0.0.1:9/hooks?n=${++endpointsMade}` }),
    invalid: { url: '/v1/webhook-endpoints', payload: { url: 'ftp://x' }, validated: true },
  },
  {
    method: 'GET',
    path: '/v1/webhook-endpoints/:endpoint',
    scope: 'webhooks:write',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/webhook-endpoints/whe_%00x', validated: false },
  },
  {
    method: 'PATCH',
    path: '/v1/webhook-endpoints/:endpoint',
    scope: 'webhooks:write',
    publishable: false,
    ownedObject: true,
    body: () => ({ events: ['order.paid'] }),
    invalid: { url: '/v1/webhook-endpoints/:endpoint', payload: { events: ['nope'] }, validated: true },
  },
  {
    method: 'POST',
    path: '/v1/webhook-endpoints/:endpoint/test',
    scope: 'webhooks:write',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/webhook-endpoints/whe_%00x/test', validated: false },
  },
  {
    method: 'GET',
    path: '/v1/webhook-endpoints/:endpoint/deliveries',
    scope: 'webhooks:write',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/webhook-endpoints/:endpoint/deliveries?status=lost', validated: true },
  },
  {
    method: 'POST',
    path: '/v1/webhook-endpoints/:endpoint/deliveries/:delivery/retry',
    scope: 'webhooks:write',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/webhook-endpoints/:endpoint/deliveries/whd_%00x/retry', validated: false },
  },
  {
    method: 'GET',
    path: '/v1/webhook-events/stream',
    scope: 'webhooks:write',
    publishable: false,
    stream: true,
    invalid: { url: '/v1/webhook-events/stream?after=nope', validated: true },
  },
  {
    method: 'POST',
    path: '/v1/webhook-events/test',
    scope: 'webhooks:write',
    publishable: false,
    invalid: { url: '/v1/webhook-events/test?x=1', validated: true },
  },
  // last: its first test deletes the endpoint the routes above use
  {
    method: 'DELETE',
    path: '/v1/webhook-endpoints/:endpoint',
    scope: 'webhooks:write',
    publishable: false,
    ownedObject: true,
    invalid: { url: '/v1/webhook-endpoints/whe_%00x', validated: false },
  },
];

function url(path: string) {
  return path
    .replace(':event', ids.event!)
    .replace(':session', ids.session!)
    .replace(':order', ids.order!)
    .replace(':endpoint', ids.endpoint!)
    .replace(':delivery', ids.delivery!);
}

function call(route: RouteCase, headers: Record<string, string>) {
  return h.service.api.inject({
    method: route.method,
    url: url(route.path),
    headers,
    ...(route.body && { payload: route.body() }),
  });
}

let listening: Promise<string> | undefined;

/** A stream route over a real connection: its status, and the first message checked when it opens. */
async function callStream(route: RouteCase, headers: Record<string, string>): Promise<number> {
  listening ??= h.service.api.listen({ host: '127.0.0.1', port: 0 });
  const controller = new AbortController();
  const res = await fetch(`${await listening}${url(route.path)}`, { headers, signal: controller.signal });
  try {
    if (res.ok) {
      const first = await res.body!.getReader().read();
      assert.match(new TextDecoder().decode(first.value), /^event: ready\n/);
    }
    return res.status;
  } finally {
    controller.abort();
  }
}

function callInvalid(route: RouteCase, headers: Record<string, string>) {
  const { url: path, payload } = route.invalid;
  return h.service.api.inject({ method: route.method, url: url(path), headers, ...(payload && { payload }) });
}

before(async () => {
  // webhook URLs on loopback are allowed; nothing is sent (no job runs in the harness)
  h = await startHarness({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await makePartner(h);
  stranger = await makePartner(h);
  const event = await makeEvent(h, owner, {
    ticket_types: [{ name: '5 km', price_minor: 5000, capacity: 1000, distance_km: 5 }],
  });
  ids.event = event.id;
  const token = await getToken(h, owner);
  const detail = await h.service.api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) });
  ids.ticketType = detail.json().data.ticket_types[0].ticket_type_id;
  const session = await h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: bearer(token),
    payload: { event_id: event.id, on_success_url: `${ORIGIN}/ok`, on_cancel_url: `${ORIGIN}/no` },
  });
  ids.session = session.json().data.id;
  const order = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(token),
    payload: {
      event_id: event.id,
      items: [{ ticket_type_id: ids.ticketType, participant_name: 'Ann' }],
      buyer,
    },
  });
  ids.order = order.json().data.id;
  const endpoint = await h.service.api.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: bearer(token),
    payload: { url: 'http://127.0.0.1:9/hooks' },
  });
  ids.endpoint = endpoint.json().data.id;
  const delivery = await h.service.api.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${ids.endpoint}/test`,
    headers: bearer(token),
  });
  ids.delivery = delivery.json().data.id;
  const revoked = await makePartner(h);
  revokedToken = await getToken(h, revoked);
  await markClientRevoked(h.service.ctx.database.db, revoked.clientId, new Date());
});
after(() => h.close());

function assert401(
  res: { statusCode: number; headers: Record<string, unknown>; json(): { error_code: string } },
  code: string,
) {
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().error_code, code);
  assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
  assert.match(String(res.headers['x-request-id']), /^req_/);
}

describe('security suite over every partner route', () => {
  for (const route of ROUTES) {
    const name = `${route.method} ${route.path}`;

    test(`${name}: the owner's own credential works`, async () => {
      if (route.stream) {
        assert.equal(await callStream(route, bearer(await getToken(h, owner))), 200);
        return;
      }
      const res = await call(route, bearer(await getToken(h, owner)));
      if (route.ownerAnswer) {
        assert.equal(res.statusCode, route.ownerAnswer.status, res.body);
        assert.equal(res.json().error_code, route.ownerAnswer.errorCode);
        return;
      }
      assert.ok([200, 201, 202].includes(res.statusCode), `${res.statusCode} ${res.body}`);
    });

    test(`${name}: no credential is 401 invalid_token`, async () => {
      assert401(await call(route, {}), 'invalid_token');
    });

    test(`${name}: a wrong or expired token is 401 invalid_token`, async () => {
      assert401(await call(route, bearer('pat_wrong')), 'invalid_token');
      assert401(await call(route, { authorization: 'Basic abc' }), 'invalid_token');
    });

    test(`${name}: without a valid credential an invalid request is still 401, not 400`, async () => {
      // The input is refused for a real caller, so the 401s below come before any field is read.
      const real = await callInvalid(route, bearer(await getToken(h, owner)));
      assert.ok([400, 404].includes(real.statusCode), `${real.statusCode} ${real.body}`);
      const none = await callInvalid(route, {});
      assert401(none, 'invalid_token');
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="service-partner"');
      assert401(await callInvalid(route, bearer('pat_wrong')), 'invalid_token');
      assert401(await callInvalid(route, { authorization: 'Basic abc' }), 'invalid_token');
      if (!route.publishable) {
        const key = await callInvalid(route, {
          'x-service-publishable-key': owner.publishableKey,
          origin: ORIGIN,
        });
        assert401(key, 'invalid_token');
      }
      if (route.invalid.validated) {
        // Credentials that only the database can refuse are refused before validation too.
        assert401(await callInvalid(route, bearer(revokedToken)), 'invalid_token');
        if (route.publishable) {
          const key = { 'x-service-publishable-key': 'pk_wrong', origin: ORIGIN };
          assert401(await callInvalid(route, key), 'invalid_key');
        }
        const other = (['events:read', 'orders:read', 'checkout_sessions:read'] as Scope[]).find(
          (s) => s !== route.scope,
        )!;
        const scoped = await callInvalid(route, bearer(await getToken(h, owner, other)));
        assert.equal(scoped.statusCode, 403, scoped.body);
        assert.equal(scoped.json().error_code, 'insufficient_scope');
      }
    });

    test(`${name}: a token without ${route.scope} is 403 insufficient_scope`, async () => {
      const other = (['events:read', 'orders:read', 'checkout_sessions:read'] as Scope[]).find(
        (s) => s !== route.scope,
      )!;
      const res = await call(route, bearer(await getToken(h, owner, other)));
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error_code, 'insufficient_scope');
    });

    if (route.ownedObject) {
      test(`${name}: another organization's object is 404 not_found`, async () => {
        const res = await call(route, bearer(await getToken(h, stranger)));
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().error_code, 'not_found');
      });
    }

    if (route.publishable) {
      test(`${name}: a publishable key from an allowed Origin works; a wrong Origin is 403`, async () => {
        const ok = await call(route, { 'x-service-publishable-key': owner.publishableKey, origin: ORIGIN });
        assert.ok(ok.statusCode === 200 || ok.statusCode === 201, `${ok.statusCode} ${ok.body}`);
        const wrong = await call(route, {
          'x-service-publishable-key': owner.publishableKey,
          origin: 'https://evil.example',
        });
        assert.equal(wrong.statusCode, 403);
        assert.equal(wrong.json().error_code, 'origin_not_allowed');
        const none = await call(route, { 'x-service-publishable-key': owner.publishableKey });
        assert.equal(none.statusCode, 403);
        assert.equal(none.json().error_code, 'origin_not_allowed');
        assert401(
          await call(route, { 'x-service-publishable-key': 'pk_wrong', origin: ORIGIN }),
          'invalid_key',
        );
      });
    } else {
      test(`${name}: a publishable key is never accepted (401 invalid_token)`, async () => {
        const res = await call(route, { 'x-service-publishable-key': owner.publishableKey, origin: ORIGIN });
        assert401(res, 'invalid_token');
        assert.match((res.json() as unknown as { message: string }).message, /[Pp]ublishable keys cannot/);
      });
    }
  }

  test('every /v1 route of the OpenAPI document is in this suite', async () => {
    const doc = (await h.service.api.inject({ url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .filter((r) => !r.endsWith('/v1/oauth/token'))
      .sort();
    const covered = ROUTES.map(
      (r) =>
        `${r.method} ${r.path.replace(/:(\w+)/g, (_m, p: string) => `{${{ event: 'eventId', session: 'sessionId', order: 'orderId', endpoint: 'endpointId', delivery: 'deliveryId' }[p]}}`)}`,
    ).sort();
    assert.deepEqual(covered, documented);
  });
});
