// Migration 0015 on a database an earlier release wrote: the events it had not fanned out yet are
// queued, in the order they were written, and those it had are not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { migrate } from '../../src/platform/migrate.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';

const MIGRATION = '0015_outbox_queue.sql';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('the migration queues the events written before it and not yet fanned out', async () => {
  const database = h.service.ctx.database;
  const { organizationId } = await makePartner(h);
  // As before the migration: no queue, no trigger.
  await database.db.execute(sql`DELETE FROM schema_migrations WHERE name = ${MIGRATION}`);
  await database.db.execute(sql`DROP TABLE outbox_queue`);
  await database.db.execute(sql`DROP FUNCTION queue_outbox_events() CASCADE`);
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
  await database.db.execute(sql`
    INSERT INTO outbox_events (id, organization_id, type, payload, created_at, dispatched_at) VALUES
      ('msg_third', ${organizationId}, 'order.paid', '{}', ${at(3)}, NULL),
      ('msg_done', ${organizationId}, 'order.paid', '{}', ${at(1)}, ${at(2)}),
      ('msg_first', ${organizationId}, 'order.paid', '{}', ${at(1)}, NULL),
      ('msg_second', ${organizationId}, 'order.paid', '{}', ${at(2)}, NULL)`);

  assert.deepEqual(await migrate(database), [MIGRATION]);
  const queued = await database.rows<{ event_id: string }>(
    sql`SELECT event_id FROM outbox_queue ORDER BY seq`,
  );
  assert.deepEqual(
    queued.map((q) => q.event_id),
    ['msg_first', 'msg_second', 'msg_third'],
  );

  // and the trigger is back: a new event is queued behind them
  await database.db.execute(sql`
    INSERT INTO outbox_events (id, organization_id, type, payload, created_at)
    VALUES ('msg_fourth', ${organizationId}, 'order.paid', '{}', ${at(4)})`);
  const queuedNow = await database.rows<{ event_id: string }>(
    sql`SELECT event_id FROM outbox_queue ORDER BY seq`,
  );
  assert.equal(queuedNow.at(-1)?.event_id, 'msg_fourth');
});
