// GET /v1/orders/{orderId} and GET /v1/orders: the full Order for its owner only, bearer tokens only,
// newest first with clamped limits and opaque cursors, filters that narrow correctly, and every bad
// cursor or filter answered 400 validation_failed (never invalid_cursor, never 500).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { cancelPendingOrder } from '../../src/orders/order-lifecycle.ts';
import type { OrderOut } from '../../src/orders/order-out.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import {
  expectCreated,
  expectError,
  expectFieldErrors,
  getOrder,
  HARNESS_ENV,
  listOrders,
  MINUTE_MS,
  orderBody,
  postOrder,
  runDueJobs,
  ticketTypeIds,
} from './order-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness({ env: HARNESS_ENV });
});
afterEach(() => {
  h.clock.offsetMs = 0;
});
after(() => h.close());

interface Page {
  orders: OrderOut[];
  next_cursor: string | null;
  has_more: boolean;
}

/** A partner with a token and one default event ('10 km' paid, '5 km' free). */
async function newShop() {
  const partner = await makePartner(h);
  const auth = bearer(await getToken(h, partner));
  const eventId = (await makeEvent(h, partner)).id;
  const [paidTt, freeTt] = (await ticketTypeIds(h, eventId)) as [string, string];
  const order = async (tt = paidTt, event = eventId) =>
    expectCreated(await postOrder(h, auth, orderBody(event, [tt])));
  return { partner, auth, eventId, paidTt, freeTt, order };
}

async function page(
  auth: Record<string, string>,
  query: Record<string, string | number> = {},
): Promise<Page> {
  const res = await listOrders(h, auth, query);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { code: number; message: string; data: Page };
  assert.equal(body.code, 200);
  assert.equal(body.message, 'Orders retrieved');
  assert.deepEqual(Object.keys(body.data).sort(), ['has_more', 'next_cursor', 'orders']);
  return body.data;
}

const ids = (p: { orders: OrderOut[] } | OrderOut[]) => ('orders' in p ? p.orders : p).map((o) => o.id);

/** Follows next_cursor to the end; the page size may be a function of the page number. */
async function walk(
  auth: Record<string, string>,
  filters: Record<string, string> = {},
  limit: (n: number) => number = () => 7,
): Promise<OrderOut[]> {
  const all: OrderOut[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 100; n++) {
    const p: Page = await page(auth, { ...filters, limit: limit(n), ...(cursor !== null && { cursor }) });
    all.push(...p.orders);
    assert.equal(p.has_more, p.next_cursor !== null, 'has_more exactly when there is a next_cursor');
    if (!p.has_more) return all;
    assert.equal(p.orders.length, limit(n), 'only the last page is short');
    cursor = p.next_cursor;
  }
  throw new Error('the walk did not end');
}

function assertNewestFirst(list: OrderOut[]) {
  for (let i = 1; i < list.length; i++) {
    assert.ok(list[i - 1]!.created_at >= list[i]!.created_at, `newest first at ${i}`);
  }
}

function expectCursorRefused(res: Awaited<ReturnType<typeof listOrders>>, label = '') {
  const body = expectError(res, 400, 'validation_failed', label);
  assert.equal(body.errors?.[0]?.field, 'cursor', `${label} ${res.body}`);
}

describe('GET /v1/orders/{orderId}', () => {
  test('returns the full Order to its owner, as it was created', async () => {
    const shop = await newShop();
    for (const created of [await shop.order(shop.paidTt), await shop.order(shop.freeTt)]) {
      const res = await getOrder(h, shop.auth, created.id);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { code: number; message: string; data: OrderOut };
      assert.deepEqual(Object.keys(body).sort(), ['code', 'data', 'message']);
      assert.equal(body.code, 200);
      assert.equal(body.message, 'Order retrieved');
      assert.deepEqual(body.data, created);
    }
  });

  test("another organization's order and unknown ids are 404 not_found", async () => {
    const mine = await newShop();
    const theirs = await newShop();
    const theirOrder = await theirs.order();
    expectError(await getOrder(h, mine.auth, theirOrder.id), 404, 'not_found', 'other organization');
    for (const id of [
      'ord_doesnotexist0000000000',
      'nope',
      'ord_%E2%82%AC',
      '%F0%9F%8F%83',
      `${theirOrder.id}x`,
    ]) {
      expectError(await getOrder(h, mine.auth, id), 404, 'not_found', id);
    }
    // A NUL byte cannot reach PostgreSQL (it would fail the query): refused as bad input or not found.
    const nul = await getOrder(h, mine.auth, 'ord_%00');
    assert.ok([400, 404].includes(nul.statusCode), nul.body);
    assert.ok(['validation_failed', 'not_found'].includes((nul.json() as { error_code: string }).error_code));
    assert.equal((await getOrder(h, theirs.auth, theirOrder.id)).statusCode, 200, 'the owner still reads it');
  });

  test('a publishable key is 401 invalid_token; a token without orders:read is 403 insufficient_scope', async () => {
    const shop = await newShop();
    const order = await shop.order();
    const key = {
      'x-service-publishable-key': shop.partner.publishableKey,
      origin: 'https://shop.example.org',
    };
    for (const res of [await getOrder(h, key, order.id), await listOrders(h, key)]) {
      expectError(res, 401, 'invalid_token');
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
      assert.ok(!res.body.includes(order.id), 'no order data leaks');
    }
    const narrow = bearer(await getToken(h, shop.partner, 'events:read'));
    expectError(await getOrder(h, narrow, order.id), 403, 'insufficient_scope');
    expectError(await listOrders(h, narrow), 403, 'insufficient_scope');
  });
});

