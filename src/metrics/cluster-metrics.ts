// One /metrics per instance under WEB_CONCURRENCY. The primary, which runs no service, answers
// METRICS_PORT: at each scrape it asks every worker for its registry over node:cluster's IPC channel
// and adds the answers up with prom-client's AggregatorRegistry.aggregate. Counters and histograms
// are summed; a gauge follows its metric's `aggregator` (the database-read gauges, the same in
// every worker, take the max) unless it describes one process (PER_WORKER_METRICS): each worker's
// value then keeps a `worker` label, so that a blocked worker is not averaged away.
//
// prom-client's own clusterMetrics() is not used: it waits 5 s for every worker and fails the whole
// scrape when one does not answer. Here a worker that has not answered within the bound is left
// out of that scrape; and so that the instance's counters never go down (Prometheus would read a
// reset and count everything again), a worker's counters and histograms stay in the sum as it last
// gave them while it is late, and after it has exited.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, Gauge, Registry, type Aggregator } from 'prom-client';
import { workerIndex } from '../platform/index.ts';
import { registerBuildInfo } from './build-info.ts';
import { listenForScrapes, type ListenForScrapesOptions, type MetricsListener } from './metrics-listener.ts';
import type { Metrics } from './metrics.ts';

/** How long the primary waits for the workers' answers before it answers the scrape without the late. */
export const WORKER_ANSWER_TIMEOUT_MS = 3000;

/**
 * Gauges that describe one worker: its start, its event loop, its database pool and its Redis
 * connection. A sum or an average would hide the one worker in trouble.
 */
const PER_WORKER_METRICS: ReadonlySet<string> = new Set([
  'process_start_time_seconds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'db_connections',
  'db_transactions_in_flight',
  'db_transaction_connections_busy',
  'db_transaction_connections_waiting',
  'redis_up',
]);

const SCRAPE_REQUEST = 'metrics:scrape';
const SCRAPE_ANSWER = 'metrics:answer';

/** A metric as registry.getMetricsAsJSON() gives it, and as it crosses the IPC channel. */
interface MetricJson {
  name: string;
  help: string;
  type: string;
  aggregator: Aggregator;
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[];
}

interface ScrapeRequest {
  type: typeof SCRAPE_REQUEST;
  id: number;
}

interface ScrapeAnswer {
  type: typeof SCRAPE_ANSWER;
  id: number;
  /** the worker's place (WORKER_INDEX), for its `worker` label */
  worker: number | null;
  metrics?: MetricJson[];
  error?: string;
}

function isScrapeRequest(message: unknown): message is ScrapeRequest {
  const m = message as Partial<ScrapeRequest> | null;
  return typeof m === 'object' && m !== null && m.type === SCRAPE_REQUEST && typeof m.id === 'number';
}

function isScrapeAnswer(message: unknown): message is ScrapeAnswer {
  const m = message as Partial<ScrapeAnswer> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.type === SCRAPE_ANSWER &&
    typeof m.id === 'number' &&
    (m.metrics === undefined || Array.isArray(m.metrics))
  );
}

/** In a worker: answers each of the primary's scrapes with the service's registry. */
export function answerPrimaryScrapes(metrics: Metrics, log: Logger): void {
  const worker = workerIndex() ?? null;
  const send = (answer: ScrapeAnswer) => {
    // The channel closes while the worker stops: that scrape goes on without it.
    if (!process.send || !process.connected) return;
    process.send(answer, undefined, undefined, (error: Error | null) => {
      if (error) log.warn({ err: error }, 'metrics: the answer to the primary could not be sent');
    });
  };
  process.on('message', (message: unknown) => {
    if (!isScrapeRequest(message)) return;
    const { id } = message;
    metrics.registry.getMetricsAsJSON().then(
      (json) => send({ type: SCRAPE_ANSWER, id, worker, metrics: json as unknown as MetricJson[] }),
      (error: unknown) => {
        log.error({ err: error }, 'metrics: collecting failed');
        send({ type: SCRAPE_ANSWER, id, worker, error: String(error) });
      },
    );
  });
}

/** Only what adds up over time: a process's counters and histograms, without its gauges. */
function cumulative(metrics: MetricJson[]): MetricJson[] {
  return metrics.filter((metric) => metric.type === 'counter' || metric.type === 'histogram');
}

/** A fresh answer, its per-process gauges labelled with the worker's place. */
function labelled(answer: ScrapeAnswer & { metrics: MetricJson[] }): MetricJson[] {
  const worker = answer.worker === null ? 'unknown' : String(answer.worker);
  return answer.metrics.map((metric): MetricJson =>
    PER_WORKER_METRICS.has(metric.name)
      ? {
          ...metric,
          // one series per worker: nothing to add up (process_start_time_seconds would be omitted)
          aggregator: 'max',
          values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, worker } })),
        }
      : metric,
  );
}

