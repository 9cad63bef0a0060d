// The job runner: background work as rows in `jobs`, claimed with FOR UPDATE SKIP LOCKED under a
// lease, retried with exponential backoff and jitter. Safe with many processes on one PostgreSQL:
// a row is worked by one process at a time, and a process that dies mid-job only delays it until
// its lease runs out. Time comes from the service clock so tests can move it.
import { hostname } from 'node:os';
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import { insertRows, type Database, type Executor, type Tx } from './db.ts';
import {
  databaseUnavailable,
  retryWhileUnreachable,
  warnUnlessUnreachable,
  type OutageWatch,
} from './db-errors.ts';
import { randomString } from './ids.ts';
import { jobs } from './jobs.schema.ts';
import { currentTraceContext, markSpanFailed, traceJob } from './tracing.ts';

export type JobRow = typeof jobs.$inferSelect;

interface JobContext {
  job: JobRow;
  tx: Tx;
  now: Date;
}

/**
 * A handler runs inside a transaction together with the job's removal: either its writes and the
 * job's completion commit together, or neither does. It may return a Date to run again later
 * (e.g. a hold that was extended), which keeps the row with a new run_at and no attempt counted,
 * and a new payload (work done in parts carries where it stopped).
 */
export type JobHandler = (ctx: JobContext) => Promise<void | JobRetry>;

/** Run the job again at `retryAt`, with `payload` in place of its payload when given. */
interface JobRetry {
  retryAt: Date;
  payload?: Record<string, unknown>;
}

/**
 * For work that calls out (a payment provider) and manages its own transactions: it runs with no
 * transaction open, and the job row is removed or rescheduled after it returns.
 */
export interface OutsideJobHandler {
  outsideTransaction: true;
  run: (ctx: { job: JobRow; now: Date }) => Promise<void | JobRetry>;
}

export type JobHandlerEntry = JobHandler | OutsideJobHandler;

export interface EnqueueOptions {
  kind: string;
  payload?: Record<string, unknown>;
  runAt: Date;
  /** one live job per key: a second enqueue with the same key moves run_at instead */
  dedupeKey?: string;
  maxAttempts?: number;
  /**
   * the trace the job's run continues (tracing.ts currentTraceContext); the active span's when left
   * out, so that a job continues the trace of the request that queued it
   */
  traceContext?: string | null;
}

/** Adds a job in the caller's transaction, so it exists exactly when the caller's writes do. */
export async function enqueueJob(db: Executor, options: EnqueueOptions): Promise<void> {
  await enqueueJobs(db, [options]);
}

/**
 * enqueueJob for many jobs, in one statement of fixed text whatever their number. A job whose
 * dedupe key names a live job moves that job to its time and payload instead.
 */
export async function enqueueJobs(db: Executor, list: EnqueueOptions[]): Promise<void> {
  if (list.length === 0) return;
  await db.execute(jobsInsert(list));
}

/**
 * The statement enqueueJobs runs (`list` not empty), for a caller that sends it with other writes.
 * Of several jobs with one dedupe key the last is kept: ON CONFLICT cannot touch a row twice in
 * one statement, and the whole statement would fail. A job moved by a later enqueue keeps the
 * trace it was queued in.
 */
export function jobsInsert(list: EnqueueOptions[]): SQL {
  const byKey = new Map(list.map((options, i) => [options.dedupeKey ?? i, options]));
  const active = currentTraceContext();
  const rows = [...byKey.values()].map((options) => ({
    kind: options.kind,
    payload: options.payload ?? {},
    run_at: options.runAt.toISOString(),
    dedupe_key: options.dedupeKey ?? null,
    max_attempts: options.maxAttempts ?? 10,
    trace_context: options.traceContext === undefined ? active : options.traceContext,
  }));
  return insertRows(
    jobs,
    rows,
    sql`ON CONFLICT (dedupe_key) WHERE failed_at IS NULL
      DO UPDATE SET run_at = excluded.run_at, payload = excluded.payload,
        trace_context = coalesce(jobs.trace_context, excluded.trace_context)`,
  );
}

export interface JobQueueKind {
  kind: string;
  /** live jobs (not parked as failed), due or not */
  live: number;
  /** of those, due now: waiting for a worker or being worked */
  due: number;
  /** run_at of the oldest due one; null when none is due */
  oldestDueAt: Date | null;
}

/**
 * The live jobs by kind, for metrics: one statement that walks jobs_due_idx in run_at order and
 * stops after `limit` rows, so its cost is bounded however long the queue grows. The oldest come
 * first: the due counts and oldest run_at are exact while fewer than `limit` jobs are due; past
 * the limit, counts are lower bounds.
 */
