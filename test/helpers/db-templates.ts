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
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openDatabase, openEmbedded, type Database } from '../../src/platform/db.ts';
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

/**
 * Everything a test could change beyond the rows of its tables: the schema (tables, columns,
 * defaults, constraints, indexes, functions, triggers) and the rows the template holds.
 */
const FINGERPRINT = sql`
  SELECT md5(string_agg(item, chr(10) ORDER BY item)) AS print FROM (
    SELECT c.oid::regclass || ' ' || c.relkind::text || ' ' || coalesce(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
      || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), '') AS item
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    UNION ALL SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
      WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
    UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT p.oid::regprocedure || ' ' || md5(p.prosrc) FROM pg_proc p
      WHERE p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
    UNION ALL SELECT tgrelid::regclass || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'migration ' || m::text FROM schema_migrations m
  ) AS catalog`;

/** An embedded database as the template left it, and what puts it back there. */
interface Reusable {
  database: Database;
  print: string;
  /** every table the template leaves empty */
  emptied: string;
}

const idle: Reusable[] = [];
/** Those who asked that closed databases be kept (keepDatabasesForReuse) and are not done. */
let keepers = 0;

async function catalogPrint(database: Database): Promise<string> {
  return (await database.rows<{ print: string }>(FINGERPRINT))[0]!.print;
}

/**
 * An embedded database in the migrated template's state. A new PGlite costs a second of CPU to
 * open and more in its first queries (its caches start cold); a test worker runs dozens of files
 * one after another, so while databases are kept (keepDatabasesForReuse) one closed by a file
 * goes back to the template's state (its tables emptied, its session reset) for the next, unless
 * the file changed the schema or the template's rows, which only a new one undoes. Not for a
 * service with metrics or tracing: both wrap the database as it opens.
 */
export async function reusedEmbeddedDatabase(): Promise<Database> {
  let reusable = idle.pop();
  if (!reusable) {
    const database = await openDatabase({ dataDir: 'memory://', load: await migratedTemplate() });
    const tables = await database.rows<{ name: string }>(sql`
      SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> 'schema_migrations'
      ORDER BY 1`);
    reusable = {
      database,
      print: await catalogPrint(database),
      emptied: tables.map((t) => t.name).join(', '),
    };
  }
  const taken = reusable;
  let closed = false;
  return {
    ...taken.database,
    async close() {
      if (closed) return;
      closed = true;
      if (keepers > 0 && idle.length === 0 && (await backToTemplate(taken))) idle.push(taken);
      else await taken.database.close();
    },
  };
}

/** Puts `reusable` back to the template's state; false when only a new database would do. */
async function backToTemplate({ database, print, emptied }: Reusable): Promise<boolean> {
  try {
    // The session first: its settings (the time zone) change how the catalog reads.
    await database.rows(sql.raw('DISCARD ALL'));
    if ((await catalogPrint(database)) !== print) return false;
    await database.rows(sql.raw(`TRUNCATE ${emptied} RESTART IDENTITY CASCADE`));
    return true;
  } catch {
    // Unusable (a test broke it): a new one replaces it.
    return false;
  }
}

/**
 * From now on a closed database is kept for the next harness (a test worker's files, one after
 * another) until the returned function is called (once), which closes what was kept. A kept PGlite
 * holds its process open: a file run alone ends with its last test.
 */
export function keepDatabasesForReuse(): () => Promise<void> {
  keepers++;
  return async () => {
    if (--keepers === 0) await Promise.all(idle.splice(0).map((r) => r.database.close()));
  };
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