async function asJson(registry: Pick<Registry, 'getMetricsAsJSON'>): Promise<MetricJson[]> {
  return (await registry.getMetricsAsJSON()) as unknown as MetricJson[];
}

interface WorkersMetricsOptions {
  log: Logger;
  /** WORKER_ANSWER_TIMEOUT_MS unless given (tests) */
  answerTimeoutMs?: number;
}

/**
 * In the primary: a registry-like source whose metrics() asks every worker and sums the answers.
 * Scrapes that come while one is being answered get its answer.
 */
function collectWorkersMetrics({ log, answerTimeoutMs = WORKER_ANSWER_TIMEOUT_MS }: WorkersMetricsOptions) {
  const own = new Registry();
  registerBuildInfo(own);
  const unanswered = new Gauge({
    name: 'metrics_workers_unanswered',
    help: 'Workers that did not answer this scrape in time: their gauges are left out, their counters and histograms are those they last gave',
    registers: [own],
  });
  /** each worker's latest answer, by cluster worker id (a worker started again has a new one) */
  const latest = new Map<number, ScrapeAnswer & { metrics: MetricJson[] }>();
  /** the counters and histograms of the workers that have exited, as they last gave them */
  let retired: MetricJson[][] = [];
  /** the scrapes waiting for answers, by request id */
  const waiting = new Map<number, (workerId: number, answered: boolean) => void>();
  let requests = 0;

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isScrapeAnswer(message)) return;
    const { metrics } = message;
    const known = latest.get(worker.id);
    // Answers may overtake each other (a scrape-time read); the newest request's counters are the highest.
    if (metrics && (!known || known.id < message.id)) latest.set(worker.id, { ...message, metrics });
    if (message.error !== undefined) {
      log.warn(
        { worker: message.worker, reason: message.error },
        'metrics: a worker could not collect its metrics',
      );
    }
    waiting.get(message.id)?.(worker.id, metrics !== undefined);
  });
  cluster.on('exit', (worker: Worker) => {
    const known = latest.get(worker.id);
    latest.delete(worker.id);
    if (known) retired.push(cumulative(known.metrics));
    for (const settle of waiting.values()) settle(worker.id, false);
  });

  /** Asks each worker; resolves with the ids of those that answered in time. */
  const ask = (id: number, workers: Worker[]) =>
    new Promise<Set<number>>((resolve) => {
      const answered = new Set<number>();
      const left = new Set(workers.map((worker) => worker.id));
      const finish = () => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(answered);
      };
      const timer = setTimeout(finish, answerTimeoutMs);
      waiting.set(id, (workerId, ok) => {
        if (!left.delete(workerId)) return;
        if (ok) answered.add(workerId);
        if (left.size === 0) finish();
      });
      const request: ScrapeRequest = { type: SCRAPE_REQUEST, id };
      for (const worker of workers) {
        try {
          worker.send(request, (error) => {
            if (error) waiting.get(id)?.(worker.id, false);
          });
        } catch {
          waiting.get(id)?.(worker.id, false);
        }
      }
      if (left.size === 0) finish();
    });

  const scrape = async (): Promise<string> => {
    const id = ++requests;
    const asked = Object.values(cluster.workers ?? {}).filter(
      (worker): worker is Worker => worker !== undefined && worker.isConnected(),
    );
    const answered = await ask(id, asked);
    unanswered.set(asked.length - answered.size);
    // The exited workers' counters, folded into one part (scrapes run one at a time).
    if (retired.length > 1) {
      const parts = retired;
      retired = [];
      retired.unshift(await asJson(AggregatorRegistry.aggregate(parts)));
    }
    const mine = await asJson(own);
    // From here on without a pause, so that a worker exiting now is counted once: in latest or retired.
    const parts: MetricJson[][] = [...retired, mine];
    for (const [workerId, answer] of latest) {
      parts.push(answered.has(workerId) ? labelled(answer) : cumulative(answer.metrics));
    }
    return AggregatorRegistry.aggregate(parts).metrics();
  };

  let running: Promise<string> | undefined;
  return {
    registry: {
      contentType: own.contentType,
      metrics(): Promise<string> {
        running ??= scrape().finally(() => {
          running = undefined;
        });
        return running;
      },
    },
  };
}

/** In the primary: METRICS_PORT, answered with the workers' metrics summed. */
export function serveWorkersMetrics(
  options: ListenForScrapesOptions & { answerTimeoutMs?: number },
): Promise<MetricsListener> {
  return listenForScrapes(collectWorkersMetrics(options), options);
}
