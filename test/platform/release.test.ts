// Releases: production never migrates at start (it names what is pending and the command to run),
// development does, and the built dist runs on plain Node, migrations first (docs/operations.md).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { migrationNames, migrationsDir } from '../../src/platform/migrate.ts';
import { freePort, MAIN, startMain, TEST_DATABASE_CONNECTIONS } from '../helpers/process.ts';
import { CLI, freshTarget, progressPattern, runNode, type Target } from '../helpers/release.ts';

const ALL = migrationNames();
const LAST = ALL.at(-1)!;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// One level below the root, as dist/ is: the build finds drizzle/ and web/ from there.
const OUT = `${ROOT}.dist-release-test-${randomBytes(4).toString('hex')}`;
after(() => rmSync(OUT, { recursive: true, force: true }));

const PRODUCTION = {
  NODE_ENV: 'production',
  ADMIN_API_KEY: 'adm_release_test_0123456789abcdef',
  PAYMENT_PROVIDER: 'simulator',
  SEED_DEMO: 'false',
};

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

async function recorded(target: Target): Promise<string[]> {
  const rows = await target.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
  return rows.map((r) => r.name);
}

/** Starts the service, checks every host is ready, stops it with SIGTERM. */
async function startReadyStop(env: Record<string, string>, args?: string[]): Promise<string> {
  const child = await startMain(env, 120_000, args);
  try {
    for (const url of Object.values(child.urls)) {
      assert.equal((await fetch(`${url}/readyz`)).status, 200, url);
    }
  } finally {
    child.process.kill('SIGTERM');
  }
  assert.equal(await child.exited, 0);
  return child.output();
}

test('production start with a migration pending: refused on PostgreSQL, applied on PGlite', async () => {
  await withTarget(
    async (target) => {
      assert.deepEqual(await recorded(target), ALL);
      // As if the last migration were new in this release: unrecorded, and the tables, indexes and
      // columns it creates absent (a later migration of another kind must be undone here too).
      const sqlText = readFileSync(`${migrationsDir()}/${LAST}`, 'utf8');
      const made = (pattern: RegExp) => [...sqlText.matchAll(pattern)].map((m) => m.slice(1));
      const tables = made(/CREATE TABLE "(\w+)"/g);
      const indexes = made(/CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY IF NOT EXISTS )?"(\w+)"/g);
      const columns = made(/ALTER TABLE "(\w+)" ADD COLUMN (?:IF NOT EXISTS )?"(\w+)"/g);
      const functions = made(/CREATE (?:OR REPLACE )?FUNCTION "(\w+)"/g);
      assert.ok(tables.length + indexes.length + columns.length > 0, `nothing to undo in ${LAST}`);
      await target.query(
        `DELETE FROM schema_migrations WHERE name = '${LAST}'`,
        ...tables.map(([name]) => `DROP TABLE "${name}" CASCADE`),
        ...indexes.map(([name]) => `DROP INDEX IF EXISTS "${name}"`),
        ...columns.map(([table, column]) => `ALTER TABLE "${table}" DROP COLUMN "${column}"`),
        // CASCADE: with the triggers that call them
        ...functions.map(([name]) => `DROP FUNCTION "${name}" CASCADE`),
      );

      const env = { ...PRODUCTION, ...target.env };
      if (target.kind === 'pglite') {
        // One process owns a PGlite directory: there the start applies migrations even in production.
        await startReadyStop(env);
        assert.deepEqual(await recorded(target), ALL);
        return;
      }
      const ports = [await freePort(), await freePort(), await freePort()];
      const refused = await runNode([MAIN], {
        ...env,
        ...TEST_DATABASE_CONNECTIONS,
        API_URL: `http://127.0.0.1:${ports[0]}`,
        SITE_URL: `http://127.0.0.1:${ports[1]}`,
        APP_URL: `http://127.0.0.1:${ports[2]}`,
      });
      assert.equal(refused.code, 1);
      assert.equal(
        refused.stderr.trim(),
        `error: 1 migration is not applied: ${LAST}. In production the service does not migrate at start: ` +
          'run "npm run cli -- db migrate" (or "ticketing db migrate") with this DATABASE_URL, then start again',
      );
      assert.doesNotMatch(refused.stdout, /listening/);
      assert.deepEqual(await recorded(target), ALL.slice(0, -1));

      // The release step, then the start.
      const migrated = await runNode([CLI, 'db', 'migrate'], target.env);
      assert.match(migrated.stdout, progressPattern([LAST]));
      await startReadyStop(env);
    },
    { migrated: true },
  );
});

test('development start migrates a fresh database', async () => {
  await withTarget(async (target) => {
    await startReadyStop({ NODE_ENV: 'development', SEED_DEMO: 'false', DATABASE_URL: '', ...target.env });
    assert.deepEqual(await recorded(target), ALL);
  });
});

test(
  'release from a prebuilt dist on plain Node: build, db migrate, start',
  { timeout: 600_000 },
  async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    // --noCheck: with erasableSyntaxOnly and verbatimModuleSyntax the emitted files are the same
    // byte for byte, and the type check is `npm run typecheck`'s (a quarter of the time without it).
    const build = await runNode(
      [tsc, '-p', `${ROOT}tsconfig.build.json`, '--noCheck', '--outDir', OUT],
      {},
      540_000,
    );
    assert.equal(build.code, 0, build.stdout + build.stderr);
    // Without type stripping, a .ts file imported at run time fails to load; nor does the tests'
    // resolve hook (a .ts file) load.
    const plain = (entry: string) => ['--no-experimental-strip-types', `${OUT}/src/${entry}`];
    const noHook = { NODE_OPTIONS: '' };
    await withTarget(async (target) => {
      const migrated = await runNode([...plain('cli/main.js'), 'db', 'migrate'], {
        ...target.env,
        ...noHook,
      });
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.match(migrated.stdout, progressPattern(ALL));
      const output = await startReadyStop({ ...PRODUCTION, ...target.env, ...noHook }, plain('main.js'));
      assert.match(output, /"msg":"listening"/);
    });
  },
);
