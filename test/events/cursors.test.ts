import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { insertApiClient } from '../../src/auth/clients.ts';
import { encodeCursor } from '../../src/platform/cursor.ts';
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
let partner: TestPartner;
let token: string;
/** next_cursor of the first page (limit 2) of `partner`'s five events */
let cursor: string;

const DAY = 24 * 3600 * 1000;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

before(async () => {
  // The property tests send hundreds of requests with one token; lift the per-client limit so
  // they test cursors, not the rate limiter.
  h = await startHarness({ env: { RATE_LIMIT_BEARER_RATE: '1000000', RATE_LIMIT_BEARER_BURST: '1000000' } });
  partner = await makePartner(h);
  token = await getToken(h, partner);
  const now = h.clock.now().getTime();
  for (let i = 1; i <= 5; i++) {
    await makeEvent(h, partner, {
      starts_at: new Date(now + i * DAY).toISOString(),
      ends_at: new Date(now + i * DAY + 3600_000).toISOString(),
      ticket_types: [],
    });
  }
  const first = await list(token, { limit: '2' });
  assert.equal(first.statusCode, 200, first.body);
  cursor = first.json().data.next_cursor;
  assert.equal(typeof cursor, 'string');
});
after(() => h.close());

async function list(bearerToken: string, query: Record<string, string>) {
  return h.service.api.inject({
    url: `/v1/events?${new URLSearchParams(query).toString()}`,
    headers: bearer(bearerToken),
  });
}

