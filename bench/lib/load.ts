// Load runs with autocannon: a warm-up whose figures are discarded, then measured runs; the
// reported figure of each metric is the median over the measured runs. Targets measured "in the
// same run" are interleaved (A1 B1 A2 B2 ...) so that drift on the machine hits both alike.
import autocannon, { type AutocannonResult } from 'autocannon';
import { BUSY_THRESHOLD, busyShare, processCpuMs } from './machine.ts';
import type { BenchSettings } from './settings.ts';
import { median, round } from './stats.ts';

export interface LoadTarget {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Processes whose CPU time to account per request, by group (e.g. {server: [pid], database:
   * [backend pids]}); read from /proc before and after each measured run.
   */
  processes?: () => Promise<Record<string, number[]>>;
  /** autocannon connections for this target; default settings.connections (BENCH_CONNECTIONS) */
  connections?: number;
  /** headers computed afresh for every request (e.g. a unique Idempotency-Key) */
  perRequestHeaders?: () => Record<string, string>;
}

/** What every run reports, whoever generated the load. */
export interface RunCounts {
  /** requests (or transactions) completed per second */
  rps: number;
  /** milliseconds */
  p50: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

/** What a target that generates its own load (e.g. pgbench) reports for one run. */
export interface ExternalRun extends RunCounts {
  /** CPU ms the load generator used in the run */
  loadGeneratorCpuMs: number;
}

/** A target that runs its own load for `seconds` instead of autocannon (e.g. pgbench). */
export interface ExternalTarget {
  name: string;
  /** what it runs, for the results file */
  url: string;
  processes?: () => Promise<Record<string, number[]>>;
  run(seconds: number): Promise<ExternalRun>;
}

export type Target = LoadTarget | ExternalTarget;

/**
 * One run's figures. Under autocannon, rps is the mean of its per-second samples of completed
 * requests, and latencies are whole milliseconds of 2xx answers.
 */
export interface RunFigures extends RunCounts {
  /** share of all CPUs busy in 1 s just before the run, while the bench's own processes idled */
  backgroundBusy: number | null;
  /** CPU milliseconds per completed request, by process group; `load_generator` is autocannon */
  cpuMsPerRequest: Record<string, number>;
}

export interface LoadFigures {
  name: string;
  url: string;
  runs: RunFigures[];
  /** median of each metric over the runs (non-2xx, errors and timeouts: summed) */
  median: { rps: number; p50: number; p99: number; cpuMsPerRequest: Record<string, number> };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** runs that started while other processes used BUSY_THRESHOLD or more of the CPUs */
  disturbedRuns: number;
}

function figures(
  result: AutocannonResult,
  backgroundBusy: number | null,
  cpuMsPerRequest: Record<string, number>,
): RunFigures {
  return {
    rps: round(result.requests.average, 1),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count])),
    backgroundBusy: backgroundBusy === null ? null : round(backgroundBusy, 3),
    cpuMsPerRequest,
  };
}

async function once(
  target: Target,
  settings: BenchSettings,
  seconds: number,
  backgroundBusy: number | null = null,
): Promise<RunFigures> {
  const groups = (await target.processes?.()) ?? {};
  const before = Object.fromEntries(Object.entries(groups).map(([g, pids]) => [g, processCpuMs(pids)]));
  const cpuPerRequest = (completed: number, loadGeneratorMs: number) => {
    const cpu: Record<string, number> = {};
    for (const [group, pids] of Object.entries(groups)) {
      cpu[group] = round((processCpuMs(pids) - before[group]!) / Math.max(1, completed), 3);
    }
    cpu.load_generator = round(loadGeneratorMs / Math.max(1, completed), 3);
    return cpu;
  };
  if ('run' in target) {
    const r = await target.run(seconds);
    const { loadGeneratorCpuMs, ...rest } = r;
    return {
      ...rest,
      backgroundBusy: backgroundBusy === null ? null : round(backgroundBusy, 3),
      cpuMsPerRequest: cpuPerRequest(r.requests, loadGeneratorCpuMs),
    };
  }
  const selfBefore = process.cpuUsage();
  const fresh = target.perRequestHeaders;
  const result = await autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body !== undefined && { body: target.body }),
    ...(fresh && {
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...fresh() } }) }],
    }),
    connections: target.connections ?? settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
    timeout: 10,
  });
  const self = process.cpuUsage(selfBefore);
  return figures(
    result,
    backgroundBusy,
    cpuPerRequest(result.requests.total, (self.user + self.system) / 1000),
  );
}

function summarize(target: Target, runs: RunFigures[]): LoadFigures {
  return {
    name: target.name,
    url: target.url,
    runs,
    median: {
      rps: round(median(runs.map((r) => r.rps)), 1),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      cpuMsPerRequest: Object.fromEntries(
        Object.keys(runs[0]?.cpuMsPerRequest ?? {}).map((g) => [
          g,
          round(median(runs.map((r) => r.cpuMsPerRequest[g] ?? Number.NaN)), 3),
        ]),
      ),
    },
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    timeouts: runs.reduce((n, r) => n + r.timeouts, 0),
    disturbedRuns: runs.filter((r) => r.backgroundBusy !== null && r.backgroundBusy >= BUSY_THRESHOLD).length,
  };
}

/**
 * Warms each target up (discarded), then measures all targets `settings.runs` times, interleaved.
 * Returns one LoadFigures per target, in the order given.
 */
export async function measureInterleaved(
  targets: Target[],
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<LoadFigures[]> {
  if (settings.warmupSeconds > 0) {
    for (const target of targets) {
      const w = await once(target, settings, settings.warmupSeconds);
      log(`  warm-up  ${target.name.padEnd(28)} ${w.rps.toFixed(0).padStart(8)} req/s (discarded)`);
    }
  }
  const ownPids = async () => {
    const groups = await Promise.all(targets.map(async (t) => Object.values((await t.processes?.()) ?? {})));
    return groups.flat(2);
  };
  const runs: RunFigures[][] = targets.map(() => []);
  for (let i = 0; i < settings.runs; i++) {
    for (const [t, target] of targets.entries()) {
      // let the previous run's backlog drain, then sample the CPUs outside the bench's processes
      await new Promise((r) => setTimeout(r, 500));
      const background = await busyShare(1000, await ownPids());
      const r = await once(target, settings, settings.durationSeconds, background);
      runs[t]!.push(r);
      log(
        `  run ${i + 1}/${settings.runs}  ${target.name.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} req/s` +
          `  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}` +
          `  CPU ms/req ${Object.entries(r.cpuMsPerRequest)
            .map(([g, v]) => `${g} ${v.toFixed(3)}`)
            .join(', ')}` +
          (background === null ? '' : `  (background CPU before run ${(background * 100).toFixed(0)}%)`),
      );
    }
  }
  return targets.map((target, t) => summarize(target, runs[t]!));
}
