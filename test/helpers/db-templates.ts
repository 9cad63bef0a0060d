// Migrated databases that each test's service starts from, built once per set of migrations (keyed
// by what could change them). A fresh embedded database spends seconds in initdb and the
// migrations; loading a dump of a migrated one takes under one (kept in node_modules/.cache). On
// PostgreSQL, a database created from a migrated template skips the migrations' second or so.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { openDatabase, openEmbedded } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache/ticketing-tests');
const WEEK = 7 * 24 * 3600 * 1000;

let recipeHash: string | undefined;

/**
 * The migrations, the code that applies them, this file (how the dump is made) and PGlite's
 * version: the template's whole recipe.
 */
function recipe(): string {
  if (recipeHash !== undefined) return recipeHash;
  const hash = createHash('sha256');
  const drizzle = join(ROOT, 'drizzle');
  for (const name of readdirSync(drizzle)
    .filter((n) => n.endsWith('.sql'))
    .sort()) {
    hash.update(name).update(readFileSync(join(drizzle, name)));
  }
  hash.update(readFileSync(join(drizzle, 'meta/_journal.json')));
  hash.update(readFileSync(join(ROOT, 'src/platform/migrate.ts')));
  hash.update(readFileSync(new URL(import.meta.url)));
  hash.update(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  recipeHash = hash.digest('hex').slice(0, 16);
  return recipeHash;
}

// Every test's database is loaded from the dump and started, so the dump carries only what a test
// uses: 1 MB WAL segments (not one of 16 MB), no template0 or template1 (nothing creates a
// database on PGlite), and 16 MB of shared buffers, which each start zeroes (128 MB by default).
// Together they halve the dump and cut opening it by a fifth, and later opens in a process by more.
const SLIM = [
  'ALTER DATABASE template0 IS_TEMPLATE false',
  'DROP DATABASE template0',
  'ALTER DATABASE template1 IS_TEMPLATE false',
  'DROP DATABASE template1',
  "ALTER SYSTEM SET shared_buffers = '16MB'",
  'CHECKPOINT',
];

async function build(): Promise<Buffer<ArrayBuffer>> {
  const dir = mkdtempSync(join(tmpdir(), 'pglite-template-'));
  try {
    // initdb only: openDatabase below finds the directory made and migrates it.
    await (await PGlite.create(dir, { initDbStartParams: ['--wal-segsize=1'] })).close();
    const database = await openDatabase({ dataDir: dir });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    const client = await openEmbedded(dir);
    try {
      for (const statement of SLIM) await client.exec(statement);
      return Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
    } finally {
      await client.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let template: Promise<Blob> | undefined;

/** A PGlite data directory at `dataDir` holding the migrated template, as `db migrate` leaves one. */
export async function writeMigratedDir(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  await (await openEmbedded(dataDir, await migratedTemplate())).close();
}

/** The migrated database's data directory, for CreateServiceOptions.embeddedData. */
export function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = join(CACHE, `pglite-${recipe()}.tar`);
    if (existsSync(file)) {
      // Read whole, not opened lazily: another file's build may replace it while this one loads.
      const data = readFileSync(file);
      const now = new Date();
      utimesSync(file, now, now);
      return new Blob([data]);
    }
    const data = await build();
    // Files side by side may build it at once: each writes its own, the rename is atomic.
    mkdirSync(CACHE, { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, data);
    renameSync(partial, file);
    // Checkouts sharing node_modules may test different migrations at the same time: a template
    // goes only once unused for a week, so that they do not keep rebuilding each other's.
    for (const old of readdirSync(CACHE)) {
      const path = join(CACHE, old);
      if (
        /^pglite-[0-9a-f]{16}\.tar$/.test(old) &&
        path !== file &&
        Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > WEEK
      )
        rmSync(path, { force: true });
    }
    return new Blob([data]);
  })();
  return template;
}

/** Checked once per process and server: the template stays while its migrations do. */
const postgresTemplates = new Map<string, Promise<string>>();

/**
 * The name of a migrated database on the server at `baseUrl` to create test databases from
 * (CREATE DATABASE … TEMPLATE). Files side by side take turns under an advisory lock: the first
 * builds it; templates of other migrations go once unused for a week.
 */
export function migratedPostgresTemplate(baseUrl: string): Promise<string> {
  let template = postgresTemplates.get(baseUrl);
  if (template === undefined) {
    template = ensurePostgresTemplate(baseUrl);
    postgresTemplates.set(baseUrl, template);
  }
  return template;
}

async function ensurePostgresTemplate(baseUrl: string): Promise<string> {
  const name = `t_template_${recipe()}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`SELECT pg_advisory_lock(hashtext('ticketing test template'))`;
    const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (!found) {
      const building = `${name}_building`;
      await admin.unsafe(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE ${building}`);
      const url = new URL(baseUrl);
      url.pathname = `/${building}`;
      const database = await openDatabase({
        url: url.toString(),
        connections: { reads: 1, transactions: 1 },
      });
      try {
        await migrate(database);
      } finally {
        await database.close();
      }
      // Renamed once whole, so that a build cut short is never taken for a template.
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    // As with the PGlite dumps, checkouts sharing the server may test different migrations at
    // once: each template notes when it was last taken, and goes only once unused for a week.
    await admin.unsafe(`COMMENT ON DATABASE ${name} IS '${new Date().toISOString()}'`);
    const others = await admin<{ datname: string; used: string | null }[]>`
      SELECT datname, shobj_description(oid, 'pg_database') AS used FROM pg_database
      WHERE datname LIKE 't\_template\_%' AND datname <> ${name}`;
    for (const { datname, used } of others) {
      const usedAt = Date.parse(used ?? '');
      // One without a note was made before notes were kept: its week starts now.
      if (Number.isNaN(usedAt)) {
        await admin.unsafe(`COMMENT ON DATABASE ${datname} IS '${new Date().toISOString()}'`);
      } else if (Date.now() - usedAt > WEEK) {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
    }
    return name;
  } finally {
    await admin.end();
  }
}
