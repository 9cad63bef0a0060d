// The partner webhook API: a bearer token with webhooks:write manages its own organization's
// endpoints; the secret is shown once; the test event arrives signed; another organization's
// endpoint is 404; without the scope, or with a publishable key, 403/401; bad input 400 and
// nothing changes; every change is in the audit log by the API client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { bearer, getToken, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  pump,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
} from './webhook-helpers.ts';

let h: Harness;
let r: Receiver;
let partner: TestPartner;
let token: string;

before(async () => {
  h = await startWebhookHarness();
  r = await startReceiver();
  partner = await makePartner(h);
  token = await getToken(h, partner);
});
after(async () => {
  await r.close();
  await h.close();
});

function api(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, auth = token) {
  return h.service.api.inject({
    method,
    url: `/v1${url}`,
    headers: { ...bearer(auth), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
}

function dataOf(res: { statusCode: number; body: string }, status: number) {
  assert.equal(res.statusCode, status, res.body);
  return JSON.parse(res.body).data;
}

describe('partner webhook endpoints', () => {
  test('create shows the secret once; the test event arrives verified with it', async () => {
    const created = dataOf(await api('POST', '/webhook-endpoints', { url: r.url }), 201);
    assert.match(created.secret, /^whsec_/);
    assert.deepEqual(created.events, ['order.paid']);
    assert.equal(created.organization_id, partner.organizationId);

    const read = await api('GET', `/webhook-endpoints/${created.id}`);
    const list = await api('GET', '/webhook-endpoints');
    for (const later of [read, list]) {
      assert.equal(later.statusCode, 200, later.body);
      assert.ok(!later.body.includes('whsec_'), 'the secret is never shown again');
    }
    assert.deepEqual(
      dataOf(list, 200).webhook_endpoints.map((e: { id: string }) => e.id),
      [created.id],
    );

    const queued = dataOf(await api('POST', `/webhook-endpoints/${created.id}/test`), 202);
    assert.equal(queued.event_type, 'test');
    await pump(h, () => r.requests.length > 0);
    const payload = verifyDelivery(created.secret, r.requests[0]!);
    assert.equal(payload.type, 'test');
    assert.deepEqual(payload.data, {
      endpoint_id: created.id,
      message: (payload.data as { message: string }).message,
    });
  });

  test('PATCH changes url, events and status; a disabled endpoint takes no test event', async () => {
    const created = dataOf(await api('POST', '/webhook-endpoints', { url: `${r.url}/patched` }), 201);
    const path = `/webhook-endpoints/${created.id}`;
    const moved = dataOf(await api('PATCH', path, { url: `${r.url}/v2` }), 200);
    assert.equal(moved.url, `${r.url}/v2`);
    const disabled = dataOf(await api('PATCH', path, { status: 'disabled' }), 200);
    assert.equal(disabled.status, 'disabled');
    assert.equal(disabled.disabled_reason, 'manual');
    const refused = await api('POST', `${path}/test`);
    assert.equal(refused.statusCode, 409);
    assert.equal(JSON.parse(refused.body).error_code, 'conflict');
    const enabled = dataOf(await api('PATCH', path, { status: 'enabled', events: ['order.paid'] }), 200);
    assert.equal(enabled.status, 'enabled');
    assert.deepEqual(dataOf(await api('DELETE', path), 200), { id: created.id, deleted: true });
    assert.equal((await api('GET', path)).statusCode, 404);

    const { rows } = await listAuditEvents(h.service.ctx.database.db, partner.organizationId, { limit: 50 });
    const mine = rows.filter((row) => row.targetId === created.id).reverse();
    assert.deepEqual(
      mine.map((row) => row.action),
      [
        'webhook_endpoint.created',
        'webhook_endpoint.updated',
        'webhook_endpoint.disabled',
        // one PATCH: its events first, then its status
        'webhook_endpoint.updated',
        'webhook_endpoint.enabled',
        'webhook_endpoint.deleted',
      ],
    );
    for (const row of mine) {
      assert.equal(row.actorLabel, `API client ${partner.clientId}`);
      assert.equal(row.actorMemberId, null);
    }
    assert.ok(!JSON.stringify(mine).includes(created.secret));
  });

  test("another organization's endpoint is the same 404 as a missing one, and is left alone", async () => {
    const other = await makePartner(h);
    const otherToken = await getToken(h, other);
    const theirs = dataOf(await api('POST', '/webhook-endpoints', { url: r.url }, otherToken), 201);
    const missing = 'whe_ZZZZZZZZZZZZZZZZZZZZZZZZ';
    for (const id of [theirs.id, missing, 'nonsense']) {
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['PATCH', '', { status: 'disabled' }],
        ['DELETE', '', undefined],
        ['POST', '/test', undefined],
        ['GET', '/deliveries', undefined],
        ['POST', '/deliveries/whd_ZZZZZZZZZZZZZZZZZZZZZZZZ/retry', undefined],
      ] as const) {
        const res = await api(method, `/webhook-endpoints/${id}${suffix}`, body);
        assert.equal(res.statusCode, 404, `${method} ${id}${suffix}: ${res.body}`);
        assert.equal(JSON.parse(res.body).error_code, 'not_found');
      }
    }
    const list = dataOf(await api('GET', '/webhook-endpoints'), 200);
    assert.ok(!list.webhook_endpoints.some((e: { id: string }) => e.id === theirs.id));
    const still = dataOf(await api('GET', `/webhook-endpoints/${theirs.id}`, undefined, otherToken), 200);
    assert.equal(still.status, 'enabled');
  });

  test('bad input is 400 naming the field, and creates nothing', async () => {
    const fresh = await makePartner(h);
    const freshToken = await getToken(h, fresh);
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://example.org/hooks' }, 'url'],
      [{ url: r.url, events: ['order.eaten'] }, 'events[0]'],
      [{ url: r.url, extra: true }, 'extra'],
      [{}, 'url'],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/webhook-endpoints', body, freshToken);
      assert.equal(res.statusCode, 400, res.body);
      const error = JSON.parse(res.body);
      assert.equal(error.error_code, 'validation_failed');
      assert.ok(
        error.errors.some((e: { field: string }) => e.field === field),
        `${JSON.stringify(body)} names ${field}: ${res.body}`,
      );
    }
    assert.deepEqual(
      dataOf(await api('GET', '/webhook-endpoints', undefined, freshToken), 200).webhook_endpoints,
      [],
    );
  });

  test('the scope is needed: a token without webhooks:write is 403, a publishable key 401', async () => {
    const narrow = await makePartner(h, { scopes: ALL_SCOPES.filter((s) => s !== 'webhooks:write') });
    const narrowToken = await getToken(h, narrow);
    const res = await api('GET', '/webhook-endpoints', undefined, narrowToken);
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(JSON.parse(res.body).error_code, 'insufficient_scope');
    const created = await api('POST', '/webhook-endpoints', { url: r.url }, narrowToken);
    assert.equal(created.statusCode, 403);

    const publishable = await h.service.api.inject({
      method: 'GET',
      url: '/v1/webhook-endpoints',
      headers: { 'x-service-publishable-key': partner.publishableKey, origin: 'https://shop.example.org' },
    });
    assert.equal(publishable.statusCode, 401, publishable.body);
  });

  test('the delivery log shows each attempt with its status, latency and reply, page by page', async () => {
    const failing = await startReceiver(() => ({ status: 500, body: 'receiver says: database down' }));
    try {
      const own = await makePartner(h);
      const ownToken = await getToken(h, own);
      const created = dataOf(await api('POST', '/webhook-endpoints', { url: failing.url }, ownToken), 201);
      const path = `/webhook-endpoints/${created.id}`;
      for (let i = 0; i < 3; i++) dataOf(await api('POST', `${path}/test`, undefined, ownToken), 202);
      await pump(h, () => failing.requests.length >= 3);

      const first = dataOf(await api('GET', `${path}/deliveries?limit=2`, undefined, ownToken), 200);
      assert.equal(first.deliveries.length, 2);
      assert.equal(first.has_more, true);
      const attempt = first.deliveries[0].attempts[0];
      assert.equal(attempt.status, 500);
      assert.equal(attempt.response_excerpt, 'receiver says: database down');
      assert.ok(Number.isInteger(attempt.latency_ms) && attempt.latency_ms >= 0);
      const second = dataOf(
        await api(
          'GET',
          `${path}/deliveries?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`,
          undefined,
          ownToken,
        ),
        200,
      );
      assert.equal(second.deliveries.length, 1);
      assert.equal(second.has_more, false);
      assert.equal(second.next_cursor, null);
      const ids = [...first.deliveries, ...second.deliveries].map((d: { id: string }) => d.id);
      assert.equal(new Set(ids).size, 3);

      // A cursor is bound to its filter, and the filter is checked.
      const mixed = await api(
        'GET',
        `${path}/deliveries?status=delivered&cursor=${encodeURIComponent(first.next_cursor)}`,
        undefined,
        ownToken,
      );
      assert.equal(mixed.statusCode, 400, mixed.body);
      assert.equal(JSON.parse(mixed.body).errors[0].field, 'cursor');
      const badStatus = await api('GET', `${path}/deliveries?status=lost`, undefined, ownToken);
      assert.equal(badStatus.statusCode, 400);
      // Another partner's token sees none of it.
      assert.equal((await api('GET', `${path}/deliveries`)).statusCode, 404);
    } finally {
      await failing.close();
    }
  });

  test('a delivery sent again arrives with the same webhook-id; a disabled endpoint refuses', async () => {
    const own = await makePartner(h);
    const ownToken = await getToken(h, own);
    const url = `${r.url}/again`;
    const created = dataOf(await api('POST', '/webhook-endpoints', { url }, ownToken), 201);
    const path = `/webhook-endpoints/${created.id}`;
    const queued = dataOf(await api('POST', `${path}/test`, undefined, ownToken), 202);
    const arrived = () => r.requests.filter((q) => q.path === '/hooks/again');
    await pump(h, () => arrived().length === 1);
    const sent = dataOf(await api('POST', `${path}/deliveries/${queued.id}/retry`, undefined, ownToken), 202);
    assert.equal(sent.id, queued.id);
    await pump(h, () => arrived().length === 2);
    assert.equal(arrived()[1]!.headers['webhook-id'], arrived()[0]!.headers['webhook-id']);
    verifyDelivery(created.secret, arrived()[1]!);

    // Not this endpoint's delivery, or not a delivery id: 404; a disabled endpoint: 409.
    const other = dataOf(await api('POST', '/webhook-endpoints', { url: `${r.url}/other` }, ownToken), 201);
    for (const id of [queued.id, 'whd_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'nonsense']) {
      const res = await api(
        'POST',
        `/webhook-endpoints/${other.id}/deliveries/${id}/retry`,
        undefined,
        ownToken,
      );
      assert.equal(res.statusCode, 404, res.body);
    }
    dataOf(await api('PATCH', path, { status: 'disabled' }, ownToken), 200);
    const refused = await api('POST', `${path}/deliveries/${queued.id}/retry`, undefined, ownToken);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(arrived().length, 2);
  });
});
