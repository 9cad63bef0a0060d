// Database outages: which failures mean the database cannot be reached (answered 503
// service_unavailable with Retry-After, never 500, and retried where the work is idempotent), and
// one log line when an outage begins and one when it ends, however many requests fail in between.
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from './db.ts';

/** Retry-After of a 503 while the database is unreachable. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The code of a request refused at once while an outage is on (OutageWatch.refusal). */
const OUTAGE_ON = 'DATABASE_OUTAGE_ON';
// postgres.js's codes for a connection closed, ended or never made, and our own.
const DRIVER_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  OUTAGE_ON,
]);
// PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, disk_full
// (class 08, connection exceptions, is matched by its prefix). A full disk refuses every write
// until an operator frees space: the same wait-and-retry as an outage, never a 500.
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53100']);
// A socket that could not connect or was cut, or a file that could not grow; they carry the
// syscall that failed.
const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PGlite's own files, on a full disk
  'ENOSPC',
]);
const WRITE_AFTER_END = 'This socket has been ended by the other party';
// PGlite runs in this process: it is only unreachable once it is being closed.
const PGLITE_CLOSED = new Set(['PGlite is closed', 'PGlite is closing']);

/**
 * True when an error (possibly wrapped by Drizzle, through `cause`) says the database could not be
 * reached or dropped the connection, rather than refusing a statement.
 */
export function databaseUnavailable(error: unknown): boolean {
  let e = error;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    const { code, syscall, message, cause } = e as {
      code?: unknown;
      syscall?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    // A failed HTTP call (a payment provider) carries socket errors too; it is not the database.
    if (message === 'fetch failed') return false;
    if (typeof code === 'string') {
      if (DRIVER_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
      if (typeof syscall === 'string' && NETWORK_ERRNOS.has(code)) return true;
      // Node's write to a socket the database closed carries no syscall.
      if (code === 'EPIPE' && message === WRITE_AFTER_END) return true;
    }
    if (typeof message === 'string' && PGLITE_CLOSED.has(message)) return true;
    e = cause;
  }
  return false;
}

/**
 * Runs idempotent database work again while the database is unreachable (a killed backend, a reset
 * or refused connection; never a statement the database refused): up to `tries` times, waiting
 * `delayMs`, then twice that, between them, since a killed backend or a failover is usually over
 * in a second or two. `work` is told which try it is (1 for the first).
 */
export async function retryWhileUnreachable<T>(
  work: (attempt: number) => Promise<T>,
  { tries = 3, delayMs = 250 }: { tries?: number; delayMs?: number } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= tries || !databaseUnavailable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** (attempt - 1)));
    }
  }
}

/** The innermost SQLSTATE of an error (Drizzle wraps the driver's error in `cause`). */
function sqlState(error: unknown): string | undefined {
  let e = error as { code?: unknown; cause?: unknown } | null;
  for (let depth = 0; depth < 6 && e !== null && typeof e === 'object'; depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/**
 * PostgreSQL aborted the transaction to break a deadlock (40P01) or a serialization conflict
 * (40001): nothing of it was kept, and the same work run again usually goes through.
 */
export function transactionConflict(error: unknown): boolean {
  const code = sqlState(error);
  return code === '40P01' || code === '40001';
}

/**
 * Runs a whole transaction (`work`) again when PostgreSQL aborted it for a conflict with another
 * one, up to `tries` times, after a short random pause so the two do not meet again in step.
 */
export async function retryConflicts<T>(work: () => Promise<T>, { tries = 3 } = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= tries || !transactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
}

/** What is logged of the failure: its innermost code and message (a wrapper's carries the query). */
function describe(error: unknown): { code?: string; reason: string } {
  let inner = error as { code?: unknown; message?: unknown; cause?: unknown };
  for (let depth = 0; depth < 6 && inner.cause !== null && typeof inner.cause === 'object'; depth++) {
    inner = inner.cause as typeof inner;
  }
  return {
    ...(typeof inner.code === 'string' && { code: inner.code }),
    reason: typeof inner.message === 'string' ? inner.message : String(inner),
  };
}

/**
 * One per service, the context's `outage`, shared by its hosts and jobs: knows whether an outage
 * is on, and while it is, asks the database four times a second whether it answers again. Requests
 * meanwhile get their 503 at once (http.ts), so the watch's question is what ends the outage, and
 * the end is logged even before a request succeeds.
 */
export class OutageWatch {
  readonly #database: Database;
  readonly #log: Logger;
  readonly #probeMs: number;
  #probe: NodeJS.Timeout | null = null;
  #probing = false;
  #closed = false;

  constructor(database: Database, log: Logger, probeMs = 250) {
    this.#database = database;
    this.#log = log;
    this.#probeMs = probeMs;
  }

  /** true from the first failure until the database answers again */
  get down(): boolean {
    return this.#probe !== null;
  }

  /** The cause of a request refused because an outage is on, before it asked the database. */
  static readonly refusal = Object.assign(new Error('the database is out of reach: an outage is on'), {
    code: OUTAGE_ON,
  });

  /** A request failed because the database is unreachable: logged only if it is the first. */
  failed(error: unknown): void {
    if (this.#probe || this.#closed) return;
    this.#log.error(
      { ...describe(error), retry_after_seconds: SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS },
      'database unreachable: answering 503 service_unavailable until it is back',
    );
    this.#probe = setInterval(() => void this.#check(), this.#probeMs);
    this.#probe.unref();
  }

  async #check(): Promise<void> {
    if (this.#probing || !this.#probe) return;
    this.#probing = true;
    try {
      await this.#database.rows(sql`SELECT 1`);
      if (this.#probe) {
        clearInterval(this.#probe);
        this.#probe = null;
        this.#log.info('database reachable again');
      }
    } catch {
      // still down; asked again on the next tick
    } finally {
      this.#probing = false;
    }
  }

  /** For good: the service is closing its database. */
  stop(): void {
    this.#closed = true;
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
  }
}

/**
 * Logs a failed step of background work at warn, unless the database was out of reach: an outage
 * is logged once by its watch, however many steps it fails.
 */
export function warnUnlessUnreachable(
  outage: OutageWatch,
  log: Logger,
  error: unknown,
  fields: Record<string, unknown>,
  message: string,
): void {
  if (databaseUnavailable(error)) outage.failed(error);
  else log.warn({ ...fields, err: error }, message);
}
