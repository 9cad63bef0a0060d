// `ticketing db migrate` and `ticketing db status`: the release step that applies migrations, run
// against the service's own database (DATABASE_URL, else the PGlite directory DATA_DIR) rather
// than over the admin API, so that it runs before the new release starts. Exit codes as cli.ts's.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, readVariable } from '../../config.ts';
import { openDatabase, type Database } from '../../platform/db.ts';
import {
  MigrationFailed,
  migrate,
  migrationNames,
  migrationStatus,
  type MigrationStatus,
} from '../../platform/migrate.ts';
import { UsageError } from '../command.ts';

export const DB_USAGE = ['db migrate [--json]', 'db status [--json]'];

export interface DbIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

// A release step needs one connection at a time.
const CONNECTIONS = { reads: 1, transactions: 1 };
// A migration may take minutes; a PGlite lock held longer than this is reported as stuck.
const LOCK_WAIT_MS = 600_000;

function parseDbArgs(args: string[]): { action: 'migrate' | 'status'; json: boolean } | null {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return null;
  const [action, ...extra] = positionals;
  if (action !== 'migrate' && action !== 'status') {
    throw new UsageError(`unknown db command "${action ?? ''}"`);
  }
  if (extra.length > 0) throw new UsageError(`db ${action} takes no argument, got "${extra.join(' ')}"`);
  return { action, json: values.json === true };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file (0 while its owner is still writing it); null once it is gone. */
function lockOwner(path: string): number | null {
  try {
    return Number(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * PGlite has no lock of its own on its directory and no cross-process advisory locks: runs at once
 * take turns through a lock file holding the owner's pid (left behind by a dead one, taken over).
 */
async function lockDataDir(dataDir: string): Promise<() => void> {
  const path = join(dataDir, '.migrate.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = lockOwner(path);
    if (owner === null) continue; // released between the two calls
    // An empty file is one being written; only a recorded, dead owner's lock is stale.
    if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) rmSync(path, { force: true });
    else if (Date.now() > deadline) throw new Error(`${path} is held by process ${owner}; is it stuck?`);
    else await new Promise((r) => setTimeout(r, 100));
  }
}

function renderStatus(status: MigrationStatus): string {
  const lines = status.applied.map(
    (m) => `applied  ${m.name}  ${m.appliedAt}${m.known ? '' : '  (not in this release)'}`,
  );
  for (const name of status.pending) lines.push(`pending  ${name}`);
  if (lines.length === 0) lines.push('no migrations');
  lines.push(
    status.pending.length === 0
      ? 'up to date'
      : `${status.pending.length} pending: run "ticketing db migrate" (npm run cli -- db migrate)`,
  );
  return lines.join('\n');
}

async function runAction(database: Database, action: 'migrate' | 'status', json: boolean): Promise<string> {
  if (action === 'status') {
    const status = await migrationStatus(database);
    return json ? JSON.stringify(status, null, 2) : renderStatus(status);
  }
  const applied = await migrate(database);
  if (json) return JSON.stringify({ applied }, null, 2);
  return applied.length === 0 ? 'up to date' : applied.map((name) => `applied  ${name}`).join('\n');
}

/** Runs `db <action>`; resolves to the exit code (0 done, 1 the database refused, 2 usage). */
export async function runDb(args: string[], io: DbIo): Promise<number> {
  let parsed;
  let target: { url: string | undefined; dataDir: string };
  try {
    parsed = parseDbArgs(args);
    if (parsed === null) {
      io.stdout(`Usage:\n${DB_USAGE.map((u) => `  ticketing ${u}`).join('\n')}\n`);
      return 0;
    }
    target = { url: readVariable('DATABASE_URL', io.env), dataDir: readVariable('DATA_DIR', io.env) };
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError || isParseError(error))) throw error;
    io.stderr(
      `error: ${(error as Error).message}\nUsage: ${DB_USAGE.map((u) => `ticketing ${u}`).join(' | ')}\n`,
    );
    return 2;
  }
  const embedded = target.url === undefined && !target.dataDir.startsWith('memory://');
  if (parsed.action === 'status' && embedded && !existsSync(target.dataDir)) {
    // Status changes nothing: no embedded database is created just to say that none exists.
    const status = { applied: [], pending: migrationNames() };
    io.stdout(`${parsed.json ? JSON.stringify(status, null, 2) : renderStatus(status)}\n`);
    return 0;
  }
  let release: (() => void) | undefined;
  let database: Database | undefined;
  try {
    if (embedded) {
      mkdirSync(target.dataDir, { recursive: true });
      release = await lockDataDir(target.dataDir);
    }
    database = await openDatabase({ url: target.url, dataDir: target.dataDir, connections: CONNECTIONS });
    io.stdout(`${await runAction(database, parsed.action, parsed.json)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof MigrationFailed) {
      io.stderr(`error: ${error.message}\nNothing was applied: the migrations run in one transaction.\n`);
    } else {
      io.stderr(`error: ${reasonOf(error)}\n`);
    }
    return 1;
  } finally {
    await database?.close();
    release?.();
  }
}

/**
 * The driver's reason under Drizzle's "Failed query" wrapper; a connection refused at several
 * addresses is an AggregateError without a message, only a code.
 */
function reasonOf(error: unknown): string {
  const inner = (error as { cause?: unknown }).cause ?? error;
  const { message, code } = inner as { message?: string; code?: string };
  return message || code || String(inner);
}

function isParseError(error: unknown): boolean {
  return Boolean((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'));
}