describe('GET /v1/orders pages', () => {
  test('lists full Orders newest first, scoped to the organization', async () => {
    const shop = await newShop();
    const stranger = await newShop();
    await stranger.order();
    const created: OrderOut[] = [];
    for (let i = 0; i < 4; i++) {
      created.push(await shop.order(i % 2 === 0 ? shop.paidTt : shop.freeTt));
      h.clock.advance(1000);
    }
    const p = await page(shop.auth);
    assert.deepEqual(
      p.orders,
      [...created].reverse(),
      'the same Orders as GET /v1/orders/{id}, newest first',
    );
    assert.equal(p.has_more, false);
    assert.equal(p.next_cursor, null);
    assert.deepEqual(await page(stranger.auth, { event_id: shop.eventId }), {
      orders: [],
      next_cursor: null,
      has_more: false,
    });
  });

  test('limit clamps like events: 0 -> 1, 99 -> 50, default 20; a non-integer is 400', async () => {
    const shop = await newShop();
    for (let i = 0; i < 52; i++) await shop.order(shop.paidTt);
    const clamped: Array<[number | string, number]> = [
      [0, 1],
      [-5, 1],
      [1, 1],
      [50, 50],
      [99, 50],
    ];
    for (const [limit, size] of clamped) {
      const p = await page(shop.auth, { limit });
      assert.equal(p.orders.length, size, `limit ${limit}`);
      assert.equal(p.has_more, true, `limit ${limit}`);
    }
    assert.equal((await page(shop.auth)).orders.length, 20, 'default page size');
    for (const limit of ['x', '1.5', '']) {
      expectFieldErrors(await listOrders(h, shop.auth, { limit }), ['limit'], `limit ${limit}`);
    }
  });

  test('walking pages with next_cursor returns every order exactly once, ties included', async () => {
    const shop = await newShop();
    const all: string[] = [];
    for (let i = 0; i < 30; i++) all.push((await shop.order(shop.freeTt)).id);
    // Half of them share one created_at: the id must break the tie for the cursor.
    await h.service.ctx.database.rows(
      sql`UPDATE orders SET created_at = ${h.clock.now().toISOString()}::timestamptz
          WHERE organization_id = ${shop.partner.organizationId} AND id IN (${sql.join(
            all.slice(5, 20).map((id) => sql`${id}`),
            sql`, `,
          )})`,
    );
    for (const [label, limit] of [
      ['limit 7', () => 7],
      ['limit 1', () => 1],
      ['changing page sizes', (n: number) => [3, 11, 2][n % 3]!],
    ] as const) {
      const walked = await walk(shop.auth, {}, limit);
      assert.equal(walked.length, all.length, label);
      assert.equal(new Set(ids(walked)).size, all.length, `${label}: no order twice`);
      assert.deepEqual(ids(walked).sort(), [...all].sort(), `${label}: no order missed`);
      assertNewestFirst(walked);
    }
  });

  test('orders created while walking neither repeat nor shift the pages', async () => {
    const shop = await newShop();
    const old: string[] = [];
    for (let i = 0; i < 6; i++) old.push((await shop.order(shop.freeTt)).id);
    const first = await page(shop.auth, { limit: 2 });
    h.clock.advance(1000);
    const fresh = [await shop.order(shop.freeTt), await shop.order(shop.freeTt)];
    const rest: OrderOut[] = [];
    let cursor = first.next_cursor;
    while (cursor !== null) {
      const p = await page(shop.auth, { limit: 2, cursor });
      rest.push(...p.orders);
      cursor = p.next_cursor;
    }
    const seen = [...ids(first), ...ids(rest)];
    assert.deepEqual([...seen].sort(), [...old].sort());
    for (const o of fresh) assert.ok(!seen.includes(o.id));
  });
});

