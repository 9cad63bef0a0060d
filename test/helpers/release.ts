// Release-step tests: a fresh database each (a new PostgreSQL database when TEST_DATABASE_URL is
// set, else a PGlite directory), and programs run as an operator runs them, as child processes.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/platform/db.ts';
import { readMigration } from '../../src/platform/migrate.ts';
import { writeMigratedDir } from './db-templates.ts';
import { freshPostgresDatabase } from './harness.ts';
import { CHILD_NODE_FLAGS, operatorEnv } from './process.ts';

export const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface Target {
  kind: 'pglite' | 'postgres';
  /** DATABASE_URL or DATA_DIR, for a child's environment */
  env: Record<string, string>;
  /**
   * Runs statements in order in this process, on one connection (on PGlite one opening of the
   * directory, a second or so each, and only while no child has it open); the last one's rows.
   */
  query<T = Record<string, unknown>>(...statements: string[]): Promise<T[]>;
  drop(): Promise<void>;
}

/**
 * A new database, empty; or `migrated`, with every migration applied as `db migrate` leaves it
 * (from the tests' migrated template: seconds sooner than a child process migrating).
 */
export async function freshTarget({ migrated = false } = {}): Promise<Target> {
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const pg = await freshPostgresDatabase(base, { migrated });
    return {
      kind: 'postgres',
      env: { DATABASE_URL: pg.url },
      query: (...statements) => once({ url: pg.url }, statements),
      drop: pg.drop,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ticketing-release-'));
  const dataDir = join(dir, 'data');
  if (migrated) {
    await writeMigratedDir(dataDir);
  }
  return {
    kind: 'pglite',
    env: { DATA_DIR: dataDir },
    query: (...statements) => once({ dataDir }, statements),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function once<T>(where: { url?: string; dataDir?: string }, statements: string[]): Promise<T[]> {
  const database = await openDatabase({ ...where, connections: { reads: 1, transactions: 1 } });
  try {
    let rows: readonly T[] = [];
    for (const text of statements) rows = await database.rows<T>(sql.raw(text));
    // A plain array: postgres.js answers with its own Result class.
    return [...rows];
  } finally {
    await database.close();
  }
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node <args>` on this Node with only the given environment (plus operatorEnv()). */
export function runNode(args: string[], env: Record<string, string>, timeout = 240_000): Promise<Run> {
  const full = { ...operatorEnv(), ...env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...CHILD_NODE_FLAGS, ...args],
      { env: full, timeout },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** How `db migrate` and `db migrate --dry-run` name a migration run step by step. */
export const stepByStep = (name: string) => (readMigration(name).mode === 'steps' ? ' (step by step)' : '');

/** `db migrate`'s lines for these migrations, each as it starts and as it ends with its time. */
export function progressPattern(names: string[]): RegExp {
  const escape = (text: string) => text.replace(/[.()]/g, '\\$&');
  const lines = names.map(
    (name) => `applying ${escape(name + stepByStep(name))}\\napplied  ${escape(name)} in \\d+\\.\\d+ s\\n`,
  );
  return new RegExp(`^${lines.join('')}$`);
}