export async function readJobQueue(database: Database, now: Date, limit: number): Promise<JobQueueKind[]> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const rows = await database.rows<{ kind: string; live: unknown; due: unknown; oldest_due: unknown }>(sql`
    SELECT kind, count(*) AS live, count(*) FILTER (WHERE run_at <= ${at}) AS due,
      extract(epoch FROM min(run_at) FILTER (WHERE run_at <= ${at})) AS oldest_due
    FROM (SELECT kind, run_at FROM jobs WHERE failed_at IS NULL ORDER BY run_at LIMIT ${limit}) AS live
    GROUP BY kind`);
  // int8 and numeric arrive as strings from postgres.js and as numbers from PGlite.
  return rows.map((row) => ({
    kind: row.kind,
    live: Number(row.live),
    due: Number(row.due),
    oldestDueAt: row.oldest_due === null ? null : new Date(Math.round(Number(row.oldest_due) * 1000)),
  }));
}

/** When a job the database's outage interrupted runs again (its lease would keep it a minute). */
const UNREACHABLE_RETRY_MS = 1000;

/** Delay before attempt n+1 (n >= 1): 2^n seconds capped at an hour, with +-20% jitter. */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(3600_000, 1000 * 2 ** Math.max(1, attempts));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Background work that claims rows of its own rather than jobs (webhook sends, whose table is
 * their queue): the runner works it beside the jobs, in a loop of its own.
 */
export interface WorkQueue {
  readonly name: string;
  /** how often to look for work when idle; the runner's by default */
  readonly pollMs?: number;
  /** works what is due now, claiming nothing more once `stopping()` holds; returns how much */
  runDue(stopping: () => boolean): Promise<number>;
}

export interface JobRunnerOptions {
  database: Database;
  /** the service's watch of its database (AppContext.outage): an outage is logged once, there */
  outage: OutageWatch;
  clock: Clock;
  log: Logger;
  handlers: Record<string, JobHandlerEntry>;
  /** how often to look for due jobs when idle */
  pollMs?: number;
  /** rows claimed per round */
  batchSize?: number;
  /** how long a claim hides a job from other workers */
  leaseMs?: number;
  /**
   * other queues, each in a loop of its own; a loop that worked wakes the others (it may have made
   * work for them)
   */
  queues?: WorkQueue[];
}

