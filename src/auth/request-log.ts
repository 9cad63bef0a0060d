// The API request log: who called with an organization's credentials, for its developers to see
// in the app. A request only pushes a small object into this process's buffer; a timer writes the
// buffer every second as one INSERT, then keeps the newest KEPT_PER_ORG rows of each organization
// it wrote to. Between writes the buffer keeps only each client's newest KEPT_PER_ORG entries (the
// rest could never be shown), so a busy client costs the database at most that many rows a second.
// The log is best effort: entries beyond the buffer's bound and those of a failed write are dropped
// and counted, never retried into the request path.
// One per service, the context's `requestLog`, started by the composition root (service.ts).
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { AppContext } from '../context.ts';
import { retryWhileUnreachable, type Executor, type Host } from '../platform/index.ts';
import { apiClients, apiRequestLog } from './auth.schema.ts';

/** Rows kept per organization: the app says "the last 100 requests". */
export const KEPT_PER_ORG = 100;
/** New entries between two compactions of the buffer to each client's newest. */
export const COMPACT_EVERY = 1000;
/** Entries kept at most after a compaction; beyond it the oldest are dropped (many clients at once). */
export const MAX_BUFFERED = 5000;
const FLUSH_INTERVAL_MS = 1000;
/** How long a shutdown waits for the last write. */
const CLOSE_WAIT_MS = 5000;
/** Longer paths are cut: a path names a resource, and the log is for reading. */
const PATH_MAX_LENGTH = 200;

/** bearer | publishable | token: how the request named its client (the table's credential). */
export type LogCredential = 'bearer' | 'publishable' | 'token';

declare module '../context.ts' {
  interface AppContext {
    readonly requestLog: RequestLog;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** how the request named a client, null while it named none (then it is not logged) */
    logCredential: LogCredential | null;
    /** the client id, or the publishable key (resolved to its client when written) */
    logClient: string;
  }
}

/** What the log needs marked on a request (a FastifyRequest of the API host). */
export interface LoggedRequest {
  logCredential: LogCredential | null;
  logClient: string;
}

/**
 * Marks a request as made by a client. Called as soon as the credential names one, before it is
 * checked further, so that refusals (revoked, wrong secret, scope, rate limit) are logged too; a
 * name that matches no client is dropped when the buffer is written.
 */
export function noteRequestClient(request: LoggedRequest, credential: LogCredential, client: string): void {
  request.logCredential = credential;
  request.logClient = client;
}

interface Entry {
  credential: LogCredential;
  client: string;
  method: string;
  /** the raw URL; its query string is cut off when written, off the request path */
  url: string;
  status: number;
  errorCode: string | null;
  requestId: string;
  at: Date;
}

export type RequestLogRow = typeof apiRequestLog.$inferSelect;

/** What the log writes with: built before the context that holds it. */
type LogWriter = Pick<AppContext, 'database' | 'log'>;

export class RequestLog {
  private buffer: Entry[] = [];
  private compactAt = COMPACT_EVERY;
  private flushing: Promise<void> = Promise.resolve();
  /** writes queued or running: the timer adds none while one is (an outage must not pile them up) */
  private pending = 0;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;
  /** entries dropped since start: over the bound, or in a write that failed */
  dropped = 0;
  /** where a failed write is told (once per run of failures); replaceable in tests */
  log: Pick<Logger, 'warn' | 'info'>;

  private readonly ctx: LogWriter;

  constructor(ctx: LogWriter) {
    this.ctx = ctx;
    this.log = ctx.log.child({ component: 'request-log' });
  }

