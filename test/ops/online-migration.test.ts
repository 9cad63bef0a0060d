// An upgrade while the release before it sells: a database at migration 0010 (the release before
// the start lists) holding 100k orders gets every later migration while four writers create
// orders as that release does (an order and its registration in one transaction). No creation
// waits a second on a lock: each migration takes its locks briefly, in a transaction of its own with
// a lock timeout, and the big tables' indexes are built CONCURRENTLY. The writers' own lock timeout
// of a second is the measure, not the clock, which a busy machine would stretch. PostgreSQL only:
// PGlite serves one connection, so there is no "while" there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/platform/db.ts';
import {
  migrate,
  migrationNames,
  migrationsDir,
  type MigrationProgress,
} from '../../src/platform/migrate.ts';
import { freshPostgresDatabase } from '../helpers/harness.ts';

const PG = process.env.TEST_DATABASE_URL;
const ORDERS = 100_000;
const WRITERS = 4;
const BEFORE = '0010_refunds.sql';

/** The same org, event and ticket type for every order: the 10K everyone runs. */
const SEED = `
  INSERT INTO organizations (id, name, fees) VALUES ('org_m', 'Upgrade Races', '{}');
  INSERT INTO events (id, organization_id, name, handle, short_code, starts_at, ends_at, timezone,
      currency, reg_opens_at, reg_closes_at)
    VALUES ('evt_m', 'org_m', 'Upgrade 10K', 'upgrade-10k', 'UPG10K', now() + interval '30 days',
      now() + interval '30 days 4 hours', 'Africa/Kampala', 'UGX', now() - interval '1 day',
      now() + interval '29 days');
  INSERT INTO ticket_types (id, event_id, organization_id, position, name, price_minor, capacity,
      sales_start, sales_end)
    VALUES ('tt_m', 'evt_m', 'org_m', 0, '10 km', 50000, 1000000, now() - interval '1 day',
      now() + interval '29 days');
  INSERT INTO orders (id, organization_id, event_id, order_code, status, currency, subtotal,
      laces_fee, total, buyer_name, buyer_email, buyer_phone, created_at, updated_at)
    SELECT 'ord_' || n, 'org_m', 'evt_m', 'C' || n, CASE WHEN n % 10 = 0 THEN 'pending' ELSE 'paid' END,
      'UGX', 50000, 1750, 51750, 'Runner ' || n, 'runner' || n || '@example.org', '07720' || lpad(n::text, 5, '0'),
      now() - (n || ' seconds')::interval, now()
    FROM generate_series(1, ${ORDERS}) AS n;
  INSERT INTO registrations (id, order_id, organization_id, ticket_type_id, position, ticket_label,
      distance_km, price_minor, fee_minor, participant_name, status, created_at)
    SELECT 'reg_' || n, 'ord_' || n, 'org_m', 'tt_m', 0, '10 km', 10, 50000, 1750, 'Runner ' || n,
      'confirmed', now() - (n || ' seconds')::interval
    FROM generate_series(1, ${ORDERS}) AS n;
  ANALYZE`;

describe(
  'migrating a database of 100k orders while orders are created',
  { skip: PG ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite serves one connection' },
  () => {
    let target: { url: string; drop: () => Promise<void> };
    let database: Database;
    let olderRelease: string;

    before(async () => {
      target = await freshPostgresDatabase(PG!);
      database = await openDatabase({ url: target.url, connections: { reads: 1, transactions: 1 } });
      // The release before: its migrations only.
      olderRelease = mkdtempSync(join(tmpdir(), 'migrations-'));
      const all = migrationNames();
      for (const name of all.slice(0, all.indexOf(BEFORE) + 1)) {
        copyFileSync(join(migrationsDir(), name), join(olderRelease, name));
      }
      await migrate(database, { dir: olderRelease });
      const seeding = postgres(target.url, { max: 1, onnotice: () => {} });
      await seeding.unsafe(SEED);
      await seeding.end();
    });

    after(async () => {
      await database?.close();
      await target?.drop();
      if (olderRelease) rmSync(olderRelease, { recursive: true, force: true });
    });

    test('no creation waits a second on a lock, and every later migration is applied', async (t) => {
      const writers = postgres(target.url, { max: WRITERS, onnotice: () => {} });
      const waits: number[] = [];
      const refused: string[] = [];
      let stop = false;
      let next = ORDERS;
      const write = async () => {
        while (!stop) {
          const n = ++next;
          const started = performance.now();
          try {
            await writers.begin(async (tx) => {
              await tx`SET LOCAL lock_timeout = '1s'`;
              await tx`INSERT INTO orders (id, organization_id, event_id, order_code, status, currency,
                  subtotal, laces_fee, total, buyer_name, buyer_email, buyer_phone, created_at, updated_at)
                VALUES (${`ord_${n}`}, 'org_m', 'evt_m', ${`C${n}`}, 'pending', 'UGX', 50000, 1750, 51750,
                  ${`Runner ${n}`}, ${`runner${n}@example.org`}, '0772000000', now(), now())`;
              await tx`INSERT INTO registrations (id, order_id, organization_id, ticket_type_id, position,
                  ticket_label, distance_km, price_minor, fee_minor, participant_name, status, created_at)
                VALUES (${`reg_${n}`}, ${`ord_${n}`}, 'org_m', 'tt_m', 0, '10 km', 10, 50000, 1750,
                  ${`Runner ${n}`}, 'pending', now())`;
            });
            waits.push(performance.now() - started);
          } catch (error) {
            // A lock waited on for a second ends the creation (55P03): counted, and the load goes on.
            refused.push((error as Error).message);
          }
        }
      };
      const load = Array.from({ length: WRITERS }, write);
      const progress: MigrationProgress[] = [];
      let applied: string[];
      try {
        // The load runs a moment first, as a release serving traffic would.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const started = performance.now();
        applied = await migrate(database, { onProgress: (p) => progress.push(p) });
        t.diagnostic(`migrations took ${Math.round(performance.now() - started)} ms`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        stop = true;
        await Promise.all(load);
        await writers.end();
      }

      const all = migrationNames();
      assert.deepEqual(applied, all.slice(all.indexOf(BEFORE) + 1));
      assert.deepEqual(
        progress.filter((p) => p.kind === 'applied').map((p) => p.name),
        applied,
      );
      const longest = Math.max(...waits);
      const sorted = waits.toSorted((a, b) => a - b);
      t.diagnostic(
        `${waits.length} creations; p50 ${Math.round(sorted[Math.floor(waits.length / 2)]!)} ms, ` +
          `p99 ${Math.round(sorted[Math.floor(waits.length * 0.99)]!)} ms, longest ${Math.round(longest)} ms`,
      );
      assert.ok(waits.length > 100, `${waits.length} creations during the upgrade`);
      assert.deepEqual(refused, [], 'no creation waited a second on a lock');
      // The indexes built CONCURRENTLY are valid, and every order created meanwhile is there.
      const [check] = await database.rows<{ invalid: number; orders: number }>(
        sql`SELECT (SELECT count(*)::int FROM pg_index WHERE NOT indisvalid) AS invalid,
                   (SELECT count(*)::int FROM orders) AS orders`,
      );
      assert.deepEqual(check, { invalid: 0, orders: ORDERS + waits.length });
    });
  },
);