/** One loop of work: run, then again at once if it did something, else after the poll interval. */
class Loop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** woken while a round was running: run again right after it */
  private woken = false;

  private readonly name: string;
  private readonly work: () => Promise<number>;
  private readonly pollMs: number;
  private readonly log: Logger;
  /** called after a round that worked something */
  private readonly onWorked: () => void;
  /** hears of a round that failed because the database could not be reached */
  private readonly onUnreachable: (error: unknown) => void;

  constructor(options: {
    name: string;
    work: () => Promise<number>;
    pollMs: number;
    log: Logger;
    onWorked?: () => void;
    onUnreachable?: (error: unknown) => void;
  }) {
    this.name = options.name;
    this.work = options.work;
    this.pollMs = options.pollMs;
    this.log = options.log;
    this.onWorked = options.onWorked ?? (() => {});
    this.onUnreachable = options.onUnreachable ?? (() => {});
  }

  schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.work()
        .catch((error: unknown) => {
          // An outage is logged once, by the outage watch; the round runs again after the poll.
          if (databaseUnavailable(error)) this.onUnreachable(error);
          else this.log.error({ err: error, loop: this.name }, 'background round failed');
          return 0;
        })
        .then((worked) => {
          this.running = null;
          if (worked > 0) this.onWorked();
          if (this.stopped) return;
          this.schedule(worked > 0 || this.woken ? 0 : this.pollMs);
          this.woken = false;
        });
    }, ms);
    this.timer.unref();
  }

  /** Runs now if idle, or once more right after the round in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.woken = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}

export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomString(6)}`;
  private readonly options: Required<JobRunnerOptions>;
  private loops: Loop[] = [];
  /** stop() was called: finish the work in hand and return */
  private stopRequested = false;

  constructor(options: JobRunnerOptions) {
    this.options = { pollMs: 500, batchSize: 20, leaseMs: 60_000, queues: [], ...options };
  }

  start(): void {
    if (this.loops.length > 0) return;
    this.stopRequested = false;
    const { pollMs, log, queues, outage } = this.options;
    const stopping = () => this.stopRequested;
    const add = (name: string, work: () => Promise<number>, ms: number) => {
      const loop: Loop = new Loop({
        name,
        work,
        pollMs: ms,
        log,
        onWorked: () => this.loops.forEach((other) => other !== loop && other.wake()),
        onUnreachable: (error) => outage.failed(error),
      });
      this.loops.push(loop);
    };
    add('jobs', () => this.runJobs(), pollMs);
    for (const queue of queues) add(queue.name, () => queue.runDue(stopping), queue.pollMs ?? pollMs);
    for (const loop of this.loops) loop.schedule(0);
  }

  /** Stops polling and waits for the rounds in progress. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    await Promise.all(this.loops.map((loop) => loop.stop()));
    this.loops = [];
  }

  /**
   * Runs every job due now, then each queue's due work in order, then the jobs that work made;
   * returns how much ran. Tests call this directly.
   */
  async runDue(): Promise<number> {
    const jobsBefore = await this.runJobs();
    let queued = 0;
    for (const queue of this.options.queues) queued += await queue.runDue(() => this.stopRequested);
    return jobsBefore + queued + (queued > 0 ? await this.runJobs() : 0);
  }

  /** Claims and runs due jobs, one at a time in claim order, until none is due. */
  private async runJobs(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) return total;
      for (const job of claimed) await traceJob(job, () => this.work(job));
      total += claimed.length;
      if (this.stopRequested) return total;
    }
  }

  /** Claims due jobs of the kinds this runner handles (a runner never takes work it cannot do). */
  private async claim(): Promise<JobRow[]> {
    const { database, clock, leaseMs, batchSize } = this.options;
    if (Object.keys(this.options.handlers).length === 0) return [];
    const now = clock.now();
    const leaseEnd = new Date(now.getTime() + leaseMs);
    // a write on a connection of its own: on the pipelined reads its commit would hold up requests
    const rows = await database.write<JobRow>(sql`
      UPDATE jobs SET locked_until = ${leaseEnd.toISOString()}::timestamptz, locked_by = ${this.workerId},
        attempts = attempts + 1
      WHERE id IN (
        SELECT id FROM jobs
        WHERE failed_at IS NULL AND run_at <= ${now.toISOString()}::timestamptz
          AND kind IN (${sql.join(
            Object.keys(this.options.handlers).map((k) => sql`${k}`),
            sql`, `,
          )})
          AND (locked_until IS NULL OR locked_until <= ${now.toISOString()}::timestamptz)
        ORDER BY run_at, id
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id, kind, payload, dedupe_key AS "dedupeKey", run_at AS "runAt", attempts,
        max_attempts AS "maxAttempts", locked_until AS "lockedUntil", locked_by AS "lockedBy",
        last_error AS "lastError", failed_at AS "failedAt", created_at AS "createdAt",
        trace_context AS "traceContext"`);
    // int8 arrives as a string from postgres.js and as a number from PGlite.
    return rows.map((row) => ({ ...row, id: Number(row.id) }));
  }

  private async work(job: JobRow): Promise<void> {
    const { database, outage, clock, log, handlers } = this.options;
    const handler = handlers[job.kind];
    const mine = and(eq(jobs.id, job.id), eq(jobs.lockedBy, this.workerId));
    const finish = (db: Executor, result: void | JobRetry) =>
      result && 'retryAt' in result
        ? db
            .update(jobs)
            .set({
              runAt: result.retryAt,
              lockedUntil: null,
              lockedBy: null,
              attempts: sql`${jobs.attempts} - 1`,
              ...(result.payload && { payload: result.payload }),
            })
            .where(mine)
        : db.delete(jobs).where(mine);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      if (typeof handler === 'function') {
        await database.transaction(async (tx) => {
          await finish(tx, await handler({ job, tx, now: clock.now() }));
        });
      } else {
        // like the claim, on a connection of its own rather than the pipelined reads; the handler
        // has done its work by now, so losing the connection must not make it run again
        const result = await handler.run({ job, now: clock.now() });
        const done = finish(database.db, result).getSQL();
        await retryWhileUnreachable(() => database.write(done));
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const now = clock.now();
      markSpanFailed(error);
      // A database out of reach is not the job's failure: it runs again soon, with no attempt
      // counted, and the outage is logged once for all (db-errors.ts).
      const unreachable = databaseUnavailable(error);
      const exhausted = !unreachable && job.attempts >= job.maxAttempts;
      warnUnlessUnreachable(
        outage,
        log,
        error,
        { job_id: job.id, kind: job.kind, attempts: job.attempts },
        'job failed',
      );
      await retryWhileUnreachable(() =>
        database.db
          .update(jobs)
          .set({
            lastError: message.slice(0, 2000),
            lockedUntil: null,
            lockedBy: null,
            runAt: new Date(
              now.getTime() + (unreachable ? UNREACHABLE_RETRY_MS : retryDelayMs(job.attempts)),
            ),
            ...(unreachable && { attempts: sql`${jobs.attempts} - 1` }),
            ...(exhausted && { failedAt: now }),
          })
          .where(mine),
      );
    }
  }
}
