// Migration 0024 on a database refunded before it: an order refunded in full by the release before
// gets its refunded_total from its succeeded refund, an order without one keeps 0, and a payment
// may then be refunded in several parts (the one-live-refund index gave way to one pending).
// PGlite, or PostgreSQL when TEST_DATABASE_URL is set.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/platform/db.ts';
import { migrate, migrationNames, migrationsDir } from '../../src/platform/migrate.ts';
import { freshPostgresDatabase } from '../helpers/harness.ts';

const BEFORE = '0023_event_donations.sql';

const SEED = `
  INSERT INTO organizations (id, name, fees) VALUES ('org_r', 'Refunded Races', '{}');
  INSERT INTO events (id, organization_id, name, handle, short_code, starts_at, ends_at, timezone,
      currency, reg_opens_at, reg_closes_at)
    VALUES ('evt_r', 'org_r', 'Refund 10K', 'refund-10k', 'RFD10K', now() + interval '30 days',
      now() + interval '30 days 4 hours', 'Africa/Kampala', 'UGX', now() - interval '1 day',
      now() + interval '29 days');
  INSERT INTO orders (id, organization_id, event_id, order_code, status, currency, subtotal,
      laces_fee, total, buyer_name, buyer_email, buyer_phone, created_at, updated_at)
    VALUES ('ord_refunded', 'org_r', 'evt_r', 'REFUNDED', 'refunded', 'UGX', 50000, 1750, 51750,
        'Ann', 'ann@example.org', '256772123456', now(), now()),
      ('ord_paid', 'org_r', 'evt_r', 'PAIDONLY', 'paid', 'UGX', 50000, 1750, 51750,
        'Bob', 'bob@example.org', '256772123457', now(), now());
  INSERT INTO payment_attempts (id, reference, order_id, organization_id, method, msisdn, amount,
      currency, status, prompt_expires_at, created_at, finalized_at)
    VALUES ('pay_1', '6fd70995-ecc3-4cfc-a915-1830e41fd16d', 'ord_refunded', 'org_r', 'momo',
        '256770000001', 51750, 'UGX', 'successful', now(), now(), now()),
      ('pay_2', '7fd70995-ecc3-4cfc-a915-1830e41fd16d', 'ord_paid', 'org_r', 'momo',
        '256770000001', 51750, 'UGX', 'successful', now(), now(), now());
  INSERT INTO refunds (id, organization_id, order_id, attempt_id, kind, reference, amount, currency,
      method, status, requested_by_label, created_at, finalized_at)
    VALUES ('rfd_1', 'org_r', 'ord_refunded', 'pay_1', 'order', '1c13df72-10d9-4ece-9aff-43c4684cb411',
      51750, 'UGX', 'momo', 'succeeded', 'operator', now(), now())`;

let database: Database;
let dir: string;
let drop: (() => Promise<void>) | undefined;

before(async () => {
  const base = process.env.TEST_DATABASE_URL;
  const pg = base ? await freshPostgresDatabase(base) : null;
  drop = pg?.drop;
  database = pg
    ? await openDatabase({ url: pg.url, connections: { reads: 1, transactions: 1 } })
    : await openDatabase({ dataDir: 'memory://' });
  dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  const all = migrationNames();
  for (const name of all.slice(0, all.indexOf(BEFORE) + 1))
    copyFileSync(join(migrationsDir(), name), join(dir, name));
  await migrate(database, { dir });
  for (const statement of SEED.split(';')) await database.rows(sql.raw(statement));
});
after(async () => {
  await database?.close();
  await drop?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('0024 gives orders refunded before it their refunded_total, and lets a payment be refunded in parts', async () => {
  const applied = await migrate(database);
  assert.ok(applied.includes('0024_partial_refunds.sql'), applied.join(', '));
  const rows = await database.rows<{ id: string; refunded_total: number }>(
    sql`SELECT id, refunded_total FROM orders ORDER BY id`,
  );
  const totals = Object.fromEntries(rows.map((r) => [r.id, Number(r.refunded_total)]));
  assert.deepEqual(totals, { ord_paid: 0, ord_refunded: 51750 });
  // Two succeeded refunds of one payment now stand side by side; two pending ones do not.
  await database.rows(sql`INSERT INTO refunds (id, organization_id, order_id, attempt_id, kind,
      reference, amount, currency, method, status, requested_by_label, created_at)
    VALUES ('rfd_2', 'org_r', 'ord_paid', 'pay_2', 'order', 'a1c13df7-10d9-4ece-9aff-43c4684cb411', 100,
      'UGX', 'momo', 'succeeded', 'operator', now()),
    ('rfd_3', 'org_r', 'ord_paid', 'pay_2', 'order', 'b1c13df7-10d9-4ece-9aff-43c4684cb411', 100,
      'UGX', 'momo', 'succeeded', 'operator', now()),
    ('rfd_4', 'org_r', 'ord_paid', 'pay_2', 'order', 'c1c13df7-10d9-4ece-9aff-43c4684cb411', 100,
      'UGX', 'momo', 'pending', 'operator', now())`);
  await assert.rejects(
    database.rows(sql`INSERT INTO refunds (id, organization_id, order_id, attempt_id, kind,
        reference, amount, currency, method, status, requested_by_label, created_at)
      VALUES ('rfd_5', 'org_r', 'ord_paid', 'pay_2', 'order', 'd1c13df7-10d9-4ece-9aff-43c4684cb411', 100,
        'UGX', 'momo', 'pending', 'operator', now())`),
    (error: Error) => {
      assert.match(
        String((error.cause as Error | undefined)?.message ?? error.message),
        /refunds_one_pending_per_attempt/,
      );
      return true;
    },
  );
});
