// findEventOnSale with the caller's catalog version (src/events/events.ts): the event and its
// organization are read once per version, the ticket types (their counts) on every call, and time
// still ends an event that was read on sale.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { findEventOnSale, updateEvent } from '../../src/events/events.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';

let h: Harness;
let partner: TestPartner;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
});
after(() => h.close());

async function catalogVersion(): Promise<number> {
  const [row] = await h.service.ctx.database.rows<{ v: number }>(
    sql`SELECT catalog_version AS v FROM organizations WHERE id = ${partner.organizationId}`,
  );
  return Number(row!.v);
}

function read(eventId: string, version: number | undefined) {
  const ctx = h.service.ctx;
  return findEventOnSale(ctx.database.db, {
    organizationId: partner.organizationId,
    eventId,
    now: ctx.clock.now(),
    catalogVersion: version,
  });
}

describe('events on sale, by catalog version', () => {
  test('the event is read once per catalog version; ticket types every time', async () => {
    const event = await makeEvent(h, partner, { name: 'Kampala 10K' });
    const db = h.service.ctx.database;
    const v = await catalogVersion();
    assert.equal((await read(event.id, v))!.event.name, 'Kampala 10K');

    // written behind the service's back: no version bump
    await db.rows(sql`UPDATE events SET name = 'Renamed' WHERE id = ${event.id}`);
    await db.rows(sql`UPDATE ticket_types SET paid_count = 3 WHERE event_id = ${event.id}`);
    const again = (await read(event.id, v))!;
    assert.equal(again.event.name, 'Kampala 10K', 'the same version reuses the event as read');
    assert.ok(
      again.ticketTypes.every((t) => t.paidCount === 3),
      'the ticket types are read afresh',
    );
    assert.equal((await read(event.id, undefined))!.event.name, 'Renamed', 'no version: always read');
    assert.equal((await read(event.id, v + 1))!.event.name, 'Renamed', 'a new version reads again');
  });

  test('an event read on sale is not on sale once it has ended', async () => {
    const event = await makeEvent(h, partner, {});
    const v = await catalogVersion();
    assert.ok(await read(event.id, v));
    const ends = event.endsAt.getTime();
    h.clock.offsetMs = ends - Date.now() + 1000;
    try {
      assert.equal(await read(event.id, v), undefined);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('an edit of the event bumps the version, so the next order or session sees it', async () => {
    const event = await makeEvent(h, partner, {});
    const before = await catalogVersion();
    await read(event.id, before);
    const ctx = h.service.ctx;
    await updateEvent(ctx.database.db, event.id, { name: 'Edited by the organizer' }, ctx.clock.now());
    const after = await catalogVersion();
    assert.ok(after > before);
    assert.equal((await read(event.id, after))!.event.name, 'Edited by the organizer');
  });
});
