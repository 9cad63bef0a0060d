import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bearer,
  eventInput,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import type { EventInput } from '../../src/events/events.ts';
import { admin, dataOf } from '../admin/admin-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ORIGIN = 'https://shop.example.org';

/** The Event list item fields of the contract (docs/contract.md#event), with their JSON types. */
const LIST_ITEM_TYPES: Record<string, 'string' | 'timestamp' | 'boolean'> = {
  event_id: 'string',
  name: 'string',
  handle: 'string',
  short_code: 'string',
  description: 'string',
  cover: 'string',
  venue: 'string',
  event_type: 'string',
  status: 'string',
  visibility: 'string',
  starts_at: 'timestamp',
  ends_at: 'timestamp',
  timezone: 'string',
  currency: 'string',
  reg_opens_at: 'timestamp',
  reg_closes_at: 'timestamp',
  payments_enabled: 'boolean',
};

interface ListItem {
  event_id: string;
  starts_at: string;
  [field: string]: unknown;
}

async function list(token: string, query: Record<string, string> = {}) {
  const qs = new URLSearchParams(query).toString();
  return h.service.api.inject({ url: `/v1/events${qs ? `?${qs}` : ''}`, headers: bearer(token) });
}

async function listIds(token: string, query: Record<string, string> = {}): Promise<string[]> {
  const res = await list(token, query);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data.events as ListItem[]).map((e) => e.event_id);
}

/**
 * An event on sale starting `offsetMs` after `base` (default: now on the harness clock). Pass one
 * `base` to several calls to give events exactly the same start time.
 */
function at(
  offsetMs: number,
  overrides: Partial<EventInput> = {},
  base = h.clock.now().getTime(),
): Partial<EventInput> {
  return {
    starts_at: new Date(base + offsetMs).toISOString(),
    ends_at: new Date(base + offsetMs + 6 * HOUR).toISOString(),
    ticket_types: [],
    ...overrides,
  };
}

