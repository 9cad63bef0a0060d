// Gauges read when Prometheus scrapes: the database's connections (counted in this process, no
// query), and the job queue, active holds and webhook backlog, read from the database at most once
// a second however many scrapes come, so that scraping cannot load it. The gauges read from the
// database show the whole database, the same in every process: aggregate them with max, not sum
// (as their `aggregator` tells the primary under WEB_CONCURRENCY).
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import { retryWhileUnreachable, type Clock, type Database, type JobQueueKind } from '../platform/index.ts';
import type { Metrics } from './metrics.ts';

/** Scrapes within this long of a database read are answered from it. */
export const SCRAPE_READ_INTERVAL_MS = 1000;

/**
 * How long a scrape waits for the database read: past it (the one embedded connection held by a
 * long transaction, a database slow to answer) the scrape is answered without those gauges, and
 * the read goes on for the scrapes after it.
 */
const SCRAPE_READ_DEADLINE_MS = 2000;

/**
 * The most rows a scrape-time count looks at, so that its cost is bounded in a backlog (about
 * 50 ms for the job queue's 10 000 on PostgreSQL): past it, the counts are lower bounds.
 */
export const SCRAPE_COUNT_LIMIT = 10_000;

export interface ScrapeSources {
  clock: Clock;
  log: Logger;
  /** every job kind the service runs: each has a series, 0 when none is due */
  jobKinds: string[];
  /** each reads at most `limit` rows (SCRAPE_COUNT_LIMIT) */
  readJobQueue(now: Date, limit: number): Promise<JobQueueKind[]>;
  countActiveHolds(now: Date, limit: number): Promise<number>;
  countUndispatchedEvents(limit: number): Promise<number>;
  /** pending webhook deliveries (at most `limit`) and when the one due longest ago was due */
  readPendingDeliveries(now: Date, limit: number): Promise<{ pending: number; oldestDueAt: Date | null }>;
}

interface Snapshot {
  at: Date;
  queue: JobQueueKind[];
  holds: number;
  undispatched: number;
  deliveries: { pending: number; oldestDueAt: Date | null };
}

/**
 * `read` shared by every call within `maxAgeMs` of the one that started it; a failed read is
 * dropped, so the next call reads again.
 */
export function cachedRead<T>(
  read: () => Promise<T>,
  maxAgeMs: number,
  now: () => number = () => performance.now(),
): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const at = now();
    if (last === null || at - last.at >= maxAgeMs) {
      const value = read();
      const entry = { at, value };
      last = entry;
      value.catch(() => {
        if (last === entry) last = null;
      });
    }
    return last.value;
  };
}

/** The database's connections and transactions, from Database.usage(). */
export function watchDatabase(metrics: Metrics, database: Database): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'db_connections',
    help: 'Database connections configured, by pool: reads and transactions (PostgreSQL), embedded (PGlite)',
    labelNames: ['pool'],
    registers,
    collect() {
      for (const [pool, size] of Object.entries(database.usage().connections)) this.set({ pool }, size);
    },
  });
  new Gauge({
    name: 'db_transactions_in_flight',
    help: 'Transactions begun and not ended, those waiting for a connection included',
    registers,
    collect() {
      this.set(database.usage().transactionsInFlight);
    },
  });
  if (database.kind !== 'postgres') return;
  new Gauge({
    name: 'db_transaction_connections_busy',
    help: 'Transaction connections running a transaction or a write now',
    registers,
    collect() {
      this.set(database.usage().transactionConnections?.busy ?? 0);
    },
  });
  new Gauge({
    name: 'db_transaction_connections_waiting',
    help: 'Transactions and writes waiting for a transaction connection',
    registers,
    collect() {
      this.set(database.usage().transactionConnections?.waiting ?? 0);
    },
  });
}

