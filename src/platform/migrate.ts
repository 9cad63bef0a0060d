// The SQL migrations in drizzle/: applied by `ticketing db migrate` as a release step (in
// production on PostgreSQL the start only checks them), else at start; see docs/operations.md.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database, Tx } from './db.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** drizzle/ at the repository root, from src/platform or dist/src/platform. */
export function migrationsDir(): string {
  for (const candidate of [resolve(here, '../../drizzle'), resolve(here, '../../../drizzle')]) {
    try {
      readdirSync(candidate);
      return candidate;
    } catch {
      // try the next layout
    }
  }
  throw new Error('drizzle/ migrations folder not found');
}

// Any constant: the advisory lock that serialises migrations across processes.
const MIGRATION_LOCK = 724_100_113;

/** The command that applies migrations, as the messages below tell an operator to run it. */
const MIGRATE_COMMAND = 'npm run cli -- db migrate';

/** The migration files, in the order they apply. */
export function migrationNames(dir = migrationsDir()): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
}

/** A migration file that failed; what it had done in its transaction (or step) was rolled back. */
export class MigrationFailed extends Error {
  readonly migration: string;
  constructor(migration: string, cause: unknown) {
    // Drizzle wraps the driver's error, whose message says what the database refused.
    const reason = (cause as { cause?: Error }).cause?.message ?? (cause as Error).message;
    super(`migration ${migration} failed: ${reason}`, { cause });
    this.migration = migration;
  }
}

/** Start refused in production: these migrations are not applied yet. */
export class MigrationsPending extends Error {
  readonly pending: string[];
  constructor(pending: string[]) {
    const count = pending.length === 1 ? '1 migration is' : `${pending.length} migrations are`;
    super(
      `${count} not applied: ${pending.join(', ')}. In production the service does not migrate at ` +
        `start: run "${MIGRATE_COMMAND}" (or "ticketing db migrate") with this DATABASE_URL, then start again`,
    );
    this.pending = pending;
  }
}

/**
 * How a file applies. `transaction`: all its statements in one transaction. `steps` (a first line
 * `-- migrate: step by step`): each statement alone, its progress recorded, so that an index can
 * be built CONCURRENTLY (outside any transaction) and no lock outlives its own statement.
 */
export type MigrationMode = 'transaction' | 'steps';

export interface MigrationFile {
  name: string;
  mode: MigrationMode;
  statements: string[];
}

const STEPS_DIRECTIVE = /^-- migrate: step by step\s*$/m;
// A statement that cannot run in a transaction block.
const CONCURRENTLY = /\bCONCURRENTLY\b/i;

export function readMigration(name: string, dir = migrationsDir()): MigrationFile {
  const text = readFileSync(join(dir, name), 'utf8');
  const mode: MigrationMode = STEPS_DIRECTIVE.test(text.split('\n', 1)[0]!) ? 'steps' : 'transaction';
  const statements = text
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s.replace(/^--.*$/gm, '').trim() !== '');
  if (mode === 'transaction' && statements.some((s) => CONCURRENTLY.test(s))) {
    throw new MigrationFailed(
      name,
      new Error('CONCURRENTLY needs "-- migrate: step by step" as the first line'),
    );
  }
  return { name, mode, statements };
}

/** What migrate() reports as it goes (the CLI prints each). */
export type MigrationProgress =
  | { kind: 'start'; name: string; mode: MigrationMode }
  | { kind: 'lock_wait'; name: string; attempt: number }
  | { kind: 'applied'; name: string; ms: number };

export interface MigrateOptions {
  dir?: string;
  onProgress?: (progress: MigrationProgress) => void;
  /**
   * How long one statement may wait for a lock. A DDL statement waiting in a table's lock queue
   * holds up every request behind it, so it gives up soon and tries again
   * (docs/decisions/migrations-run-online.md).
   */
  lockTimeoutMs?: number;
  /** tries per transaction or step before the migration fails on a lock */
  lockAttempts?: number;
}

const LOCK_TIMEOUT_MS = 500;
const LOCK_ATTEMPTS = 60;
const LOCK_RETRY_PAUSE_MS = 1000;

/** The database gave up waiting for a lock (lock_timeout). */
export function lockTimedOut(error: unknown): boolean {
  for (let e = error; e !== null && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '55P03') return true;
  }
  return false;
}

/**
 * Applies every drizzle/NNNN_*.sql file not yet recorded, in order: each file in a transaction of
 * its own, or step by step, under the migration lock. A statement waits at most `lockTimeoutMs`
 * for a table's lock, then its transaction is tried again. Returns the names applied.
 */
