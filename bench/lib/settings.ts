// Bench settings. The defaults are the ones the requirement fixes (autocannon -c 100 -p 1, 10 s
// warm-up, 3 measured runs of 10 s, 2,000 token samples per kind); the BENCH_* variables exist
// only for quick trial runs and are recorded in the results when they differ.

export interface BenchSettings {
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  durationSeconds: number;
  runs: number;
  tokenSamples: number;
  /** PostgreSQL only: count database statements per request (adds about 25 s) */
  countStatements: boolean;
  /** skip `npm run build` (dist must already be current) */
  skipBuild: boolean;
  /** wait up to this many seconds for other processes to leave the CPUs before starting */
  waitQuietSeconds: number;
}

export const DEFAULT_SETTINGS: BenchSettings = {
  connections: 100,
  pipelining: 1,
  warmupSeconds: 10,
  durationSeconds: 10,
  runs: 3,
  tokenSamples: 2000,
  countStatements: true,
  skipBuild: false,
  waitQuietSeconds: 0,
};

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes'].includes(raw.toLowerCase());
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const d = DEFAULT_SETTINGS;
  return {
    connections: int(env, 'BENCH_CONNECTIONS', d.connections, 1, 1000),
    pipelining: int(env, 'BENCH_PIPELINING', d.pipelining, 1, 100),
    warmupSeconds: int(env, 'BENCH_WARMUP', d.warmupSeconds, 0, 120),
    durationSeconds: int(env, 'BENCH_DURATION', d.durationSeconds, 1, 120),
    runs: int(env, 'BENCH_RUNS', d.runs, 1, 9),
    tokenSamples: int(env, 'BENCH_TOKEN_SAMPLES', d.tokenSamples, 10, 20000),
    countStatements: bool(env, 'BENCH_COUNT_STATEMENTS', d.countStatements),
    skipBuild: bool(env, 'BENCH_SKIP_BUILD', d.skipBuild),
    waitQuietSeconds: int(env, 'BENCH_WAIT_QUIET', d.waitQuietSeconds, 0, 3600),
  };
}

/** The settings that differ from the requirement's, for the printed header and the results. */
export function deviations(settings: BenchSettings): string[] {
  const out: string[] = [];
  for (const key of Object.keys(DEFAULT_SETTINGS) as Array<keyof BenchSettings>) {
    if (key === 'countStatements' || key === 'skipBuild' || key === 'waitQuietSeconds') continue;
    if (settings[key] !== DEFAULT_SETTINGS[key])
      out.push(`${key}=${settings[key]} (default ${DEFAULT_SETTINGS[key]})`);
  }
  return out;
}
