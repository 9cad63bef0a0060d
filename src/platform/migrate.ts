// The SQL migrations in drizzle/, applied at start on PGlite and PostgreSQL alike.
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

function migrationFiles(): string[] {
  return readdirSync(migrationsDir())
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
}

/**
 * Applies every drizzle/NNNN_*.sql file not yet recorded, in order, all in one transaction (a
 * failed file leaves the database as it was), under an advisory lock so that several processes
 * starting at once migrate exactly once.
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
    const done = new Set(
      (await database.rows<{ name: string }>(sql`SELECT name FROM schema_migrations`, tx)).map((r) => r.name),
    );
    for (const file of migrationFiles()) {
      if (done.has(file)) continue;
      const statements = readFileSync(join(dir, file), 'utf8')
        .split('--> statement-breakpoint')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const statement of statements) await tx.execute(sql.raw(statement));
      await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES (${file})`);
      applied.push(file);
    }
  });
  return applied;
}

/** True when every migration file is recorded as applied (readiness). */
export async function migrationsCurrent(database: Database): Promise<boolean> {
  const rows = await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM schema_migrations`);
  return (rows[0]?.n ?? 0) >= migrationFiles().length;
}
