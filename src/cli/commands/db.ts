// `ticketing db migrate [--dry-run]`, `db status`, `db backup <file>` and `db restore <file>`: the
// release and recovery steps, run against the service's own database (DATABASE_URL, else the
// PGlite directory DATA_DIR) rather than over the admin API, so that they work while no release
// runs. Exit codes as cli.ts's.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, readVariable } from '../../config.ts';
import {
  backupEmbedded,
  backupFormatOf,
  backupPostgres,
  BackupRefused,
  DataDirBusy,
  lockDataDir,
  lockTimedOut,
  migrate,
  MigrationFailed,
  migrationNames,
  migrationStatus,
  openDatabase,
  readMigration,
  restoreEmbedded,
  restorePostgres,
  type Database,
  type MigrationMode,
  type MigrationProgress,
  type MigrationStatus,
} from '../../platform/index.ts';
import { countOrders, type OrderCounts } from '../../orders/index.ts';
import { countPaymentAttempts } from '../../payments/index.ts';
import { UsageError } from '../command.ts';
import { countWebhookBacklog } from '../../webhooks/index.ts';
import { DB_USAGE } from './db-usage.ts';

export interface DbIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

// A release step needs one connection at a time (the migration lock holds one of its own).
const CONNECTIONS = { reads: 1, transactions: 1 };
// A migration may take minutes; a PGlite lock held longer than this is reported as stuck.
const LOCK_WAIT_MS = 600_000;

const ACTIONS = ['migrate', 'status', 'backup', 'restore'] as const;
type DbAction = (typeof ACTIONS)[number];

interface DbArgs {
  action: DbAction;
  json: boolean;
  dryRun: boolean;
  /** backup and restore: the backup file */
  file?: string;
}

