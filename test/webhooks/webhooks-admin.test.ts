// The webhook endpoint admin routes: the secret shown once, updates, disable/enable, rotation,
// deletion, and bad input answered with a clear 4xx that changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, dataOf, errorOf, fieldsOf, type AdminRequest } from '../admin/admin-helpers.ts';
import { makePartner, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  deliveriesOf,
  pump,
  sendTestEvent,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from './webhook-helpers.ts';

let h: Harness;
let orgId: string;
let r: Receiver;

before(async () => {
  h = await startWebhookHarness();
  orgId = (await makePartner(h)).organizationId;
  r = await startReceiver();
});
after(async () => {
  await r.close();
  await h.close();
});

let made = 0;
/** The receiver's URL, told apart per endpoint: an organization has one endpoint per URL. */
const nextUrl = () => `${r.url}?endpoint=${++made}`;

function post(url: string, body?: unknown) {
  return admin(h, { method: 'POST', url, ...(body !== undefined && { body }) });
}

describe('creating and reading endpoints', () => {
  test('creation answers 201 with the whsec_ secret, shown only then', async () => {
    const res = await post(`/organizations/${orgId}/webhook-endpoints`, { url: r.url });
    const created = dataOf(res, 201);
    assert.match(created.id, /^whe_[A-Za-z0-9]{24}$/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(created.organization_id, orgId);
    assert.equal(created.url, r.url);
    assert.deepEqual(created.events, ['order.paid']);
    assert.equal(created.status, 'enabled');
    assert.equal(created.disabled_reason, null);
    assert.equal(created.failing_since, null);
    assert.equal(res.json().message, 'Webhook endpoint created');

    const read = await admin(h, { url: `/webhook-endpoints/${created.id}` });
    const list = await admin(h, { url: `/organizations/${orgId}/webhook-endpoints` });
    for (const later of [read, list]) {
      assert.equal(later.statusCode, 200);
      assert.ok(!later.body.includes(created.secret), 'the secret is never shown again');
      assert.ok(!later.body.includes('whsec_'));
    }
    assert.ok(dataOf(list, 200).webhook_endpoints.some((e: { id: string }) => e.id === created.id));
  });

  test('refuses bad input with validation_failed naming the field, and creates nothing', async () => {
    const before = dataOf(await admin(h, { url: `/organizations/${orgId}/webhook-endpoints` }), 200)
      .webhook_endpoints.length;
    const cases: [unknown, string[]][] = [
      [{}, ['url']],
      [{ url: 'not a url' }, ['url']],
      [{ url: 'ftp://example.org/hooks' }, ['url']],
      [{ url: `https://example.org/${'a'.repeat(2100)}` }, ['url']],
      [{ url: 'https://user:secret@example.org/hooks' }, ['url']],
      [{ url: 42 }, ['url']],
      [{ url: r.url, events: [] }, ['events']],
      [{ url: r.url, events: ['order.shipped', 'order.paid', 'test'] }, ['events[0]', 'events[2]']],
      [{ url: r.url, events: 'order.paid' }, ['events']],
      [{ url: r.url, secret: 'whsec_mine' }, ['secret']],
    ];
    for (const [body, fields] of cases) {
      const res = await post(`/organizations/${orgId}/webhook-endpoints`, body);
      const error = errorOf(res, 400, 'validation_failed');
      assert.deepEqual(fieldsOf(error), fields, JSON.stringify(body).slice(0, 80));
    }
    const malformed = await admin(h, {
      method: 'POST',
      url: `/organizations/${orgId}/webhook-endpoints`,
      payload: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    errorOf(malformed, 400, 'validation_failed');
    const after = dataOf(await admin(h, { url: `/organizations/${orgId}/webhook-endpoints` }), 200)
      .webhook_endpoints.length;
    assert.equal(after, before);
  });

  test('unknown or impossible ids are 404 not_found', async () => {
    errorOf(
      await post('/organizations/org_000000000000000000000000/webhook-endpoints', { url: r.url }),
      404,
      'not_found',
    );
    errorOf(await post('/organizations/nope/webhook-endpoints', { url: r.url }), 404, 'not_found');
    errorOf(
      await admin(h, { url: '/organizations/org_000000000000000000000000/webhook-endpoints' }),
      404,
      'not_found',
    );
    errorOf(await admin(h, { url: '/webhook-endpoints/whe_000000000000000000000000' }), 404, 'not_found');
    errorOf(await admin(h, { url: '/webhook-endpoints/cli_000000000000000000000000' }), 404, 'not_found');
    errorOf(await admin(h, { url: `/webhook-endpoints/whe_${'x'.repeat(150)}` }), 404, 'not_found');
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    errorOf(
      await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries/whd_000000000000000000000000` }),
      404,
      'not_found',
    );
    errorOf(
      await post(`/webhook-endpoints/${endpoint.id}/deliveries/whd_000000000000000000000000/retry`),
      404,
      'not_found',
    );
  });

  test('a delivery is found only under its own endpoint', async () => {
    const a = await createEndpoint(h, orgId, nextUrl());
    const b = await createEndpoint(h, (await makePartner(h)).organizationId, r.url);
    const queued = await sendTestEvent(h, a.id);
    errorOf(await admin(h, { url: `/webhook-endpoints/${b.id}/deliveries/${queued.id}` }), 404, 'not_found');
    errorOf(await post(`/webhook-endpoints/${b.id}/deliveries/${queued.id}/retry`), 404, 'not_found');
    assert.equal((await deliveriesOf(h, b.id)).length, 0);
  });

  test('the delivery list refuses a foreign or malformed cursor and an unknown status', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    const other = await createEndpoint(h, orgId, nextUrl());
    await sendTestEvent(h, other.id);
    await sendTestEvent(h, other.id);
    const page = dataOf(await admin(h, { url: `/webhook-endpoints/${other.id}/deliveries?limit=1` }), 200);
    assert.ok(page.next_cursor);
    for (const query of [`cursor=${encodeURIComponent(page.next_cursor)}`, 'cursor=abc', 'cursor=']) {
      const res = await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries?${query}` });
      assert.deepEqual(fieldsOf(errorOf(res, 400, 'validation_failed')), ['cursor'], query);
    }
    errorOf(
      await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries?status=lost` }),
      400,
      'validation_failed',
    );
    errorOf(
      await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries?limit=x` }),
      400,
      'validation_failed',
    );
    const clamped = dataOf(
      await admin(h, { url: `/webhook-endpoints/${other.id}/deliveries?limit=500` }),
      200,
    );
    assert.equal(clamped.deliveries.length, 2);
  });
});