describe('GET /v1/orders filters', () => {
  let shop: Awaited<ReturnType<typeof newShop>>;
  let otherEventId: string;
  let otherPaidTt: string;
  let otherFreeTt: string;
  /** created one minute apart, oldest first */
  const o: Record<'expired' | 'pending' | 'paid' | 'cancelled' | 'otherPaid', OrderOut> = {} as never;
  let byAge: OrderOut[];

  before(async () => {
    shop = await newShop();
    otherEventId = (await makeEvent(h, shop.partner)).id;
    [otherPaidTt, otherFreeTt] = (await ticketTypeIds(h, otherEventId)) as [string, string];
    const ctx = h.service.ctx;
    o.expired = await shop.order(otherPaidTt, otherEventId);
    h.clock.advance(16 * MINUTE_MS);
    await runDueJobs(h);
    o.pending = await shop.order(shop.paidTt);
    h.clock.advance(MINUTE_MS);
    o.paid = await shop.order(shop.freeTt);
    h.clock.advance(MINUTE_MS);
    o.cancelled = await shop.order(otherPaidTt, otherEventId);
    await ctx.database.transaction((tx) => cancelPendingOrder(tx, o.cancelled.id, ctx.clock.now()));
    h.clock.advance(MINUTE_MS);
    o.otherPaid = await shop.order(otherFreeTt, otherEventId);
    byAge = [o.expired, o.pending, o.paid, o.cancelled, o.otherPaid];
    h.clock.offsetMs = 0;
  });

  const listed = async (query: Record<string, string>) => ids(await walk(shop.auth, query, () => 2)).sort();
  const expected = (...list: OrderOut[]) => ids(list).sort();

  test('event_id narrows to that event', async () => {
    assert.deepEqual(await listed({ event_id: shop.eventId }), expected(o.pending, o.paid));
    assert.deepEqual(await listed({ event_id: otherEventId }), expected(o.expired, o.cancelled, o.otherPaid));
    assert.deepEqual(await listed({ event_id: 'evt_doesnotexist0000000000' }), []);
    const stranger = await newShop();
    await stranger.order();
    assert.deepEqual(await listed({ event_id: stranger.eventId }), [], "another organization's event");
  });

  test('status narrows to that status', async () => {
    assert.deepEqual(await listed({ status: 'pending' }), expected(o.pending));
    assert.deepEqual(await listed({ status: 'paid' }), expected(o.paid, o.otherPaid));
    assert.deepEqual(await listed({ status: 'expired' }), expected(o.expired));
    assert.deepEqual(await listed({ status: 'cancelled' }), expected(o.cancelled));
    assert.deepEqual(await listed({ status: 'refunded' }), []);
    assert.deepEqual(await listed({ status: 'paid', event_id: otherEventId }), expected(o.otherPaid));
    const p = await page(shop.auth, { status: 'expired' });
    assert.equal(p.orders[0]!.failure_kind, 'hold_expired');
  });

  test('an unknown status is 400 validation_failed', async () => {
    for (const status of ['done', 'PAID', 'confirmed', '']) {
      expectFieldErrors(await listOrders(h, shop.auth, { status }), ['status'], status);
    }
  });

  test('created_after and created_before narrow to a time window', async () => {
    const at = (x: OrderOut, ms = 0) => new Date(Date.parse(x.created_at) + ms).toISOString();
    assert.deepEqual(
      await listed({ created_after: at(o.paid, -1) }),
      expected(o.paid, o.cancelled, o.otherPaid),
    );
    assert.deepEqual(await listed({ created_before: at(o.paid, 1) }), expected(o.expired, o.pending, o.paid));
    assert.deepEqual(
      await listed({ created_after: at(o.pending, -1), created_before: at(o.cancelled, 1) }),
      expected(o.pending, o.paid, o.cancelled),
    );
    assert.deepEqual(await listed({ created_after: at(o.otherPaid, 1) }), []);
    assert.deepEqual(await listed({ created_before: '2000-01-01T00:00:00+03:00' }), []);
    // Split at any order's own instant, the two halves are the whole list with nothing twice.
    for (const split of byAge) {
      const before = await listed({ created_before: split.created_at });
      const after = await listed({ created_after: split.created_at });
      assert.deepEqual([...before, ...after].sort(), expected(...byAge), split.created_at);
    }
  });

  test('a malformed or impossible timestamp is 400 validation_failed naming it', async () => {
    for (const value of [
      'yesterday',
      '2024-13-01T00:00:00Z',
      '2024-01-01',
      '2024-01-01T00:00:00',
      '2016-12-31T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59-23:59',
    ]) {
      for (const field of ['created_after', 'created_before']) {
        expectFieldErrors(await listOrders(h, shop.auth, { [field]: value }), [field], `${field}=${value}`);
      }
    }
  });

  test('an event_id that cannot be stored as text is 400 validation_failed, not a 500', async () => {
    const res = await listOrders(h, shop.auth, { event_id: 'evt_\u0000' });
    assert.match(expectError(res, 400, 'validation_failed').errors?.[0]?.field ?? '', /(^|\.)event_id$/);
  });
});

