// `ticketing db migrate` and `db status`, the release step, run as an operator runs them: a child
// process against a fresh database (PostgreSQL when TEST_DATABASE_URL is set, else PGlite).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationNames } from '../../src/platform/migrate.ts';
import { CLI, freshTarget, runNode, type Target } from '../helpers/release.ts';

const ALL = migrationNames();
const LAST = ALL.at(-1)!;

async function withTarget(body: (target: Target) => Promise<void>): Promise<void> {
  const target = await freshTarget();
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
    const before = await db(target, 'status');
    assert.equal(before.code, 0, before.stderr);
    assert.match(before.stdout, new RegExp(`pending  ${LAST}`));
    assert.match(before.stdout, new RegExp(`${ALL.length} pending: run "ticketing db migrate"`));
    // Status changes nothing: no PGlite directory is created, no table on PostgreSQL.
    if (target.kind === 'pglite') assert.equal(existsSync(target.env.DATA_DIR!), false);
    else assert.deepEqual(await target.query(`SELECT to_regclass('schema_migrations') AS t`), [{ t: null }]);

    const first = await db(target, 'migrate');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(
      first.stdout.trim().split('\n'),
      ALL.map((name) => `applied  ${name}`),
    );
    const second = await db(target, 'migrate');
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'up to date\n');

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
  await withTarget(async (target) => {
    const setup = await db(target, 'migrate');
    assert.equal(setup.code, 0, setup.stderr);
    // The newest migration creating two indexes or more, and those after it, unrecorded, with its
    // first index dropped: applying it again creates that index and then fails on the next, which
    // exists.
    const indexesOf = (name: string) =>
      [
        ...readFileSync(new URL(`../../drizzle/${name}`, import.meta.url), 'utf8').matchAll(
          /CREATE INDEX "(\w+)"/g,
        ),
      ].map((m) => m[1]!);
    const failing = ALL.findLast((name) => indexesOf(name).length >= 2)!;
    const undone = ALL.slice(ALL.indexOf(failing));
    const [firstIndex] = indexesOf(failing);
    for (const name of undone) await target.query(`DELETE FROM schema_migrations WHERE name = '${name}'`);
    await target.query(`DROP INDEX "${firstIndex}"`);

    const run = await db(target, 'migrate');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`^error: migration ${failing} failed: .*already exists`));
    assert.match(run.stderr, /Nothing was applied/);
    // Rolled back: neither the index it created nor its record remains.
    assert.deepEqual(await target.query(`SELECT to_regclass('${firstIndex}') AS i`), [{ i: null }]);
    assert.deepEqual(await recorded(target), ALL.slice(0, ALL.indexOf(failing)));
    const status = await db(target, 'status');
    assert.match(status.stdout, new RegExp(`pending  ${LAST}\n${undone.length} pending`));
  });
});

test('two db migrate runs at once: both succeed, each migration is applied once', async () => {
  await withTarget(async (target) => {
    const lock = join(target.env.DATA_DIR ?? '', '.migrate.lock');
    if (target.kind === 'pglite') {
      // A lock left behind by a run that died (its pid gone) is taken over, not waited on.
      mkdirSync(target.env.DATA_DIR!, { recursive: true });
      writeFileSync(lock, String(spawnSync(process.execPath, ['-e', '']).pid));
    }
    const runs = await Promise.all([db(target, 'migrate'), db(target, 'migrate')]);
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const outputs = runs.map((r) => r.stdout).sort();
    // One applied them all while the other waited (lock), then found nothing to do.
    assert.deepEqual(
      outputs,
      [ALL.map((name) => `applied  ${name}`).join('\n') + '\n', 'up to date\n'].sort(),
    );
    assert.deepEqual(await recorded(target), ALL);
    if (target.kind === 'pglite') assert.equal(existsSync(lock), false);
  });
});

test('bad usage and an unreachable database fail with a clear message', async () => {
  await withTarget(async (target) => {
    const unknown = await db(target, 'drop');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^error: unknown db command "drop"\nUsage: ticketing db migrate/);
    const extra = await db(target, 'migrate', 'now');
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /db migrate takes no argument, got "now"/);
    const badUrl = await runNode([CLI, 'db', 'status'], { DATABASE_URL: 'mysql://x' });
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /DATABASE_URL/);
    const help = await runNode([CLI, 'help'], {});
    assert.match(help.stdout, /db migrate \[--json\]\n {2}db status \[--json\]/);
  });
  // Port 1 on loopback: nothing listens there.
  const refused = await runNode([CLI, 'db', 'migrate'], {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x',
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: .*ECONNREFUSED/);
});