function assertInvalidCursor(res: Awaited<ReturnType<typeof list>>, what: string) {
  assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body}`);
  const body = res.json();
  assert.equal(body.error_code, 'invalid_cursor', what);
  assert.equal(body.code, 400, what);
  assert.equal(typeof body.message, 'string', what);
  assert.equal(body.request_id, res.headers['x-request-id'], what);
}

describe('GET /v1/events cursors', () => {
  test('a cursor passed back unchanged gives the next page', async () => {
    const res = await list(token, { limit: '2', cursor });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.events.length, 2);
    assert.equal(res.json().data.has_more, true);
  });

  test('refuses a cursor issued to another organization with 400 invalid_cursor', async () => {
    const other = await makePartner(h);
    const now = h.clock.now().getTime();
    for (let i = 1; i <= 3; i++) {
      await makeEvent(h, other, {
        starts_at: new Date(now + i * DAY).toISOString(),
        ends_at: new Date(now + i * DAY + 3600_000).toISOString(),
        ticket_types: [],
      });
    }
    const otherToken = await getToken(h, other);
    // Their own cursor works for them...
    const theirs = await list(otherToken, { limit: '1' });
    const theirCursor = theirs.json().data.next_cursor as string;
    assert.equal((await list(otherToken, { limit: '1', cursor: theirCursor })).statusCode, 200);
    // ...but neither organization may use the other's.
    assertInvalidCursor(await list(otherToken, { limit: '2', cursor }), 'our cursor, their token');
    assertInvalidCursor(await list(token, { limit: '1', cursor: theirCursor }), 'their cursor, our token');
  });

  test('accepts a cursor from another client of the same organization (same list)', async () => {
    // Cursors are bound to the organization, not the client (docs/contract.md#pagination).
    const { client, clientSecret } = await insertApiClient(h.service.ctx.database.db, {
      organizationId: partner.organizationId,
      name: 'Second client',
      scopes: ['events:read'],
      allowedDomains: [],
      returnUrlDomains: [],
    });
    const second = await getToken(h, { ...partner, clientId: client.id, clientSecret });
    const res = await list(second, { limit: '2', cursor });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('refuses malformed cursors with 400 invalid_cursor', async () => {
    const cases = [
      'abc',
      '',
      '%%%',
      'x'.repeat(2000),
      'A'.repeat(2000),
      cursor.repeat(2),
      cursor.slice(0, -1),
      cursor.slice(1),
      `${cursor}A`,
      `${cursor}=`,
      cursor.replace(/-/g, '+').replace(/_/g, '/'), // standard base64 alphabet
      Buffer.from(cursor, 'base64url').toString('base64'),
      ' ',
      'null',
      '{}',
      '0',
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      Buffer.from(JSON.stringify({ o: partner.organizationId, r: 'events', k: { s: 0, i: '' } })).toString(
        'base64url',
      ),
    ].filter((c) => c !== cursor);
    for (const c of cases) {
      assertInvalidCursor(await list(token, { cursor: c }), `cursor=${JSON.stringify(c.slice(0, 60))}`);
    }
  });

  test('refuses a cursor sealed for another resource or another filter set', async () => {
    const key = h.service.ctx.keys.cursor;
    const position = { s: h.clock.now().getTime(), i: 'evt_000000000000000000000000' };
    const organizationId = partner.organizationId;
    // The same position sealed for the events list is accepted: what differs below is the scope.
    const good = encodeCursor(key, { organizationId, resource: 'events', filters: {} }, position);
    assert.equal((await list(token, { cursor: good })).statusCode, 200);
    const orders = encodeCursor(key, { organizationId, resource: 'orders', filters: {} }, position);
    assertInvalidCursor(await list(token, { cursor: orders }), 'orders cursor');
    const filtered = encodeCursor(key, { organizationId, resource: 'events', filters: { x: 1 } }, position);
    assertInvalidCursor(await list(token, { cursor: filtered }), 'other filters');
  });

  test('property: a sealed cursor holding any position the server never writes is 400, not 500', async () => {
    const key = h.service.ctx.keys.cursor;
    const scope = { organizationId: partner.organizationId, resource: 'events', filters: {} };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({
            s: fc.oneof(fc.double(), fc.integer(), fc.constant(1e20), fc.string()),
            i: fc.oneof(fc.string({ unit: 'binary' }), fc.constant('evt_\u0000')),
          }),
        ),
        async (position) => {
          const sealed = encodeCursor(key, scope, position);
          fc.pre(sealed.length <= 1024);
          const res = await list(token, { cursor: sealed });
          assert.ok(res.statusCode < 500, `${JSON.stringify(position)} -> ${res.statusCode} ${res.body}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('refuses a raw, badly percent-encoded cursor without a 500', async () => {
    const res = await h.service.api.inject({ url: '/v1/events?cursor=%%%', headers: bearer(token) });
    assertInvalidCursor(res, 'raw %%%');
  });

  test('property: changing any one character of a valid cursor gives 400 invalid_cursor', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: cursor.length - 1 }),
        fc.constantFrom(...BASE64URL.split(''), '+', '/', '=', '.', '~', ' ', '%', 'é', '\u0000'),
        async (index, replacement) => {
          fc.pre(cursor[index] !== replacement);
          const changed = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
          assertInvalidCursor(await list(token, { cursor: changed }), `index ${index} -> ${replacement}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('property: flipping any bit of the decoded cursor gives 400 invalid_cursor', async () => {
    const raw = Buffer.from(cursor, 'base64url');
    assert.equal(raw.toString('base64url'), cursor);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: raw.length * 8 - 1 }), async (bit) => {
        const flipped = Buffer.from(raw);
        flipped[bit >> 3]! ^= 1 << (bit & 7);
        const changed = flipped.toString('base64url');
        assertInvalidCursor(await list(token, { cursor: changed }), `bit ${bit}`);
      }),
      { numRuns: 200 },
    );
  });

  test('property: a cursor truncated or extended at either end gives 400 invalid_cursor', async () => {
    const raw = Buffer.from(cursor, 'base64url');
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: raw.length - 1 }),
        fc.uint8Array({ minLength: 0, maxLength: 8 }),
        fc.boolean(),
        async (keep, extra, atStart) => {
          const cut = atStart ? raw.subarray(raw.length - keep) : raw.subarray(0, keep);
          const changed = Buffer.concat(atStart ? [extra, cut] : [cut, extra]).toString('base64url');
          fc.pre(changed !== cursor);
          assertInvalidCursor(await list(token, { cursor: changed }), `keep ${keep} extra ${extra.length}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('property: any string as cursor is answered 200 or 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.string({ unit: fc.constantFrom(...BASE64URL.split('')), minLength: 30, maxLength: 400 }),
          fc.string({ unit: fc.constantFrom(...BASE64URL.split('')), minLength: 1000, maxLength: 1100 }),
        ),
        async (candidate) => {
          const res = await list(token, { cursor: candidate });
          assert.ok(res.statusCode < 500, `${JSON.stringify(candidate)} -> ${res.statusCode} ${res.body}`);
          // No random string is a cursor this service sealed.
          assertInvalidCursor(res, JSON.stringify(candidate));
        },
      ),
      { numRuns: 200 },
    );
  });
});
