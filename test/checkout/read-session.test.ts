import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { OffsetClock } from '../../src/platform/clock.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import {
  DAY_MS,
  expectError,
  getSession,
  postSession,
  redirectBody,
  SESSION_ID,
  SHOP,
  withKey,
} from './checkout-helpers.ts';

let h: Harness;
let partner: TestPartner;
let token: string;
let eventId: string;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  token = await getToken(h, partner);
  eventId = (await makeEvent(h, partner)).id;
});
after(() => h.close());

async function create(body: unknown, headers: Record<string, string> = bearer(token)) {
  const res = await postSession(h, headers, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; url: string; expires_at: string; ui_mode: string };
}

const READ_KEYS = [
  'client_reference_id',
  'created_at',
  'embed_origin',
  'event_id',
  'expires_at',
  'id',
  'on_cancel_url',
  'on_success_url',
  'order',
  'status',
  'ui_mode',
  'url',
];

describe('GET /v1/checkout-sessions/{id}', () => {
  test('reads a redirect session in its documented shape, success URL filled in and cancel URL as given', async () => {
    const t0 = h.clock.now().getTime();
    const created = await create(
      redirectBody(eventId, {
        on_success_url: `${SHOP}/thanks?ref={CHECKOUT_SESSION_ID}&x=1#top`,
        on_cancel_url: `${SHOP}/cart?session_id={CHECKOUT_SESSION_ID}`,
        client_reference_id: 'basket-42',
      }),
    );
    const t1 = h.clock.now().getTime();
    const res = await getSession(h, bearer(token), created.id);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'data', 'message']);
    assert.equal(body.code, 200);
    assert.equal(typeof body.message, 'string');
    const data = body.data;
    assert.deepEqual(Object.keys(data).sort(), READ_KEYS);
    const createdAt = Date.parse(data.created_at);
    assert.ok(createdAt >= t0 && createdAt <= t1, 'created_at is when the session was created');
    assert.equal(new Date(createdAt).toISOString(), data.created_at, 'ISO 8601 UTC with milliseconds');
    assert.deepEqual(data, {
      id: created.id,
      status: 'open',
      ui_mode: 'redirect',
      url: created.url,
      expires_at: new Date(createdAt + DAY_MS).toISOString(),
      created_at: data.created_at,
      event_id: eventId,
      client_reference_id: 'basket-42',
      embed_origin: null,
      on_success_url: `${SHOP}/thanks?ref=${created.id}&x=1#top`,
      on_cancel_url: `${SHOP}/cart?session_id={CHECKOUT_SESSION_ID}`,
      order: null,
    });
    assert.equal(data.expires_at, created.expires_at);
    assert.equal(data.url, `${h.config.siteUrl.origin}/checkout/${created.id}`);
  });

  test('adds session_id to a success URL without a placeholder', async () => {
    const created = await create(
      redirectBody(eventId, { on_success_url: `${SHOP}/thanks?session_id=old&lang=en#receipt` }),
    );
    const data = (await getSession(h, bearer(token), created.id)).json().data;
    assert.equal(data.on_success_url, `${SHOP}/thanks?lang=en&session_id=${created.id}#receipt`);
    assert.equal(data.on_cancel_url, `${SHOP}/cart`);
    assert.equal(data.client_reference_id, null);
  });

  test('reads an embedded session with its embed origin and null return URLs', async () => {
    const created = await create({ event_id: eventId, ui_mode: 'embedded', embed_origin: SHOP });
    const data = (await getSession(h, bearer(token), created.id)).json().data;
    assert.deepEqual(Object.keys(data).sort(), READ_KEYS);
    assert.equal(data.ui_mode, 'embedded');
    assert.equal(data.embed_origin, SHOP);
    assert.equal(data.on_success_url, null);
    assert.equal(data.on_cancel_url, null);
    assert.equal(data.order, null);
  });

  test('reads a session created with the publishable key', async () => {
    const created = await create(
      { event_id: eventId, ui_mode: 'embedded' },
      withKey(partner.publishableKey, SHOP),
    );
    const res = await getSession(h, bearer(token), created.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.id, created.id);
    assert.equal(res.json().data.embed_origin, SHOP);
  });

  test("another organization's session is 404 not_found", async () => {
    const created = await create(redirectBody(eventId));
    const other = await makePartner(h);
    const otherToken = await getToken(h, other);
    expectError(await getSession(h, bearer(otherToken), created.id), 404, 'not_found');
    // the owner still sees it, so the 404 is about ownership
    assert.equal((await getSession(h, bearer(token), created.id)).statusCode, 200);
  });

  test('an unknown id is 404 not_found', async () => {
    for (const id of ['cs_doesnotexist0000000000', 'cs_x', 'evt_notasession', 'nothing']) {
      expectError(await getSession(h, bearer(token), id), 404, 'not_found', id);
    }
  });

  test('a publishable key is 401 invalid_token: publishable keys cannot read sessions', async () => {
    const created = await create(redirectBody(eventId));
    const res = await getSession(h, withKey(partner.publishableKey, SHOP), created.id);
    const body = expectError(res, 401, 'invalid_token');
    assert.match(body.message, /publishable keys cannot/i);
    assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
    assert.equal(JSON.stringify(body).includes(created.id), false, 'nothing of the session leaks');
    // with both, only the bearer token counts
    const both = await getSession(
      h,
      { ...withKey(partner.publishableKey, SHOP), ...bearer(token) },
      created.id,
    );
    assert.equal(both.statusCode, 200);
  });

  test('a token without checkout_sessions:read is 403 insufficient_scope', async () => {
    const created = await create(redirectBody(eventId));
    const writeOnly = await getToken(h, partner, 'checkout_sessions:write');
    expectError(await getSession(h, bearer(writeOnly), created.id), 403, 'insufficient_scope');
    const noRead = await makePartner(h, { scopes: ['events:read', 'checkout_sessions:write'] });
    const noReadToken = await getToken(h, noRead);
    const event = await makeEvent(h, noRead);
    const res = await postSession(h, bearer(noReadToken), redirectBody(event.id));
    assert.equal(res.statusCode, 201, res.body);
    expectError(await getSession(h, bearer(noReadToken), res.json().data.id), 403, 'insufficient_scope');
  });

  test('no credential is 401 invalid_token', async () => {
    const created = await create(redirectBody(eventId));
    expectError(await getSession(h, {}, created.id), 401, 'invalid_token');
  });

  test('reads open until 24 hours have passed, then expired, with no sweeper touching the row', async () => {
    const created = await create(redirectBody(eventId));
    assert.match(created.id, SESSION_ID);
    assert.equal((await getSession(h, bearer(token), created.id)).json().data.status, 'open');
    try {
      h.clock.advance(DAY_MS - 60_000);
      const nearlyToken = await getToken(h, partner);
      assert.equal((await getSession(h, bearer(nearlyToken), created.id)).json().data.status, 'open');
      h.clock.advance(60_000);
      const lateToken = await getToken(h, partner);
      const res = await getSession(h, bearer(lateToken), created.id);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().data.status, 'expired');
      assert.equal(res.json().data.expires_at, created.expires_at);
      const [row] = await h.service.ctx.database.rows<{ status: string }>(
        sql`SELECT status FROM checkout_sessions WHERE id = ${created.id}`,
      );
      assert.equal(row!.status, 'open', 'the stored row was not changed: expiry is read from expires_at');
    } finally {
      h.clock.offsetMs = 0;
    }
    assert.equal((await getSession(h, bearer(token), created.id)).json().data.status, 'open');
  });

  test('expires at expires_at itself: open one millisecond before, expired at that instant', async () => {
    const created = await create(redirectBody(eventId));
    const expiresAt = Date.parse(created.expires_at);
    const statusAt = async (ms: number) => {
      h.clock.now = () => new Date(ms);
      const res = await getSession(h, bearer(await getToken(h, partner)), created.id);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.status as string;
    };
    try {
      assert.equal(await statusAt(expiresAt - 1), 'open');
      assert.equal(await statusAt(expiresAt), 'expired');
    } finally {
      h.clock.now = OffsetClock.prototype.now;
    }
  });
});
