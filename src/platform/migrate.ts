// The SQL migrations in drizzle/: applied by `ticketing db migrate` as a release step (in
// production on PostgreSQL the start only checks them), else at start; see docs/operations.md.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './db.ts';

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

/** A migration file that failed; the transaction around it was rolled back. */
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
 * Applies every drizzle/NNNN_*.sql file not yet recorded, in order, all in one transaction (a
 * failed file leaves the database as it was), under an advisory lock so that several processes
 * migrating at once apply each file exactly once. Returns the names it applied.
 */
export async function migrate(database: Database): Promise<string[]> {
  const dir = migrationsDir();
  const applied: string[] = [];
  await database.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    // Read after the lock: a run that waited sees what the one before it committed.
    const done = new Set(
      (await database.rows<{ name: string }>(sql`SELECT name FROM schema_migrations`, tx)).map((r) => r.name),
    );
    for (const file of migrationNames(dir)) {
      if (done.has(file)) continue;
      const statements = readFileSync(join(dir, file), 'utf8')
        .split('--> statement-breakpoint')
        .map((s) => s.trim())
        .filter(Boolean);
      try {
        for (const statement of statements) await tx.execute(sql.raw(statement));
      } catch (error) {
        throw new MigrationFailed(file, error);
      }
      await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES (${file})`);
      applied.push(file);
    }
  });
  return applied;
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