  start(): void {
    this.timer ??= setInterval(() => this.flushSoon(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  record(entry: Entry): void {
    if (this.buffer.push(entry) >= this.compactAt) this.compact();
  }

  /**
   * Keeps each client's newest KEPT_PER_ORG entries: an organization's newest rows are all among
   * its clients' newest, so the others are superseded, not lost. Then the bound. The next
   * compaction comes after COMPACT_EVERY more entries, so each entry is looked at a few times.
   */
  private compact(): void {
    const perClient = new Map<string, number>();
    const kept: Entry[] = [];
    for (let i = this.buffer.length - 1; i >= 0; i--) {
      const entry = this.buffer[i]!;
      const seen = perClient.get(entry.client) ?? 0;
      if (seen < KEPT_PER_ORG) {
        perClient.set(entry.client, seen + 1);
        kept.push(entry);
      }
    }
    kept.reverse();
    const over = kept.length - MAX_BUFFERED;
    if (over > 0) {
      kept.splice(0, over);
      this.dropped += over;
    }
    this.buffer = kept;
    this.compactAt = kept.length + COMPACT_EVERY;
  }

  /** Writes everything buffered so far; one write at a time. Never rejects. */
  flush(): Promise<void> {
    this.pending++;
    this.flushing = this.flushing.then(async () => {
      try {
        await this.write();
      } finally {
        this.pending--;
      }
    });
    return this.flushing;
  }

  private flushSoon(): void {
    if (this.pending === 0) void this.flush();
  }

  /** Stops the timer and writes what is left (at shutdown, once the hosts have stopped). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // A write stuck on an unreachable database must not hold the shutdown up: the log is best effort.
    let waited: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'gave up'>((resolve) => {
      waited = setTimeout(() => resolve('gave up'), CLOSE_WAIT_MS);
    });
    const outcome = await Promise.race([this.flush(), gaveUp]);
    clearTimeout(waited);
    if (outcome === 'gave up')
      this.log.warn('request log not written at shutdown: the database did not answer');
  }

  private async write(): Promise<void> {
    if (this.buffer.length === 0) return;
    this.compact();
    const batch = this.buffer;
    this.buffer = [];
    this.compactAt = COMPACT_EVERY;
    let inserted = false;
    try {
      // A connection lost mid-write is tried again; the retry skips entries the first try wrote.
      const organizations = await retryWhileUnreachable((attempt) =>
        insertEntries(this.ctx, batch, attempt > 1),
      );
      inserted = true;
      // A failed prune only leaves extra rows until the organization's next write prunes them.
      if (organizations.length > 0)
        await retryWhileUnreachable(() => pruneOrganizations(this.ctx, organizations));
      if (this.failing) this.log.info({ dropped: this.dropped }, 'request log written again');
      this.failing = false;
    } catch (error) {
      if (!inserted) this.dropped += batch.length;
      if (!this.failing)
        this.log.warn({ err: error, dropped: inserted ? 0 : batch.length }, 'request log write failed');
      this.failing = true;
    }
  }
}

/** A URL as stored: no query string or fragment, no control characters, bounded. */
export function storedPath(url: string): string {
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  // eslint-disable-next-line no-control-regex -- PostgreSQL text holds no NUL; the others only garble the page
  return path.slice(0, PATH_MAX_LENGTH).replace(/[\u0000-\u001f\u007f]/g, '?');
}

/**
 * One INSERT of the batch, in order. The client is resolved here, off the request path: by id, or
 * by publishable key; entries naming no client are dropped. Returns the organizations written to.
 * A `retry` leaves out the entries a first try may have written before its answer was lost.
 */
async function insertEntries(ctx: LogWriter, batch: Entry[], retry = false): Promise<string[]> {
  const rows = batch.map((e, n) => ({
    n,
    credential: e.credential,
    client: e.client.slice(0, 128),
    method: e.method.slice(0, 16),
    path: storedPath(e.url),
    status: e.status,
    error_code: e.errorCode?.slice(0, 64) ?? null,
    request_id: e.requestId.slice(0, 64),
    at: e.at.toISOString(),
  }));
  const written = await ctx.database.write<{ organization_id: string }>(sql`
    INSERT INTO ${apiRequestLog}
      (organization_id, client_id, credential, method, path, status, error_code, request_id, at)
    SELECT coalesce(by_id.organization_id, by_key.organization_id), coalesce(by_id.id, by_key.id),
      v.credential, v.method, v.path, v.status, v.error_code, v.request_id, v.at
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS v(n int, credential text, client text,
      method text, path text, status int, error_code text, request_id text, at timestamptz)
    LEFT JOIN ${apiClients} by_id ON by_id.id = v.client
    LEFT JOIN ${apiClients} by_key ON by_key.publishable_key = v.client
    WHERE coalesce(by_id.id, by_key.id) IS NOT NULL ${
      retry
        ? sql`AND NOT EXISTS (SELECT 1 FROM ${apiRequestLog} w
            WHERE w.organization_id = coalesce(by_id.organization_id, by_key.organization_id)
              AND w.request_id = v.request_id)`
        : sql``
    }
    ORDER BY v.n
    RETURNING organization_id`);
  return [...new Set(written.map((r) => r.organization_id))];
}

/**
 * Keeps the newest KEPT_PER_ORG rows of each organization. A statement of its own after the
 * INSERT has committed: of processes writing at once, the last prune to start sees every row they
 * inserted, and none deletes a row with fewer than KEPT_PER_ORG newer ones, so the newest stay.
 */
async function pruneOrganizations(ctx: LogWriter, organizations: string[]): Promise<void> {
  await ctx.database.write(sql`
    DELETE FROM ${apiRequestLog} l
    USING (
      SELECT o.id AS organization_id,
        (SELECT x.id FROM ${apiRequestLog} x WHERE x.organization_id = o.id
          ORDER BY x.id DESC OFFSET ${KEPT_PER_ORG - 1} LIMIT 1) AS oldest_kept
      FROM json_array_elements_text(${JSON.stringify(organizations)}::json) AS o(id)
    ) k
    WHERE l.organization_id = k.organization_id AND l.id < k.oldest_kept`);
}

/**
 * The API host's hook: after each response, a request that named a client is pushed to the
 * buffer. A callback hook doing nothing more, since it runs on every request.
 */
export function recordApiRequests(app: Host, ctx: AppContext): void {
  const log = ctx.requestLog;
  app.decorateRequest('logCredential', null);
  app.decorateRequest('logClient', '');
  app.addHook('onResponse', (request, reply, done) => {
    const credential = request.logCredential;
    if (credential !== null) {
      log.record({
        credential,
        client: request.logClient,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        errorCode: reply.errorCode,
        requestId: request.id,
        at: ctx.clock.now(),
      });
    }
    done();
  });
}

/** The newest entries of an organization, newest first; of one of its clients when given. */
export async function listRequestLog(
  db: Executor,
  organizationId: string,
  options: { clientId?: string | undefined; limit?: number } = {},
): Promise<RequestLogRow[]> {
  return db
    .select()
    .from(apiRequestLog)
    .where(
      and(
        eq(apiRequestLog.organizationId, organizationId),
        options.clientId === undefined ? undefined : eq(apiRequestLog.clientId, options.clientId),
      ),
    )
    .orderBy(desc(apiRequestLog.id))
    .limit(options.limit ?? KEPT_PER_ORG);
}