/** Soonest first, then id (plain code-unit order, as the ids are ASCII base62). */
function byStartThenId(a: { starts_at: string; id: string }, b: { starts_at: string; id: string }) {
  const t = Date.parse(a.starts_at) - Date.parse(b.starts_at);
  if (t !== 0) return t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

describe('GET /v1/events', () => {
  test('answers in the success envelope with events, next_cursor and has_more', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const event = await makeEvent(h, partner);
    const res = await list(token);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.match(String(res.headers['x-request-id']), /^req_/);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'data', 'message']);
    assert.equal(body.code, 200);
    assert.equal(typeof body.message, 'string');
    assert.ok(body.message.length > 0);
    assert.deepEqual(Object.keys(body.data).sort(), ['events', 'has_more', 'next_cursor']);
    assert.deepEqual(
      body.data.events.map((e: ListItem) => e.event_id),
      [event.id],
    );
    assert.equal(body.data.has_more, false);
    assert.equal(body.data.next_cursor, null);
  });

  test('gives every Event list item field of the contract with its type and no other field', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const input = eventInput(h, {
      name: 'Kampala City Half Marathon',
      handle: 'kampala-city-half',
      short_code: 'KCH26',
      description: 'Flat and fast along the lake.',
      cover: 'https://cdn.example.org/kch.jpg',
      venue: 'Kololo Airstrip',
      event_type: 'road_race',
      timezone: 'Africa/Kampala',
      currency: 'UGX',
      // milliseconds that are not zero, to see they survive the round trip
      starts_at: '2099-03-04T05:06:07.089Z',
      ends_at: '2099-03-04T11:06:07.001Z',
      reg_opens_at: '2020-01-02T03:04:05.600Z',
      reg_closes_at: '2099-03-01T00:00:00.010Z',
    });
    const event = await makeEvent(h, partner, input);
    const res = await list(token);
    assert.equal(res.statusCode, 200);
    const [item] = res.json().data.events as ListItem[];
    assert.ok(item);
    assert.deepEqual(Object.keys(item).sort(), Object.keys(LIST_ITEM_TYPES).sort());
    for (const [field, type] of Object.entries(LIST_ITEM_TYPES)) {
      const value: unknown = item[field];
      if (type === 'timestamp') {
        assert.equal(typeof value, 'string', field);
        assert.match(value as string, TIMESTAMP, field);
      } else {
        assert.equal(typeof value, type, field);
      }
    }
    assert.deepEqual(item, {
      event_id: event.id,
      name: 'Kampala City Half Marathon',
      handle: 'kampala-city-half',
      short_code: 'KCH26',
      description: 'Flat and fast along the lake.',
      cover: 'https://cdn.example.org/kch.jpg',
      venue: 'Kololo Airstrip',
      event_type: 'road_race',
      status: 'open',
      visibility: 'public',
      starts_at: '2099-03-04T05:06:07.089Z',
      ends_at: '2099-03-04T11:06:07.001Z',
      timezone: 'Africa/Kampala',
      currency: 'UGX',
      reg_opens_at: '2020-01-02T03:04:05.600Z',
      reg_closes_at: '2099-03-01T00:00:00.010Z',
      payments_enabled: true,
    });
    assert.match(item.event_id, /^evt_[A-Za-z0-9]{24}$/);
  });

  test('lists only public open events that have not ended', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const listed = await makeEvent(h, partner, at(2 * DAY, { name: 'listed' }));
    // Started an hour ago, ends in five hours: still on sale.
    const running = await makeEvent(h, partner, at(-HOUR, { name: 'running' }));
    await makeEvent(h, partner, at(DAY, { status: 'draft' }));
    await makeEvent(h, partner, at(DAY, { status: 'closed' }));
    await makeEvent(h, partner, at(DAY, { status: 'cancelled' }));
    await makeEvent(h, partner, at(DAY, { visibility: 'private' }));
    await makeEvent(h, partner, at(DAY, { visibility: 'unlisted' }));
    await makeEvent(h, partner, at(-2 * DAY, { name: 'ended' })); // ended 42 hours ago
    await makeEvent(h, partner, at(-7 * HOUR, { name: 'just ended' })); // ended an hour ago
    assert.deepEqual(await listIds(token), [running.id, listed.id]);
  });

  test('lists an unlisted event nowhere but serves it by id', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const unlisted = await makeEvent(h, partner, at(DAY, { visibility: 'unlisted' }));
    assert.deepEqual(await listIds(token), []);
    const detail = await h.service.api.inject({ url: `/v1/events/${unlisted.id}`, headers: bearer(token) });
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.json().data.event_id, unlisted.id);
    assert.equal(detail.json().data.visibility, 'unlisted');
  });

  test('drops an event from the list once it ends', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const event = await makeEvent(h, partner, at(HOUR)); // ends in 7 hours
    assert.deepEqual(await listIds(token), [event.id]);
    const offset = h.clock.offsetMs;
    h.clock.advance(7 * HOUR + 1000);
    try {
      // The token lives an hour; take a new one at the moved time.
      const later = await getToken(h, partner);
      assert.deepEqual(await listIds(later), []);
    } finally {
      h.clock.offsetMs = offset;
    }
  });

  test("lists only the caller's organization's events", async () => {
    const mine = await makePartner(h);
    const theirs = await makePartner(h);
    const a = await makeEvent(h, mine, at(3 * DAY));
    const b = await makeEvent(h, theirs, at(2 * DAY));
    const c = await makeEvent(h, theirs, at(4 * DAY));
    assert.deepEqual(await listIds(await getToken(h, mine)), [a.id]);
    assert.deepEqual(await listIds(await getToken(h, theirs)), [b.id, c.id]);
  });

  test('orders soonest first by starts_at, then by id', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const created = [];
    const base = h.clock.now().getTime();
    // Created out of order, with three events sharing one start time.
    for (const offset of [5 * DAY, 2 * DAY, 3 * DAY, 3 * DAY, 1 * DAY, 3 * DAY, 4 * DAY]) {
      created.push(await makeEvent(h, partner, at(offset, {}, base)));
    }
    assert.equal(new Set(created.map((e) => e.startsAt.getTime())).size, 5);
    const expected = created
      .map((e) => ({ id: e.id, starts_at: e.startsAt.toISOString() }))
      .sort(byStartThenId)
      .map((e) => e.id);
    const res = await list(token);
    const items = res.json().data.events as ListItem[];
    assert.deepEqual(
      items.map((e) => e.event_id),
      expected,
    );
    // And the served start times are non-decreasing.
    for (let i = 1; i < items.length; i++) {
      assert.ok(Date.parse(items[i - 1]!.starts_at) <= Date.parse(items[i]!.starts_at));
    }
  });

  test('lists an on-sale event outside its registration window (on sale is not registration open)', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const now = h.clock.now().getTime();
    const notYet = await makeEvent(
      h,
      partner,
      at(10 * DAY, {
        reg_opens_at: new Date(now + 2 * DAY).toISOString(),
        reg_closes_at: new Date(now + 9 * DAY).toISOString(),
      }),
    );
    const closedAlready = await makeEvent(
      h,
      partner,
      at(11 * DAY, {
        reg_opens_at: new Date(now - 9 * DAY).toISOString(),
        reg_closes_at: new Date(now - 2 * DAY).toISOString(),
      }),
    );
    assert.deepEqual(await listIds(token), [notYet.id, closedAlready.id]);
  });

  test('sets payments_enabled from the organization', async () => {
    const paying = await makePartner(h, { paymentsEnabled: true });
    const notYet = await makePartner(h, { paymentsEnabled: false });
    await makeEvent(h, paying, at(DAY));
    await makeEvent(h, notYet, at(DAY));
    const a = (await list(await getToken(h, paying))).json().data.events as ListItem[];
    const b = (await list(await getToken(h, notYet))).json().data.events as ListItem[];
    assert.equal(a.length, 1);
    assert.equal(b.length, 1);
    assert.equal(a[0]!.payments_enabled, true);
    assert.equal(b[0]!.payments_enabled, false);
  });

  // The list is served from a page built earlier while it is exactly current (event-page-cache.ts);
  // each of these would fail if a stale page were served.
  describe('a page read twice', () => {
    test('shows an event changed through the admin API on the very next request', async () => {
      const partner = await makePartner(h);
      const token = await getToken(h, partner);
      const event = await makeEvent(h, partner, at(DAY, { name: 'Before' }));
      assert.equal((await list(token)).json().data.events[0].name, 'Before');
      dataOf(await admin(h, { method: 'PATCH', url: `/events/${event.id}`, body: { name: 'After' } }), 200);
      assert.equal((await list(token)).json().data.events[0].name, 'After');
      dataOf(
        await admin(h, { method: 'PATCH', url: `/events/${event.id}`, body: { status: 'closed' } }),
        200,
      );
      assert.deepEqual(await listIds(token), []);
    });

    test('shows an event created through the admin API on the very next request', async () => {
      const partner = await makePartner(h);
      const token = await getToken(h, partner);
      const first = await makeEvent(h, partner, at(2 * DAY));
      assert.deepEqual(await listIds(token), [first.id]);
      const created = dataOf(
        await admin(h, {
          method: 'POST',
          url: `/organizations/${partner.organizationId}/events`,
          body: { ...eventInput(h, at(DAY)), ticket_types: [] },
        }),
        201,
      );
      assert.deepEqual(await listIds(token), [created.event_id, first.id]);
    });

    test('shows a change of payments_enabled on the very next request', async () => {
      const partner = await makePartner(h, { paymentsEnabled: false });
      const token = await getToken(h, partner);
      await makeEvent(h, partner, at(DAY));
      assert.equal((await list(token)).json().data.events[0].payments_enabled, false);
      dataOf(
        await admin(h, {
          method: 'PATCH',
          url: `/organizations/${partner.organizationId}`,
          body: { payments_enabled: true },
        }),
        200,
      );
      assert.equal((await list(token)).json().data.events[0].payments_enabled, true);
    });

    test('turns has_more false when the event after the page ends, with no write in between', async () => {
      const partner = await makePartner(h);
      const token = await getToken(h, partner);
      const base = h.clock.now().getTime();
      const long = await makeEvent(
        h,
        partner,
        at(HOUR, { ends_at: new Date(base + 10 * HOUR).toISOString() }, base),
      );
      await makeEvent(h, partner, at(2 * HOUR, { ends_at: new Date(base + 3 * HOUR).toISOString() }, base));
      const before = (await list(token, { limit: '1' })).json().data;
      assert.deepEqual([before.events[0].event_id, before.has_more], [long.id, true]);
      const offset = h.clock.offsetMs;
      h.clock.advance(3 * HOUR + 1000);
      try {
        const later = await getToken(h, partner);
        const after = (await list(later, { limit: '1' })).json().data;
        assert.deepEqual(
          [after.events[0].event_id, after.has_more, after.next_cursor],
          [long.id, false, null],
        );
      } finally {
        h.clock.offsetMs = offset;
      }
    });

    test('gives each organization its own page', async () => {
      const a = await makePartner(h);
      const b = await makePartner(h);
      const ea = await makeEvent(h, a, at(DAY));
      const eb = await makeEvent(h, b, at(DAY));
      const ta = await getToken(h, a);
      const tb = await getToken(h, b);
      assert.deepEqual(await listIds(ta), [ea.id]);
      assert.deepEqual(await listIds(tb), [eb.id]);
      assert.deepEqual(await listIds(ta), [ea.id]);
    });
  });

  describe('page size (limit)', () => {
    let partner: TestPartner;
    let token: string;
    let ids: string[];

    before(async () => {
      partner = await makePartner(h);
      token = await getToken(h, partner);
      const created = [];
      for (let i = 0; i < 52; i++) created.push(await makeEvent(h, partner, at(DAY + i * HOUR)));
      ids = created.map((e) => e.id);
    });

    test('defaults to 20', async () => {
      const res = await list(token);
      assert.equal(res.statusCode, 200);
      const data = res.json().data;
      assert.deepEqual(
        data.events.map((e: ListItem) => e.event_id),
        ids.slice(0, 20),
      );
      assert.equal(data.has_more, true);
      assert.equal(typeof data.next_cursor, 'string');
    });

    test('takes 1 to 50 as given', async () => {
      for (const n of [1, 2, 37, 50]) {
        assert.deepEqual(await listIds(token, { limit: String(n) }), ids.slice(0, n), `limit=${n}`);
      }
    });

    test('raises 0 and negative values to 1', async () => {
      for (const limit of ['0', '-1', '-50']) {
        assert.deepEqual(await listIds(token, { limit }), ids.slice(0, 1), `limit=${limit}`);
      }
    });

    test('clamps values above 50 to 50', async () => {
      for (const limit of ['51', '500', '1000000']) {
        assert.deepEqual(await listIds(token, { limit }), ids.slice(0, 50), `limit=${limit}`);
      }
    });

    test('refuses a limit that is not a whole number with 400 validation_failed', async () => {
      for (const limit of ['abc', '', '2.5', '1e', '10abc']) {
        const res = await list(token, { limit });
        assert.equal(res.statusCode, 400, `limit=${JSON.stringify(limit)}: ${res.body}`);
        const body = res.json();
        assert.equal(body.error_code, 'validation_failed');
        assert.equal(body.code, 400);
        assert.equal(body.request_id, res.headers['x-request-id']);
        assert.ok(
          (body.errors as Array<{ field: string }>).some((e) => e.field.includes('limit')),
          res.body,
        );
      }
    });
  });

  test('walks every page once, in order, ending with next_cursor null', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const created = [];
    const base = h.clock.now().getTime();
    // Ties in starts_at straddle the page boundaries (3 per page): [t0 t1 t1] [t1 t2 t2] [t3].
    for (const offset of [3 * DAY, 1 * DAY, 1 * DAY, 1 * DAY, 2 * DAY, 2 * DAY, 0.5 * DAY]) {
      created.push(await makeEvent(h, partner, at(offset, {}, base)));
    }
    assert.equal(new Set(created.map((e) => e.startsAt.getTime())).size, 4);
    const expected = created
      .map((e) => ({ id: e.id, starts_at: e.startsAt.toISOString() }))
      .sort(byStartThenId)
      .map((e) => e.id);

    const pages: string[][] = [];
    const hasMore: boolean[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '3', ...(cursor !== null && { cursor }) };
      const res = await list(token, query);
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json().data;
      pages.push(data.events.map((e: ListItem) => e.event_id));
      hasMore.push(data.has_more);
      if (data.has_more) {
        assert.equal(typeof data.next_cursor, 'string');
        assert.ok(data.next_cursor.length > 0);
      } else {
        assert.equal(data.next_cursor, null);
      }
      cursor = data.next_cursor;
    } while (cursor !== null && pages.length < 10);

    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    assert.deepEqual(hasMore, [true, true, false]);
    assert.deepEqual(pages.flat(), expected);
    assert.equal(new Set(pages.flat()).size, 7);
  });

  test('ends with has_more false when the last page is exactly full', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    for (let i = 0; i < 4; i++) await makeEvent(h, partner, at(DAY + i * HOUR));
    const first = (await list(token, { limit: '2' })).json().data;
    assert.equal(first.has_more, true);
    const second = (await list(token, { limit: '2', cursor: first.next_cursor })).json().data;
    assert.equal(second.events.length, 2);
    assert.equal(second.has_more, false);
    assert.equal(second.next_cursor, null);
  });

  test('serves list and detail to a publishable key from an allowed Origin', async () => {
    const partner = await makePartner(h, { allowedDomains: [ORIGIN] });
    const event = await makeEvent(h, partner, at(DAY));
    const headers = { 'x-service-publishable-key': partner.publishableKey, origin: ORIGIN };
    const listed = await h.service.api.inject({ url: '/v1/events', headers });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().data.events.map((e: ListItem) => e.event_id),
      [event.id],
    );
    assert.equal(listed.headers['access-control-allow-origin'], ORIGIN);
    const detail = await h.service.api.inject({ url: `/v1/events/${event.id}`, headers });
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.json().data.event_id, event.id);
    assert.equal(detail.headers['access-control-allow-origin'], ORIGIN);
  });

  test('refuses a publishable key from an Origin that is not allowed', async () => {
    const partner = await makePartner(h, { allowedDomains: [ORIGIN] });
    await makeEvent(h, partner, at(DAY));
    const res = await h.service.api.inject({
      url: '/v1/events',
      headers: { 'x-service-publishable-key': partner.publishableKey, origin: 'https://evil.example.com' },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error_code, 'origin_not_allowed');
  });
});
