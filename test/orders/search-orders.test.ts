// The organizer's order search (src/orders/search-orders.ts) answers a common word by walking the
// newest orders and a rare one through the search indexes; either way, page after page, it gives
// exactly the matching orders newest first. Pages here are small, so that a walk of 20 orders per
// row asked for ends inside the seeded orders and both ways are taken.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { searchOrders, type OrderKey, type OrderSearch } from '../../src/orders/index.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { makeOrder } from '../app/app-helpers.ts';
import { HARNESS_ENV } from './order-helpers.ts';

let h: Harness;
let mine: TestPartner;
let eventId: string;
let otherEventId: string;
/** every order made, newest first, with its buyer's name */
const made: { code: string; name: string; eventId: string }[] = [];

before(async () => {
  h = await startHarness({ env: HARNESS_ENV });
  mine = await makePartner(h);
  const ticketTypes = [{ name: '5 km', price_minor: 0, capacity: 500, distance_km: 5 }];
  eventId = (await makeEvent(h, mine, { name: 'Search Race', ticket_types: ticketTypes })).id;
  otherEventId = (await makeEvent(h, mine, { name: 'Other Race', ticket_types: ticketTypes })).id;
  // oldest first: three rare names, then 110 common ones, every tenth in the other event
  for (let i = 0; i < 113; i++) {
    const name = i < 3 ? `Rare Kiprop ${i}` : `Plain Runner ${i}`;
    const event = i % 10 === 5 ? otherEventId : eventId;
    const order = await makeOrder(h, mine, {
      eventId: event,
      buyer: { name, email: `buyer${i}@example.org`, phone: `0772${100000 + i}` },
    });
    made.unshift({ code: order.order_code, name, eventId: event });
    h.clock.advance(1000);
  }
});
after(() => h.close());

/** Every order of the search, page by page of `limit`, as codes. */
async function allPages(search: OrderSearch, limit: number): Promise<string[]> {
  const codes: string[] = [];
  let next: OrderKey | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const rows = await searchOrders(h.service.ctx.database.db, mine.organizationId, search, {
      limit,
      ...(next && { after: next }),
    });
    codes.push(...rows.map((r) => r.orderCode));
    if (rows.length < limit) return codes;
    next = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id };
  }
  throw new Error('more pages than orders');
}

describe('the order search', () => {
  test('a common word: page after page, exactly the matching orders newest first', async () => {
    const expected = made.filter((o) => o.name.startsWith('Plain')).map((o) => o.code);
    for (const limit of [1, 2, 7, 50]) {
      assert.deepEqual(await allPages({ q: 'plain' }, limit), expected, `limit ${limit}`);
    }
  });

  test('a rare word beyond the newest orders is found through the indexes', async () => {
    const expected = made.filter((o) => o.name.startsWith('Rare')).map((o) => o.code);
    assert.equal(expected.length, 3);
    // limit 2: the walk reads the newest 40 orders, none of which match
    assert.deepEqual(await allPages({ q: 'KIPROP' }, 2), expected);
    assert.deepEqual(await allPages({ q: 'kiprop' }, 1), expected);
  });

  test("a participant's name, an e-mail and a phone number match; the event filter holds", async () => {
    const inEvent = made.filter((o) => o.eventId === eventId).map((o) => o.code);
    assert.deepEqual(await allPages({ q: 'junior', eventId }, 3), inEvent);
    assert.deepEqual(await allPages({ q: 'buyer112@example', eventId }, 2), [made[0]!.code]);
    assert.deepEqual(await allPages({ q: '+256 772 100 001' }, 2), [made.at(-2)!.code]);
    const common = made.filter((o) => o.eventId === otherEventId && o.name.startsWith('Plain'));
    assert.deepEqual(
      await allPages({ q: 'runner', eventId: otherEventId }, 2),
      common.map((o) => o.code),
    );
  });

  test('with no search, pages by keyset read every order once', async () => {
    assert.deepEqual(
      await allPages({}, 9),
      made.map((o) => o.code),
    );
  });
});
