// `ticketing db migrate` and `db status`, the release step, run as an operator runs them: a child
// process against a fresh database (PostgreSQL when TEST_DATABASE_URL is set, else PGlite).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR_LOCK_FILE } from '../../src/platform/data-dir-lock.ts';
import { migrationNames } from '../../src/platform/migrate.ts';
import { CLI, freshTarget, progressPattern, runNode, stepByStep, type Target } from '../helpers/release.ts';

const ALL = migrationNames();
const LAST = ALL.at(-1)!;

async function withTarget(
  body: (target: Target) => Promise<void>,
  options?: Parameters<typeof freshTarget>[0],
): Promise<void> {
  const target = await freshTarget(options);
  try {
    await body(target);
  } finally {
    await target.drop();
  }
}

const db = (target: Target, ...args: string[]) => runNode([CLI, 'db', ...args], target.env);

async function recorded(target: Target): Promise<string[]> {
  const rows = await target.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
  return rows.map((r) => r.name);
}

test('db migrate applies every migration by name, then says up to date', async () => {
  await withTarget(async (target) => {
    // Neither writes anything, so they run side by side.
    const [before, dryRun] = await Promise.all([db(target, 'status'), db(target, 'migrate', '--dry-run')]);
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, new RegExp(`pending  ${LAST}`));
    assert.match(before.stdout, new RegExp(`${ALL.length} pending: run "ticketing db migrate"`));
    assert.equal(dryRun.code, 0, dryRun.stderr);
    assert.deepEqual(
      dryRun.stdout.trim().split('\n'),
      ALL.map((name) => `would apply  ${name}${stepByStep(name)}`),
    );
    // Status and a dry run change nothing: no PGlite directory is created, no table on PostgreSQL.
    if (target.kind === 'pglite') assert.equal(existsSync(target.env.DATA_DIR!), false);
    else assert.deepEqual(await target.query(`SELECT to_regclass('schema_migrations') AS t`), [{ t: null }]);

    const first = await db(target, 'migrate');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, progressPattern(ALL));
    const second = await db(target, 'migrate');
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'up to date\n');
    assert.equal((await db(target, 'migrate', '--dry-run')).stdout, 'up to date\n');

    const status = await db(target, 'status', '--json');
    assert.equal(status.code, 0, status.stderr);
    const parsed = JSON.parse(status.stdout) as { applied: { name: string; known: boolean }[]; pending: [] };
    assert.deepEqual(
      parsed.applied.map((m) => m.name),
      ALL,
    );
    assert.ok(parsed.applied.every((m) => m.known));
    assert.deepEqual(parsed.pending, []);
    assert.deepEqual(await recorded(target), ALL);
  });
});

test('a failing migration exits 1 naming it, and leaves the database as it was', async () => {
  await withTarget(
    async (target) => {
      assert.deepEqual(await recorded(target), ALL);
      // The newest migration in one transaction creating two indexes or more, and those after it,
      // unrecorded, with its first index dropped: applying it again creates that index and then
      // fails on the next, which exists.
      const indexesOf = (name: string) =>
        [
          ...readFileSync(new URL(`../../drizzle/${name}`, import.meta.url), 'utf8').matchAll(
            /CREATE INDEX "(\w+)"/g,
          ),
        ].map((m) => m[1]!);
      const failing = ALL.findLast((name) => !stepByStep(name) && indexesOf(name).length >= 2)!;
      const undone = ALL.slice(ALL.indexOf(failing));
      const [firstIndex] = indexesOf(failing);
      await target.query(
        ...undone.map((name) => `DELETE FROM schema_migrations WHERE name = '${name}'`),
        `DROP INDEX "${firstIndex}"`,
      );

      const run = await db(target, 'migrate');
      assert.equal(run.code, 1);
      assert.equal(run.stdout, `applying ${failing}\n`);
      assert.match(run.stderr, new RegExp(`^error: migration ${failing} failed: .*already exists`));
      assert.match(run.stderr, /nothing of this one was applied \(it runs in one transaction\)/);
      // Rolled back: neither the index it created nor its record remains.
      assert.deepEqual(await target.query(`SELECT to_regclass('${firstIndex}') AS i`), [{ i: null }]);
      assert.deepEqual(await recorded(target), ALL.slice(0, ALL.indexOf(failing)));
      const status = await db(target, 'status');
      assert.match(status.stdout, new RegExp(`pending  ${LAST}\n${undone.length} pending`));
    },
    { migrated: true },
  );
});