describe('GET /v1/orders cursors', () => {
  let shop: Awaited<ReturnType<typeof newShop>>;
  let cursor: string;

  before(async () => {
    shop = await newShop();
    for (let i = 0; i < 3; i++) await shop.order(shop.paidTt);
    await shop.order(shop.freeTt);
    cursor = (await page(shop.auth, { limit: 1, status: 'pending' })).next_cursor!;
    assert.equal(typeof cursor, 'string');
  });

  test('a cursor works with the filters that produced it', async () => {
    const p = await page(shop.auth, { limit: 1, status: 'pending', cursor });
    assert.equal(p.orders.length, 1);
    assert.equal(p.orders[0]!.status, 'pending');
  });

  test('a malformed cursor is 400 validation_failed on the cursor field, not invalid_cursor', async () => {
    for (const bad of ['abc', 'x'.repeat(2000), cursor.slice(0, 20), `${cursor}=`, '%%%', ' ']) {
      expectCursorRefused(
        await listOrders(h, shop.auth, { status: 'pending', cursor: bad }),
        bad.slice(0, 30),
      );
    }
  });

  test('a cursor reused with changed filters is refused', async () => {
    const changed: Array<Record<string, string>> = [
      {},
      { status: 'paid' },
      { status: 'pending', event_id: shop.eventId },
      { status: 'pending', created_after: '2000-01-01T00:00:00Z' },
    ];
    for (const filters of changed) {
      expectCursorRefused(
        await listOrders(h, shop.auth, { ...filters, limit: 1, cursor }),
        JSON.stringify(filters),
      );
    }
  });

  test("another organization's cursor is refused", async () => {
    const other = await newShop();
    await other.order();
    await other.order();
    const theirs = (await page(other.auth, { limit: 1 })).next_cursor!;
    expectCursorRefused(await listOrders(h, shop.auth, { limit: 1, cursor: theirs }));
    assert.equal((await page(other.auth, { limit: 1, cursor: theirs })).orders.length, 1);
  });

  test('an events cursor is not an orders cursor', async () => {
    await makeEvent(h, shop.partner);
    const events = await h.service.api.inject({
      method: 'GET',
      url: '/v1/events?limit=1',
      headers: shop.auth,
    });
    const eventsCursor = events.json().data.next_cursor as string;
    assert.equal(typeof eventsCursor, 'string');
    expectCursorRefused(await listOrders(h, shop.auth, { cursor: eventsCursor }));
  });

  test('property: any single-character change of a valid cursor is 400 validation_failed, never 500', async () => {
    const base64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('');
    const char = fc.oneof(
      fc.constantFrom(...base64url),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    );
    const change = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), char: fc.constant('') }),
    );
    await fc.assert(
      fc.asyncProperty(change, async ({ kind, at, char: c }) => {
        const i = at % (cursor.length + (kind === 'insert' ? 1 : 0));
        const changed =
          kind === 'replace'
            ? cursor.slice(0, i) + c + cursor.slice(i + 1)
            : kind === 'insert'
              ? cursor.slice(0, i) + c + cursor.slice(i)
              : cursor.slice(0, i) + cursor.slice(i + 1);
        fc.pre(changed !== cursor);
        const res = await listOrders(h, shop.auth, { limit: 1, status: 'pending', cursor: changed });
        expectCursorRefused(res, JSON.stringify({ kind, i, c }));
      }),
      { numRuns: 300 },
    );
  });
});