function parseDbArgs(args: string[]): DbArgs | null {
  const { values, positionals } = parseArgs({
    args,
    options: {
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return null;
  const [action, ...extra] = positionals;
  if (!ACTIONS.includes(action as DbAction)) throw new UsageError(`unknown db command "${action ?? ''}"`);
  const dryRun = values['dry-run'] === true;
  if (dryRun && action !== 'migrate') throw new UsageError('--dry-run is for db migrate');
  const parsed: DbArgs = { action: action as DbAction, json: values.json === true, dryRun };
  if (action === 'backup' || action === 'restore') {
    if (extra.length !== 1) throw new UsageError(`db ${action} takes one file, got ${extra.length}`);
    return { ...parsed, file: extra[0] };
  }
  if (extra.length > 0) throw new UsageError(`db ${action} takes no argument, got "${extra.join(' ')}"`);
  return parsed;
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

const stepNote = (mode: MigrationMode) => (mode === 'steps' ? ' (step by step)' : '');
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** One line per step of `db migrate`, as it happens: a long migration is never silent. */
function progressLine(progress: MigrationProgress): string {
  switch (progress.kind) {
    case 'start':
      return `applying ${progress.name}${stepNote(progress.mode)}`;
    case 'lock_wait':
      return `waiting  ${progress.name}: a table it changes is busy; trying again (${progress.attempt})`;
    case 'applied':
      return `applied  ${progress.name} in ${seconds(progress.ms)}`;
  }
}

/** `db status`, or `db migrate --dry-run`: what is applied and what would be; changes nothing. */
function report(status: MigrationStatus, args: DbArgs, io: DbIo): void {
  if (args.action === 'status') {
    io.stdout(`${args.json ? JSON.stringify(status, null, 2) : renderStatus(status)}\n`);
    return;
  }
  const plan = status.pending.map((name) => ({ name, mode: readMigration(name).mode }));
  if (args.json) io.stdout(`${JSON.stringify({ pending: plan }, null, 2)}\n`);
  else if (plan.length === 0) io.stdout('up to date\n');
  else for (const m of plan) io.stdout(`would apply  ${m.name}${stepNote(m.mode)}\n`);
}

async function runAction(database: Database, args: DbArgs, io: DbIo): Promise<void> {
  if (args.action === 'status' || args.dryRun) {
    report(await migrationStatus(database), args, io);
    return;
  }
  const applied = await migrate(database, {
    onProgress: args.json ? undefined : (progress) => io.stdout(`${progressLine(progress)}\n`),
  });
  if (args.json) io.stdout(`${JSON.stringify({ applied }, null, 2)}\n`);
  else if (applied.length === 0) io.stdout('up to date\n');
}

interface Target {
  url: string | undefined;
  dataDir: string;
}

/** Runs `db <action>`; resolves to the exit code (0 done, 1 the database refused, 2 usage). */
export async function runDb(args: string[], io: DbIo): Promise<number> {
  let parsed;
  let target: Target;
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
  if ((parsed.action === 'status' || parsed.dryRun) && embedded && !existsSync(target.dataDir)) {
    // Neither changes anything: no embedded database is created just to say that none exists.
    report({ applied: [], pending: migrationNames() }, parsed, io);
    return 0;
  }
  let release: (() => void) | undefined;
  let database: Database | undefined;
  try {
    const refusal = backupRefusal(parsed, target, embedded);
    if (refusal) throw new BackupRefused(refusal);
    if (embedded) {
      mkdirSync(target.dataDir, { recursive: true });
      release = await lockDataDir(target.dataDir, 'cli', LOCK_WAIT_MS);
    }
    const started = performance.now();
    if (parsed.action === 'backup') {
      if (embedded) await backupEmbedded(target.dataDir, parsed.file!);
      else await backupPostgres(target.url!, parsed.file!);
      reportBackup(parsed, performance.now() - started, io);
      return 0;
    }
    if (parsed.action === 'restore') {
      if (embedded) await restoreEmbedded(parsed.file!, target.dataDir);
      else await restorePostgres(parsed.file!, target.url!);
    }
    database = await openDatabase({ url: target.url, dataDir: target.dataDir, connections: CONNECTIONS });
    if (parsed.action === 'restore') await reportRestore(database, parsed, performance.now() - started, io);
    else await runAction(database, parsed, io);
    return 0;
  } catch (error) {
    if (error instanceof MigrationFailed) {
      io.stderr(`error: ${error.message}\n${afterFailure(error)}\n`);
    } else {
      io.stderr(`error: ${reasonOf(error)}\n`);
    }
    return 1;
  } finally {
    await database?.close();
    release?.();
  }
}

/** Why a backup or restore cannot go ahead against `target`, before anything is touched. */
function backupRefusal(args: DbArgs, target: Target, embedded: boolean): string | undefined {
  if (args.action !== 'backup' && args.action !== 'restore') return undefined;
  if (target.url === undefined && !embedded) {
    return 'DATA_DIR is memory://: set DATA_DIR to the directory of the database (or DATABASE_URL)';
  }
  if (args.action === 'backup') {
    if (embedded && !existsSync(join(target.dataDir, 'PG_VERSION')))
      return `no database in ${target.dataDir}`;
    return undefined;
  }
  if (!existsSync(args.file!)) return `${args.file} does not exist`;
  const format = backupFormatOf(args.file!);
  if (format === null) return `${args.file} is not a backup made by db backup (nor pg_dump --format=custom)`;
  if (format === 'pglite' && !embedded) {
    return `${args.file} is a PGlite backup: restore it with DATA_DIR set and no DATABASE_URL`;
  }
  if (format === 'pg_dump' && embedded) {
    return `${args.file} is a PostgreSQL backup (pg_dump): restore it with DATABASE_URL set`;
  }
  return undefined;
}

function reportBackup(args: DbArgs, ms: number, io: DbIo): void {
  const bytes = statSync(args.file!).size;
  if (args.json) io.stdout(`${JSON.stringify({ backup: args.file, bytes, ms: Math.round(ms) }, null, 2)}\n`);
  else io.stdout(`backed up to ${args.file} (${megabytes(bytes)}) in ${seconds(ms)}\n`);
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 0)} MB`;

type Contents = OrderCounts & { payment_attempts: number } & Awaited<ReturnType<typeof countWebhookBacklog>>;

/** What a restored database holds, for the operator to check against what was lost. */
async function contentsOf(database: Database): Promise<Contents> {
  return {
    ...(await countOrders(database)),
    payment_attempts: await countPaymentAttempts(database),
    ...(await countWebhookBacklog(database)),
  };
}

async function reportRestore(database: Database, args: DbArgs, ms: number, io: DbIo): Promise<void> {
  const contents = await contentsOf(database);
  const { pending } = await migrationStatus(database);
  if (args.json) {
    io.stdout(`${JSON.stringify({ restored: args.file, ms: Math.round(ms), contents, pending }, null, 2)}\n`);
    return;
  }
  io.stdout(
    [
      `restored ${args.file} in ${seconds(ms)}`,
      `  orders              ${contents.orders} (${contents.paid_orders} paid), the latest created ${contents.latest_order_at ?? 'never'}`,
      `  payment attempts    ${contents.payment_attempts}`,
      `  webhooks to send    ${contents.webhook_deliveries_pending} deliveries pending, ${contents.outbox_events_queued} events queued`,
      pending.length === 0
        ? '  migrations          up to date'
        : `  migrations          ${pending.length} pending: run "ticketing db migrate" before starting this release`,
    ].join('\n') + '\n',
  );
}

/** What a failed migration left, and what to do next. */
function afterFailure(error: MigrationFailed): string {
  const kept = 'The migrations before it stay applied';
  const again = lockTimedOut(error)
    ? ' A table it changes stayed busy: look for a long transaction (pg_stat_activity), then run db migrate again.'
    : '';
  return readMigration(error.migration).mode === 'steps'
    ? `${kept}, and so do its steps before the one that failed: db migrate goes on from that step.${again}`
    : `${kept}; nothing of this one was applied (it runs in one transaction).${again}`;
}

/**
 * The driver's reason under Drizzle's "Failed query" wrapper; a connection refused at several
 * addresses is an AggregateError without a message, only a code.
 */
function reasonOf(error: unknown): string {
  if (error instanceof BackupRefused || error instanceof DataDirBusy) return error.message;
  const inner = (error as { cause?: unknown }).cause ?? error;
  const { message, code } = inner as { message?: string; code?: string };
  return message || code || String(inner);
}

function isParseError(error: unknown): boolean {
  return Boolean((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'));
}
