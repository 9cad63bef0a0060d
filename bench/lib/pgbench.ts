// PostgreSQL's own load generator, for reference runs: the same SQL the service sends, run
// directly by pgbench on the same machine and database, is the ceiling the service is compared
// with. pgbench is looked up on PATH, then in /usr/lib/postgresql/<version>/bin (Debian's
// postgresql-NN package does not put it on PATH); when absent the reference is reported as not run.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { ROOT } from './paths.ts';
import { percentile, round } from './stats.ts';

export function findPgbench(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'pgbench');
    if (existsSync(candidate)) return candidate;
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const candidate = join(root, version, 'bin', 'pgbench');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

export interface PgbenchOptions {
  bin: string;
  /** postgres:// URL of the database (libpq accepts it as the dbname argument) */
  url: string;
  script: string;
  clients: number;
  threads: number;
  seconds: number;
  /** -D name=value */
  variables?: Record<string, string>;
}

export interface PgbenchFigures {
  /** pgbench's "tps = ... (without initial connection time)" */
  tps: number;
  transactions: number;
  failed: number;
  /** per-transaction latency from pgbench's transaction log, milliseconds */
  p50: number;
  p99: number;
  max: number;
  latencyAverageMs: number;
  /** CPU time of the pgbench process itself (user + system), ms */
  cpuMs: number;
  command: string;
}

/** CPU ms used by this process's children that have exited and been reaped (cutime + cstime). */
function reapedChildrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[13]) + Number(rest[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Runs pgbench -n -M prepared once; throws with pgbench's output when it fails. */
export async function runPgbench(options: PgbenchOptions): Promise<PgbenchFigures> {
  const logDir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  const args = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(options.clients),
    '-j',
    String(options.threads),
    '-T',
    String(options.seconds),
    '-f',
    options.script,
    // the per-transaction log gives latency percentiles comparable with autocannon's
    '-l',
    `--log-prefix=${join(logDir, 'tx')}`,
    ...Object.entries(options.variables ?? {}).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
    options.url,
  ];
  const cpuBefore = reapedChildrenCpuMs();
  try {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolveRun, reject) => {
      const child = spawn(options.bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (exitCode) => resolveRun({ code: exitCode, stdout, stderr }));
    });
    const cpuMs = reapedChildrenCpuMs() - cpuBefore;
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
    const failed = /number of failed transactions: (\d+)/.exec(stdout);
    const average = /latency average = ([\d.]+) ms/.exec(stdout);
    if (code !== 0 || !tps || !processed) {
      throw new Error(
        `pgbench failed (exit ${code}):\n${(stderr + stdout).trim().split('\n').slice(-15).join('\n')}`,
      );
    }
    // log lines: client_id transaction_no time_us script_no time_epoch time_us_fraction
    const latenciesMs: number[] = [];
    for (const file of readdirSync(logDir)) {
      for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
        const fields = line.split(' ');
        if (fields.length >= 3) latenciesMs.push(Number(fields[2]) / 1000);
      }
    }
    return {
      tps: round(Number(tps[1]), 1),
      transactions: Number(processed[1]),
      failed: failed ? Number(failed[1]) : 0,
      p50: round(percentile(latenciesMs, 50), 1),
      p99: round(percentile(latenciesMs, 99), 1),
      max: round(
        latenciesMs.reduce((a, b) => Math.max(a, b), 0),
        1,
      ),
      latencyAverageMs: average ? Number(average[1]) : Number.NaN,
      cpuMs,
      command: [
        'pgbench',
        ...args.slice(0, args.indexOf('-f')),
        '-f',
        relative(ROOT, options.script),
        ...Object.keys(options.variables ?? {}).map((k) => `-D ${k}=...`),
        '<bench database>',
      ].join(' '),
    };
  } finally {
    rmSync(logDir, { recursive: true, force: true });
  }
}
