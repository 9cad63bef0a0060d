// The test harness's reused embedded database (test/helpers/db-templates.ts): a file that takes
// one after another file closed it must find it as a new one from the template would be.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/platform/db.ts';
import { keepDatabasesForReuse, reusedEmbeddedDatabase } from '../helpers/db-templates.ts';

let closeKept: () => Promise<void>;
before(() => {
  closeKept = keepDatabasesForReuse();
});
after(() => closeKept());

/** A database for this test, closed when it ends if the test did not (a kept one holds the process). */
async function take(t: TestContext): Promise<Database> {
  const database = await reusedEmbeddedDatabase();
  t.after(() => database.close());
  return database;
}

/** Every table's row count, and the session's settings that a test may leave changed. */
async function state(database: Database) {
  const tables = await database.rows<{ name: string }>(sql`
    SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
    WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`);
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    counts[name] = (
      await database.rows<{ n: number }>(sql.raw(`SELECT count(*)::int AS n FROM ${name}`))
    )[0]!.n;
  }
  const [session] = await database.rows<{ zone: string; locks: number }>(sql`
    SELECT current_setting('TimeZone') AS zone,
      (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory') AS locks`);
  return { counts, session };
}

/** Writes rows in several tables, a session setting and an advisory lock, as a test file might. */
async function use(database: Database) {
  await database.rows(sql`INSERT INTO settings (key, value) VALUES ('left_behind', 'x')`);
  await database.rows(sql`INSERT INTO jobs (kind, run_at) VALUES ('left.behind', now())`);
  await database.rows(sql`SET TimeZone = 'Pacific/Chatham'`);
  await database.rows(sql`SELECT pg_advisory_lock(42)`);
}

test('a database a file closed comes back as the template left it, its sequences restarted', async (t) => {
  const first = await take(t);
  const fresh = await state(first);
  await use(first);
  const lastJob = async (database: Database) =>
    (await database.rows<{ id: number }>(sql`SELECT max(id)::int AS id FROM jobs`))[0]!.id;
  const id = await lastJob(first);
  assert.notDeepEqual(await state(first), fresh, 'the use changed what state() sees');
  await first.close();

  const second = await take(t);
  assert.equal(second.db, first.db, 'the same database');
  assert.deepEqual(await state(second), fresh);
  await use(second);
  assert.equal(await lastJob(second), id, 'the same ids again');
  await second.close();
});

test('a file that changed the schema or the migrations leaves a new database to the next', async (t) => {
  const migrations = async (database: Database) =>
    (await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM schema_migrations`))[0]!.n;
  const first = await take(t);
  const applied = await migrations(first);
  await first.close();
  for (const change of [
    sql`ALTER TABLE settings ADD COLUMN note text`,
    sql`CREATE INDEX settings_value ON settings (value)`,
    sql`DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations)`,
  ]) {
    const changed = await take(t);
    await changed.rows(change);
    await changed.close();
    const next = await take(t);
    assert.notEqual(next.db, changed.db, 'a new database');
    const columns = await next.rows(sql`
      SELECT 1 FROM information_schema.columns WHERE table_name = 'settings' AND column_name = 'note'`);
    const indexes = await next.rows(sql`SELECT 1 FROM pg_indexes WHERE indexname = 'settings_value'`);
    assert.deepEqual([columns.length, indexes.length, await migrations(next)], [0, 0, applied]);
    await next.close();
  }
});