export async function migrate(database: Database, options: MigrateOptions = {}): Promise<string[]> {
  const dir = options.dir ?? migrationsDir();
  const report = options.onProgress ?? (() => {});
  const attempts = options.lockAttempts ?? LOCK_ATTEMPTS;
  const lockTimeout = sql.raw(`'${Math.max(1, Math.floor(options.lockTimeoutMs ?? LOCK_TIMEOUT_MS))}ms'`);

  /** Runs `body` in a transaction with the lock timeout, again while a lock is not granted. */
  const briefly = async (name: string, body: (tx: Tx) => Promise<void>): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await database.transaction(async (tx) => {
          await tx.execute(sql`SET LOCAL lock_timeout = ${lockTimeout}`);
          await body(tx);
        });
        return;
      } catch (error) {
        if (!lockTimedOut(error) || attempt >= attempts) throw new MigrationFailed(name, error);
        report({ kind: 'lock_wait', name, attempt });
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_PAUSE_MS));
      }
    }
  };

  // Runs at once take turns: the second finds the first's work recorded.
  return database.whileLocked(MIGRATION_LOCK, async () => {
    await database.transaction(async (tx) => {
      await tx.execute(sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      await tx.execute(sql`CREATE TABLE IF NOT EXISTS schema_migration_steps (
        name text NOT NULL,
        step integer NOT NULL,
        PRIMARY KEY (name, step)
      )`);
    });
    // Read under the lock: a run that waited sees what the one before it committed.
    const done = new Set(
      (await database.rows<{ name: string }>(sql`SELECT name FROM schema_migrations`)).map((r) => r.name),
    );
    const applied: string[] = [];
    for (const name of migrationNames(dir)) {
      if (done.has(name)) continue;
      const file = readMigration(name, dir);
      const started = performance.now();
      report({ kind: 'start', name, mode: file.mode });
      if (file.mode === 'transaction') {
        await briefly(name, async (tx) => {
          for (const statement of file.statements) await tx.execute(sql.raw(statement));
          await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES (${name})`);
        });
      } else {
        await applyStepByStep(database, file, briefly);
      }
      applied.push(name);
      report({ kind: 'applied', name, ms: Math.round(performance.now() - started) });
    }
    return applied;
  });
}

/**
 * A `steps` file: each statement in a transaction of its own that records its step, or, for
 * CONCURRENTLY, alone outside any (written to be run again: IF NOT EXISTS, and an index a failed
 * build left invalid is dropped first). A rerun goes on after the last step recorded.
 */
async function applyStepByStep(
  database: Database,
  file: MigrationFile,
  briefly: (name: string, body: (tx: Tx) => Promise<void>) => Promise<void>,
): Promise<void> {
  const { name } = file;
  const done = new Set(
    (
      await database.rows<{ step: number }>(sql`SELECT step FROM schema_migration_steps WHERE name = ${name}`)
    ).map((r) => Number(r.step)),
  );
  const record = (step: number) =>
    sql`INSERT INTO schema_migration_steps (name, step) VALUES (${name}, ${step})`;
  for (const [step, statement] of file.statements.entries()) {
    if (done.has(step)) continue;
    if (!CONCURRENTLY.test(statement)) {
      await briefly(name, async (tx) => {
        await tx.execute(sql.raw(statement));
        await tx.execute(record(step));
      });
      continue;
    }
    try {
      await dropInvalidIndex(database, statement);
      await database.rows(sql.raw(statement));
      await database.rows(record(step));
    } catch (error) {
      throw new MigrationFailed(name, error);
    }
  }
  await briefly(name, async (tx) => {
    await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES (${name})`);
    await tx.execute(sql`DELETE FROM schema_migration_steps WHERE name = ${name}`);
  });
}

const INDEX_BUILD = /CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+"([^"]+)"/i;

/** A CONCURRENTLY build that failed leaves its index behind, invalid: IF NOT EXISTS would keep it. */
async function dropInvalidIndex(database: Database, statement: string): Promise<void> {
  const index = INDEX_BUILD.exec(statement)?.[1];
  if (!index) return;
  const [invalid] = await database.rows(
    sql`SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(${`"${index}"`}) AND NOT indisvalid`,
  );
  if (invalid) await database.rows(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${index}"`));
}

export interface MigrationStatus {
  /** recorded in schema_migrations, oldest name first; `known` is false for a later release's file */
  applied: { name: string; appliedAt: string; known: boolean }[];
  /** files in drizzle/ not recorded yet, in the order they would be applied */
  pending: string[];
}

/** What is applied and what is not; changes nothing (a database never migrated has all pending). */
export async function migrationStatus(database: Database): Promise<MigrationStatus> {
  const files = migrationNames();
  const [table] = await database.rows<{ present: boolean }>(
    sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`,
  );
  const rows = table?.present
    ? await database.rows<{ name: string; applied_at: string }>(
        sql`SELECT name, to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS applied_at
            FROM schema_migrations ORDER BY name`,
      )
    : [];
  const recorded = new Set(rows.map((r) => r.name));
  return {
    applied: rows.map((r) => ({ name: r.name, appliedAt: r.applied_at, known: files.includes(r.name) })),
    pending: files.filter((f) => !recorded.has(f)),
  };
}

/**
 * True when every migration file is recorded as applied (readiness). Files of a later release
 * applied already do not count against it: the release before keeps running through the expand.
 */
export async function migrationsCurrent(database: Database): Promise<boolean> {
  return (await migrationStatus(database)).pending.length === 0;
}

/** Production start: refuses (MigrationsPending) unless every migration is applied. */
export async function requireMigrationsApplied(database: Database): Promise<void> {
  const { pending } = await migrationStatus(database);
  if (pending.length > 0) throw new MigrationsPending(pending);
}