describe('changing endpoints', () => {
  test('PATCH changes the URL and event types; a bad value changes nothing', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    const other = await startReceiver();
    try {
      const patched = dataOf(
        await admin(h, {
          method: 'PATCH',
          url: `/webhook-endpoints/${endpoint.id}`,
          body: { url: other.url, events: ['order.paid', 'order.paid'] },
        }),
        200,
      );
      assert.equal(patched.url, other.url);
      assert.deepEqual(patched.events, ['order.paid']);
      for (const body of [{ url: 'nope' }, { events: ['nope'] }, { events: [] }, { status: 'disabled' }]) {
        const res = await admin(h, { method: 'PATCH', url: `/webhook-endpoints/${endpoint.id}`, body });
        errorOf(res, 400, 'validation_failed');
      }
      const read = dataOf(await admin(h, { url: `/webhook-endpoints/${endpoint.id}` }), 200);
      assert.equal(read.url, other.url);
      await sendTestEvent(h, endpoint.id);
      await pump(h, () => other.requests.length >= 1);
    } finally {
      await other.close();
    }
  });

  test('disable stops test events and retries (409 conflict); enable allows them again', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    const queued = await sendTestEvent(h, endpoint.id);
    const disabled = dataOf(await post(`/webhook-endpoints/${endpoint.id}/disable`), 200);
    assert.equal(disabled.status, 'disabled');
    assert.equal(disabled.disabled_reason, 'manual');
    const [cancelled] = await deliveriesOf(h, endpoint.id);
    assert.equal(cancelled!.status, 'cancelled', 'pending deliveries of a disabled endpoint stop');
    errorOf(await post(`/webhook-endpoints/${endpoint.id}/test`), 409, 'conflict');
    errorOf(await post(`/webhook-endpoints/${endpoint.id}/deliveries/${queued.id}/retry`), 409, 'conflict');
    assert.equal(
      dataOf(await post(`/webhook-endpoints/${endpoint.id}/disable`), 200).status,
      'disabled',
      'idempotent',
    );

    const enabled = dataOf(await post(`/webhook-endpoints/${endpoint.id}/enable`), 200);
    assert.equal(enabled.status, 'enabled');
    assert.equal(enabled.disabled_at, null);
    const retried = dataOf(
      await post(`/webhook-endpoints/${endpoint.id}/deliveries/${queued.id}/retry`),
      202,
    );
    assert.equal(retried.status, 'pending');
    await pump(h, async () => (await deliveriesOf(h, endpoint.id))[0]!.status === 'delivered');
  });

  test('rotate-secret returns the new secret once and reports the overlap', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    const rotated = dataOf(await post(`/webhook-endpoints/${endpoint.id}/rotate-secret`), 200);
    assert.deepEqual(Object.keys(rotated).sort(), ['id', 'previous_secret_expires_at', 'secret']);
    assert.notEqual(rotated.secret, endpoint.secret);
    const read = await admin(h, { url: `/webhook-endpoints/${endpoint.id}` });
    assert.ok(!read.body.includes(rotated.secret));
    assert.equal(dataOf(read, 200).previous_secret_expires_at, rotated.previous_secret_expires_at);
    assert.ok(dataOf(read, 200).secret_rotated_at);
  });

  test('delete removes the endpoint and its deliveries', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    await sendTestEvent(h, endpoint.id);
    const res = await admin(h, { method: 'DELETE', url: `/webhook-endpoints/${endpoint.id}` });
    assert.deepEqual(dataOf(res, 200), { id: endpoint.id, deleted: true });
    errorOf(await admin(h, { url: `/webhook-endpoints/${endpoint.id}` }), 404, 'not_found');
    errorOf(await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries` }), 404, 'not_found');
    errorOf(await admin(h, { method: 'DELETE', url: `/webhook-endpoints/${endpoint.id}` }), 404, 'not_found');
    await h.service.jobs.runDue(); // its queued job finds nothing to do
  });

  test('actions take no body: absent, empty or {} is fine, anything else is refused', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    for (const payload of ['', '{}']) {
      const res = await admin(h, {
        method: 'POST',
        url: `/webhook-endpoints/${endpoint.id}/rotate-secret`,
        payload,
        headers: { 'content-type': 'application/json' },
      });
      dataOf(res, 200);
    }
    const res = await post(`/webhook-endpoints/${endpoint.id}/disable`, { reason: 'x' });
    assert.deepEqual(fieldsOf(errorOf(res, 400, 'validation_failed')), ['reason']);
  });
});

describe('admin key', () => {
  test('every webhook route without the admin key is 401 unauthorized', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    const queued = await sendTestEvent(h, endpoint.id);
    const e = `/webhook-endpoints/${endpoint.id}`;
    const routes: AdminRequest[] = [
      { method: 'POST', url: `/organizations/${orgId}/webhook-endpoints`, body: { url: r.url } },
      { method: 'GET', url: `/organizations/${orgId}/webhook-endpoints` },
      { method: 'GET', url: e },
      { method: 'PATCH', url: e, body: { url: r.url } },
      { method: 'DELETE', url: e },
      { method: 'POST', url: `${e}/disable` },
      { method: 'POST', url: `${e}/enable` },
      { method: 'POST', url: `${e}/rotate-secret` },
      { method: 'POST', url: `${e}/test` },
      { method: 'GET', url: `${e}/deliveries` },
      { method: 'GET', url: `${e}/deliveries/${queued.id}` },
      { method: 'POST', url: `${e}/deliveries/${queued.id}/retry` },
    ];
    for (const route of routes) {
      for (const key of [null, 'adm_wrong_key_0123456789abcdefghijkl']) {
        const res = await admin(h, { ...route, key });
        errorOf(res, 401, 'unauthorized');
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="service-partner"');
      }
    }
    dataOf(await admin(h, { url: e }), 200); // untouched
  });
});

describe('robustness', () => {
  test('hostile ids and text are 4xx on every webhook route, never 500', async () => {
    const endpoint = await createEndpoint(h, orgId, nextUrl());
    const ids = [
      'x'.repeat(10_000),
      `whe_${'A'.repeat(150)}`,
      'whe_%00AAAAAAAAAAAAAAAAAAAAAAAA',
      '%F0%9F%8F%83',
      '..%2F..%2Fadmin',
      "whe_AAAAAAAAAAAA' OR '1'='1",
    ];
    for (const id of ids) {
      const routes: AdminRequest[] = [
        { method: 'POST', url: `/organizations/${id}/webhook-endpoints`, body: { url: r.url } },
        { url: `/organizations/${id}/webhook-endpoints` },
        { url: `/webhook-endpoints/${id}` },
        { method: 'PATCH', url: `/webhook-endpoints/${id}`, body: { url: r.url } },
        { method: 'DELETE', url: `/webhook-endpoints/${id}` },
        { method: 'POST', url: `/webhook-endpoints/${id}/test` },
        { url: `/webhook-endpoints/${id}/deliveries` },
        { url: `/webhook-endpoints/${endpoint.id}/deliveries/${id}` },
        { method: 'POST', url: `/webhook-endpoints/${endpoint.id}/deliveries/${id}/retry` },
      ];
      for (const route of routes) {
        const res = await admin(h, route);
        assert.ok(
          [400, 404].includes(res.statusCode),
          `${route.method ?? 'GET'} ${route.url.slice(0, 80)}: ${res.statusCode}`,
        );
      }
    }
    const bodies: unknown[] = [
      { url: 'https://exa\u0000mple.org/' },
      { url: 'https://example.org/\ud800' },
      { url: 'https://[::1' },
      { url: 'https://bücher.example/hooks' }, // resolves to nothing here (tests resolve no names)
      { url: 'javascript:alert(1)' },
      { url: 'http://[fe80::1%25eth0]/' },
      { url: r.url, events: ['x'.repeat(101)] },
      { url: r.url, events: Array(21).fill('order.paid') },
      { url: r.url, events: [null] },
      [],
      'text',
    ];
    for (const body of bodies) {
      const res = await admin(h, { method: 'POST', url: `/organizations/${orgId}/webhook-endpoints`, body });
      errorOf(res, 400, 'validation_failed');
    }
  });
});
