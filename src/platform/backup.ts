// Backups of the service's database and restores into a new one. PGlite: PGlite's own dump of its
// data directory (a gzipped tar), taken while no other process has it open. PostgreSQL: pg_dump's
// custom format, a consistent snapshot taken while the service runs, restored with pg_restore.
// A backup is written beside its file and renamed into place, so a failed one leaves no file.
import { spawn } from 'node:child_process';
import { closeSync, openAsBlob, openSync, readdirSync, readSync, renameSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { DATA_DIR_LOCK_FILE } from './data-dir-lock.ts';
import { openEmbedded } from './db.ts';

export type BackupFormat = 'pglite' | 'pg_dump';

/** A backup that cannot be taken or restored as asked, with what to do instead. */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
}

/** What a file holds, by its first bytes: pg_dump's custom format, PGlite's gzipped tar, or neither. */
export function backupFormatOf(file: string): BackupFormat | null {
  const head = Buffer.alloc(5);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 5, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === 'PGDMP') return 'pg_dump';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'pglite';
  return null;
}

async function writeAtomically(file: string, write: (partial: string) => Promise<void>): Promise<void> {
  const partial = `${file}.partial`;
  try {
    await write(partial);
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
}

/** Dumps the PGlite directory `dataDir` (whose lock the caller holds) to `file`. */
export async function backupEmbedded(dataDir: string, file: string): Promise<void> {
  const client = await openEmbedded(dataDir);
  try {
    const dump = await client.dumpDataDir('gzip');
    await writeAtomically(file, async (partial) => writeFile(partial, Buffer.from(await dump.arrayBuffer())));
  } finally {
    await client.close();
  }
}

/**
 * Restores a PGlite backup into `dataDir`, which holds nothing but its lock (the caller's): the
 * database is filled in a directory beside it and moved in once whole.
 */
export async function restoreEmbedded(file: string, dataDir: string): Promise<void> {
  const present = readdirSync(dataDir).filter((name) => name !== DATA_DIR_LOCK_FILE);
  if (present.length > 0) throw new BackupRefused(`${dataDir} is not empty: restore into a new DATA_DIR`);
  const filling = `${dataDir}.restoring-${process.pid}`;
  rmSync(filling, { recursive: true, force: true });
  try {
    const client = await openEmbedded(filling, await openAsBlob(file));
    await client.close();
    // The dump holds the lock file of the command that took it: the directory keeps the caller's.
    for (const name of readdirSync(filling)) {
      if (name !== DATA_DIR_LOCK_FILE) renameSync(join(filling, name), join(dataDir, name));
    }
  } finally {
    rmSync(filling, { recursive: true, force: true });
  }
}

/**
 * The URL without its password, which goes to the client tools in PGPASSWORD instead: a command
 * line is visible to every user of the machine.
 */
function clientToolTarget(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return {
    dbname: parsed.toString(),
    env: password ? { ...process.env, PGPASSWORD: password } : process.env,
  };
}

function runTool(tool: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new BackupRefused(
              `${tool} not found on PATH: install PostgreSQL's client tools of the server's major version or later (Debian: postgresql-client)`,
            )
          : error,
      ),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${tool} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}

/** pg_dump of the database at `url` into `file`, in the custom format pg_restore reads. */
export async function backupPostgres(url: string, file: string): Promise<void> {
  const { dbname, env } = clientToolTarget(url);
  await writeAtomically(file, (partial) =>
    runTool('pg_dump', ['--format=custom', `--file=${partial}`, `--dbname=${dbname}`], env),
  );
}

/** Restores a pg_dump backup into the database at `url`, which must hold no tables. */
export async function restorePostgres(file: string, url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await client<{ tables: number }[]>`
      SELECT count(*)::int AS tables FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`;
    const tables = row?.tables ?? 0;
    if (tables > 0) {
      throw new BackupRefused(
        `the database holds ${tables} tables: restore into a new, empty database (CREATE DATABASE ...)`,
      );
    }
  } finally {
    await client.end({ timeout: 5 });
  }
  const { dbname, env } = clientToolTarget(url);
  // One transaction: a restore that fails leaves the database empty, ready for another try.
  await runTool(
    'pg_restore',
    ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${dbname}`, file],
    env,
  );
}
