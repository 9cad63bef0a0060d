// A fresh database for each bench run: a new `bench_<random>` database on the PostgreSQL server
// named by DATABASE_URL (dropped at the end), or else a new PGlite directory in the temp folder
// (removed at the end). The bench never writes into the database DATABASE_URL names.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

export interface BenchDatabase {
  kind: 'pglite' | 'postgres';
  /** what the service child gets: DATABASE_URL or DATA_DIR */
  serviceEnv: Record<string, string>;
  /** for openDatabase() in the bench process (seeding) */
  open: { url?: string; dataDir?: string };
  /** a printable description, without credentials */
  label: string;
  /** PostgreSQL only: process ids of the server backends connected to the bench database */
  backendPids: (() => Promise<number[]>) | null;
  drop(): Promise<void>;
}

function withoutPassword(url: URL): string {
  const copy = new URL(url.toString());
  if (copy.password) copy.password = '***';
  return copy.toString();
}

export async function createBenchDatabase(baseUrl: string | undefined): Promise<BenchDatabase> {
  if (!baseUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
    return {
      kind: 'pglite',
      serviceEnv: { DATA_DIR: dataDir },
      open: { dataDir },
      label: `PGlite in ${dataDir}`,
      backendPids: null,
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `bench_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch (error) {
    await admin.end({ timeout: 5 });
    throw error;
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    kind: 'postgres',
    serviceEnv: { DATABASE_URL: url.toString() },
    open: { url: url.toString() },
    label: `PostgreSQL ${withoutPassword(url)} (created for this run, dropped at the end)`,
    async backendPids() {
      const rows = await admin<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = ${name}`;
      return rows.map((r) => r.pid);
    },
    async drop() {
      if (dropped) return;
      dropped = true;
      try {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end({ timeout: 5 });
      }
    },
  };
}