/** The gauges read from the database at scrape time, through one cached read. */
export function readAtScrape(metrics: Metrics, sources: ScrapeSources): void {
  const registers = [metrics.registry];
  const readErrors = new Counter({
    name: 'metrics_database_read_errors_total',
    help: 'Scrape-time database reads that failed (their gauges are then left out of that scrape)',
    registers,
    // Waits for this scrape's read, so that a failure shows in the scrape it spoiled.
    async collect() {
      await inTime().catch(() => {});
    },
  });
  // Aged with the service's clock too: a test that moves the clock ages this read with it. The
  // system clock's offset from Date.now() is zero, so a wall-clock step in production ages nothing.
  const age = () => performance.now() + (sources.clock.now().getTime() - Date.now());
  const snapshot = cachedRead(
    async (): Promise<Snapshot> => {
      const at = sources.clock.now();
      try {
        // Reads only: one lost connection (a killed backend) is read again rather than a gap.
        const [queue, holds, undispatched, deliveries] = await retryWhileUnreachable(
          () =>
            Promise.all([
              sources.readJobQueue(at, SCRAPE_COUNT_LIMIT),
              sources.countActiveHolds(at, SCRAPE_COUNT_LIMIT),
              sources.countUndispatchedEvents(SCRAPE_COUNT_LIMIT),
              sources.readPendingDeliveries(at, SCRAPE_COUNT_LIMIT),
            ]),
          { tries: 2, delayMs: 100 },
        );
        return { at, queue, holds, undispatched, deliveries };
      } catch (error) {
        readErrors.inc();
        sources.log.warn({ err: error }, 'metrics: reading the queue, holds and webhook backlog failed');
        throw error;
      }
    },
    SCRAPE_READ_INTERVAL_MS,
    age,
  );
  const inTime = () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the database read is late')), SCRAPE_READ_DEADLINE_MS);
    });
    return Promise.race([snapshot(), late]).finally(() => clearTimeout(timer));
  };
  // Each gauge's collect awaits the same read; when it fails the gauge has no series this time.
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (gauge: Gauge, snap: Snapshot) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      aggregator: 'max',
      async collect() {
        this.reset();
        let snap: Snapshot;
        try {
          snap = await inTime();
        } catch {
          // reset() leaves a gauge without labels at 0, which would read as a true value
          if (labelNames.length === 0) this.remove();
          return;
        }
        fill(this, snap);
      },
    });

  gauge('job_queue_depth', 'Jobs due now and not yet done, by kind', ['kind'], (g, snap) => {
    for (const kind of sources.jobKinds) g.set({ kind }, 0);
    for (const row of snap.queue) g.set({ kind: row.kind }, row.due);
  });
  gauge(
    'job_queue_lag_seconds',
    'How long the oldest due job of each kind has waited past its run time',
    ['kind'],
    (g, snap) => {
      for (const kind of sources.jobKinds) g.set({ kind }, 0);
      for (const row of snap.queue) {
        const waited = row.oldestDueAt ? (snap.at.getTime() - row.oldestDueAt.getTime()) / 1000 : 0;
        g.set({ kind: row.kind }, Math.max(0, waited));
      }
    },
  );
  gauge(
    'job_queue_scan_truncated',
    `1 when the job queue holds ${SCRAPE_COUNT_LIMIT} live jobs or more: the job gauges are then lower bounds`,
    [],
    (g, snap) => g.set(snap.queue.reduce((sum, row) => sum + row.live, 0) >= SCRAPE_COUNT_LIMIT ? 1 : 0),
  );
  gauge(
    'webhook_deliveries_pending',
    `Webhook deliveries not yet delivered, failed or cancelled (retries scheduled later included), counted up to ${SCRAPE_COUNT_LIMIT}`,
    [],
    (g, snap) => g.set(snap.deliveries.pending),
  );
  gauge(
    'webhook_delivery_lag_seconds',
    'How long the webhook delivery due longest ago has waited past its time (0 when none is due)',
    [],
    (g, snap) => {
      const due = snap.deliveries.oldestDueAt;
      g.set(due ? Math.max(0, (snap.at.getTime() - due.getTime()) / 1000) : 0);
    },
  );
  gauge(
    'webhook_events_undispatched',
    'Outbox events whose first attempts are not yet recorded',
    [],
    (g, snap) => g.set(snap.undispatched),
  );
  gauge('order_holds_active', 'Pending orders holding tickets: hold not lapsed', [], (g, snap) =>
    g.set(snap.holds),
  );
}