test('a migration step by step that fails keeps its steps before, and the next run goes on from there', async () => {
  await withTarget(
    async (target) => {
      assert.deepEqual(await recorded(target), ALL);
      // 0011 creates bib_ranges, then bibs, among other steps. As if it had not been applied, but
      // with a table bibs in the way: its step creating bibs fails after the one creating bib_ranges.
      const name = '0011_start_lists_and_order_search.sql';
      assert.equal(stepByStep(name), ' (step by step)');
      await target.query(
        `DELETE FROM schema_migrations WHERE name = '${name}'`,
        'DROP TABLE bib_ranges CASCADE',
        'DROP TABLE bibs CASCADE',
        'ALTER TABLE orders DROP COLUMN checkout_mode',
        'CREATE TABLE bibs (in_the_way integer)',
      );

      const failed = await db(target, 'migrate');
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, new RegExp(`^error: migration ${name} failed: .*"bibs" already exists`));
      assert.match(
        failed.stderr,
        /and so do its steps before the one that failed: db migrate goes on from that step/,
      );
      assert.deepEqual(await target.query(`SELECT to_regclass('bib_ranges') IS NOT NULL AS kept`), [
        { kept: true },
      ]);
      assert.deepEqual(
        await recorded(target),
        ALL.filter((n) => n !== name),
      );

      // Out of the way, the next run goes on: creating bib_ranges again would fail.
      await target.query('DROP TABLE bibs');
      const resumed = await db(target, 'migrate');
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stdout, progressPattern([name]));
      assert.deepEqual(await recorded(target), ALL);
      assert.deepEqual(await target.query('SELECT count(*)::int AS steps FROM schema_migration_steps'), [
        { steps: 0 },
      ]);
    },
    { migrated: true },
  );
});

test('two db migrate runs at once: both succeed, each migration is applied once', async () => {
  await withTarget(async (target) => {
    const lock = join(target.env.DATA_DIR ?? '', DATA_DIR_LOCK_FILE);
    if (target.kind === 'pglite') {
      // A lock left behind by a run that died (its pid gone) is taken over, not waited on.
      mkdirSync(target.env.DATA_DIR!, { recursive: true });
      writeFileSync(lock, String(spawnSync(process.execPath, ['-e', '']).pid));
    }
    const runs = await Promise.all([db(target, 'migrate'), db(target, 'migrate')]);
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    // One applied them all while the other waited (lock), then found nothing to do.
    const [idle, busy] = runs.map((r) => r.stdout).sort((a, b) => a.length - b.length);
    assert.equal(idle, 'up to date\n');
    assert.match(busy!, progressPattern(ALL));
    assert.deepEqual(await recorded(target), ALL);
    if (target.kind === 'pglite') assert.equal(existsSync(lock), false);
  });
});

test('bad usage and an unreachable database fail with a clear message', async () => {
  await withTarget(async (target) => {
    // Each run stands alone and opens no database: side by side, not one after another.
    const [unknown, extra, badUrl, help, refused] = await Promise.all([
      db(target, 'drop'),
      db(target, 'migrate', 'now'),
      runNode([CLI, 'db', 'status'], { DATABASE_URL: 'mysql://x' }),
      runNode([CLI, 'help'], {}),
      // Port 1 on loopback: nothing listens there.
      runNode([CLI, 'db', 'migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' }),
    ]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^error: unknown db command "drop"\nUsage: ticketing db migrate/);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /db migrate takes no argument, got "now"/);
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /DATABASE_URL/);
    assert.match(help.stdout, /db migrate \[--dry-run\] \[--json\]\n {2}db status \[--json\]/);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: .*ECONNREFUSED/);
  });
});
