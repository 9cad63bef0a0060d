// WEB_CONCURRENCY > 1: this process forks that many workers (node:cluster), each running the whole
// service on the same ports; the operating system spreads connections among them. The primary
// only keeps them running: a worker that dies is started again, and SIGTERM or SIGINT stops them
// all the way each stops alone (finishing its requests). With METRICS_PORT the primary also
// answers the scrapes, with its workers' metrics summed (metrics/cluster-metrics.ts, from main.ts).
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/** The environment variable telling a worker its place (0 to count - 1); kept when it is started again. */
const WORKER_INDEX = 'WORKER_INDEX';

/** A worker's place, or undefined in a process that is not a worker. */
export function workerIndex(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const index = Number(process.env[WORKER_INDEX]);
  return Number.isInteger(index) && index >= 0 ? index : undefined;
}

export interface RunWorkersOptions {
  count: number;
  log: Logger;
  /** how long stopping may take before the workers left are killed */
  graceSeconds: number;
  /** environment variables every worker gets on top of this process's */
  env?: Record<string, string>;
}

/** A worker that dies sooner than this after its start is started again later each time. */
const HEALTHY_AFTER_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 500;
const LONGEST_RESTART_DELAY_MS = 30_000;

/** In the primary: forks the workers and keeps them running until a signal; never returns. */
export function runWorkers({ count, log, graceSeconds, env = {} }: RunWorkersOptions): void {
  const live = new Set<Worker>();
  let stopping = false;
  let failed = false;

  const start = (index: number, delayMs: number) => {
    const startedAt = Date.now();
    const worker = cluster.fork({ ...env, [WORKER_INDEX]: String(index) });
    live.add(worker);
    worker.on('exit', (code, signal) => {
      live.delete(worker);
      if (stopping) {
        failed ||= code !== 0;
        if (live.size === 0) process.exit(failed ? 1 : 0);
        return;
      }
      // A worker failing at start (a database down) would otherwise be forked in a tight loop.
      const next =
        Date.now() - startedAt < HEALTHY_AFTER_MS
          ? Math.min(delayMs * 2, LONGEST_RESTART_DELAY_MS)
          : FIRST_RESTART_DELAY_MS;
      log.error(
        { worker: index, pid: worker.process.pid, code, signal, restart_in_ms: next },
        'worker exited; starting it again',
      );
      setTimeout(() => {
        if (!stopping) start(index, next);
      }, next);
    });
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, workers: live.size }, 'stopping the workers');
    if (live.size === 0) process.exit(0);
    for (const worker of live) worker.process.kill('SIGTERM');
    setTimeout(
      () => {
        log.error({ workers: live.size }, 'workers still running after the grace period; killing them');
        for (const worker of live) worker.process.kill('SIGKILL');
        process.exit(1);
      },
      (graceSeconds + 5) * 1000,
    ).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let index = 0; index < count; index++) start(index, FIRST_RESTART_DELAY_MS);
  log.info({ workers: count }, 'started the workers');
}
