// The database: embedded PGlite by default, PostgreSQL (postgres.js) when a URL is given.
// One Drizzle query layer over both; one set of SQL migrations applied at start.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DrizzleQueryError, sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import {
  PgDialect,
  type PgDatabase,
  type PgQueryResultHKT,
  type PgTable,
  type PgTransaction,
} from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import postgres from 'postgres';
import { lockDataDir } from './data-dir-lock.ts';
import { traceStatement, traceTransaction } from './statement-spans.ts';
import { tracingOn } from './tracing.ts';
import { TransactionConnections } from './transaction-connections.ts';

// No schema: queries name their tables (drizzle's relational db.query API is not used), so the
// plumbing needs no module's tables.
type Schema = Record<string, never>;
/**
 * The query builder outside transactions. It has no transaction(): on PostgreSQL a transaction
 * needs a connection of its own (Database.transaction), never one of the pipelined read pool.
 */
export type Db = Omit<PgDatabase<PgQueryResultHKT, Schema>, 'transaction'>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that can run a query: the database or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Runs raw SQL and returns its rows, the same shape on both drivers. */
  rows<T = Record<string, unknown>>(query: SQL, executor?: Executor): Promise<T[]>;
  /**
   * Runs one statement written out with $1, $2, ... for `params`, as rows() runs a query: outside
   * any transaction (it is a transaction by itself), pipelined with other requests' statements,
   * its text prepared once per connection. Returns its rows, values as rows() gives them. A write
   * belongs here only when the locks it takes are never held long by others: a statement that
   * waits holds up every statement queued behind it on its connection.
   */
  statement<T = Record<string, unknown>>(text: string, params: unknown[]): Promise<T[]>;
  /**
   * Runs one statement of the query builder, a transaction by itself, on a connection that carries
   * nothing else while it runs (on PostgreSQL, a transaction's), its text prepared once per
   * connection; returns its rows as rows() does. For a write that may wait on a row lock: on the
   * pipelined reads it would hold up every statement queued behind it.
   */
  write<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /**
   * write() for statements a crash of PostgreSQL may lose harmlessly (the webhook sender's leases
   * and records: what is lost is sent again): on a connection of its own whose commits do not wait
   * for the WAL to reach disk (synchronous_commit off), so they add no flush for requests to
   * wait on. Such a crash loses at most the last moments of them (about three times
   * wal_writer_delay). On PGlite, write().
   */
  lazyWrite<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /**
   * Runs `body` in a transaction: committed when it resolves, rolled back when it throws. On
   * PostgreSQL each transaction has a connection of its own for as long as it runs; statements
   * sent on `tx` without waiting between them go out together (pipelined).
   */
  transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `body` once this process holds the session-level advisory lock `key`: on PostgreSQL on a
   * connection of its own, outside any transaction (an open one would hold up CREATE INDEX
   * CONCURRENTLY, which waits for every transaction older than it). PGlite has one process.
   */
  whileLocked<T>(key: number, body: () => Promise<T>): Promise<T>;
  /** Connections and transactions now, for metrics: counted here, not read from the drivers. */
  usage(): DatabaseUsage;
  close(): Promise<void>;
}

/** What Database's own calls are timed as (a transaction: from asking for it to its commit). */
type DatabaseOperation = 'rows' | 'statement' | 'write' | 'transaction';

/** Hears how long each call of Database's own methods took (metrics); `db` queries are not timed. */
export interface DatabaseObserver {
  observe(operation: DatabaseOperation, seconds: number): void;
}

interface DatabaseUsage {
  /** connections by use, as configured: reads, transactions and lazy writes (PostgreSQL), or the one embedded */
  connections: { reads: number; transactions: number; lazyWrites: 1 } | { embedded: 1 };
  /** transaction() calls begun and not ended, those waiting for a connection included */
  transactionsInFlight: number;
  /** transaction connections busy and callers waiting for one (PostgreSQL only) */
  transactionConnections?: { busy: number; waiting: number };
}

export interface OpenDatabaseOptions {
  /** postgres:// URL; absent means PGlite */
  url?: string | undefined;
  /** PGlite directory, or 'memory://' */
  dataDir?: string;
  /** hold the PGlite directory's lock while open (the service), so that no db command opens it too */
  lockDataDir?: boolean;
  /** PGlite only: the data to start from (a dumpDataDir of another; tests start from a migrated one) */
  load?: Blob;
  /** PostgreSQL connections, required with `url` (the service's come from config.ts); PGlite has one */
  connections?: DatabaseConnections;
  /** told the duration of every call of rows, statement, write and transaction */
  observer?: DatabaseObserver | undefined;
}

export interface DatabaseConnections {
  /** statements outside transactions, pipelined: a few connections carry many requests' reads */
  reads: number;
  /** one per transaction in flight, for as long as it runs */
  transactions: number;
}

// During an outage requests answer 503 soon and service resumes soon after: postgres.js would
// otherwise wait up to 30 s to connect and back off to 20 s between attempts.
const RECONNECT = {
  onnotice: () => {},
  connect_timeout: 5,
  backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 1),
};

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) {
    // Two pools: statements outside transactions are pipelined onto busy connections, and a
    // transaction waits for a connection with nothing in flight; sharing one pool, a burst of reads
    // keeps every connection busy and starves the transactions behind it. Few read connections, so
    // that the reads of many requests go out in few writes
    // (docs/decisions/two-connection-pools.md).
    const sizes = options.connections;
    if (!sizes)
      throw new Error('openDatabase: connections (reads, transactions) are required for PostgreSQL');
    const client = postgres(options.url, { max: sizes.reads, ...RECONNECT });
    const transactions = new TransactionConnections(options.url, sizes.transactions, RECONNECT);
    // The webhook sender's claims and records: no wait for the WAL flush, and no sequential scans,
    // whose plans a statement prepared while its table was small keeps as the table grows (until
    // autovacuum's next analyze, during a backlog a minute or more of reading the whole table).
    const lazy = new TransactionConnections(options.url, 1, {
      ...RECONNECT,
      connection: { synchronous_commit: 'off', enable_seqscan: 'off' },
    });
    const db = drizzlePostgres(client);
    const inFlight = new InFlight();
    return observed(options.observer, {
      kind: 'postgres',
      db,
      async rows<T>(query: SQL, executor: Executor = db) {
        return (await executor.execute(query)) as unknown as T[];
      },
      statement: <T>(text: string, params: unknown[]) =>
        failingAsQueries(text, params, async () => {
          return (await client.unsafe(text, params as never[], { prepare: true })) as unknown as T[];
        }),
      write: statementOn(transactions),
      lazyWrite: statementOn(lazy),
      transaction: (body) => inFlight.count(() => transactions.run(body)),
      async whileLocked(key, body) {
        const session = postgres(options.url!, { max: 1, ...RECONNECT });
        try {
          // Tried again and again, never waited for in a statement: a waiting statement is a
          // transaction, which the holder's CREATE INDEX CONCURRENTLY would wait for in turn.
          while (
            !(await session<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(${key}) AS locked`)[0]!.locked
          ) {
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
          return await body();
        } finally {
          // Ending the session releases the lock.
          await session.end({ timeout: 5 });
        }
      },
      usage: () => ({
        connections: { ...sizes, lazyWrites: 1 },
        transactionsInFlight: inFlight.size,
        transactionConnections: transactions.usage(),
      }),
      close: async () => {
        await Promise.all([client.end({ timeout: 5 }), transactions.end(), lazy.end()]);
      },
    });
  }
  const dataDir = options.dataDir ?? 'memory://';
  const onDisk = !dataDir.startsWith('memory://');
  if (onDisk) mkdirSync(dataDir, { recursive: true });
  const unlock = onDisk && options.lockDataDir ? await lockDataDir(dataDir, 'service', 0) : () => {};
  let client: PGlite;
  try {
    client = await openEmbedded(dataDir, options.load);
  } catch (error) {
    unlock();
    throw error;
  }
  const db = drizzlePglite(client);
  const inFlight = new InFlight();
  const embeddedWrite = async <T>(query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;
  return observed(options.observer, {
    kind: 'pglite',
    db,
    async rows<T>(query: SQL, executor: Executor = db) {
      const result = (await executor.execute(query)) as unknown as { rows: T[] };
      return result.rows;
    },
    statement: <T>(text: string, params: unknown[]) =>
      failingAsQueries(text, params, async () => {
        return (await client.query<T>(text, params, { parsers: AS_TEXT })).rows;
      }),
    write: embeddedWrite,
    lazyWrite: embeddedWrite,
    transaction: (body) => inFlight.count(() => db.transaction(body)),
    whileLocked: (_key, body) => body(),
    usage: () => ({ connections: { embedded: 1 }, transactionsInFlight: inFlight.size }),
    close: async () => {
      await client.close();
      unlock();
    },
  });
}

/**
 * The embedded database in `dataDir`; with `load`, first filled from a backup of one
 * (PGlite's dumpDataDir). pg_trgm serves the organizer's order search by index.
 */
export function openEmbedded(dataDir: string, load?: Blob): Promise<PGlite> {
  return PGlite.create(dataDir, { extensions: { pg_trgm }, ...(load && { loadDataDir: load }) });
}

/** Database.write on the given connections: one statement of the query builder, prepared. */
function statementOn(connections: TransactionConnections) {
  return <T>(query: SQL): Promise<T[]> => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return failingAsQueries(text, params, () => connections.statement<T>(text, params));
  };
}

/** Calls begun and not yet ended. */
class InFlight {
  size = 0;
  async count<T>(run: () => Promise<T>): Promise<T> {
    this.size++;
    try {
      return await run();
    } finally {
      this.size--;
    }
  }
}

/**
 * The database with each call of rows, statement, write and transaction timed for the observer
 * (failed calls too), and traced when tracing is on (traced); without an observer, untimed, so that
 * no query pays for a clock it does not need.
 */
function observed(observer: DatabaseObserver | undefined, untraced: Database): Database {
  const database = traced(untraced);
  if (!observer) return database;
  const time =
    <A extends unknown[], R>(operation: DatabaseOperation, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const start = performance.now();
      try {
        return await call(...args);
      } finally {
        observer.observe(operation, (performance.now() - start) / 1000);
      }
    };
  return {
    ...database,
    rows: time('rows', database.rows) as Database['rows'],
    statement: time('statement', database.statement) as Database['statement'],
    write: time('write', database.write) as Database['write'],
    lazyWrite: time('write', database.lazyWrite) as Database['lazyWrite'],
    transaction: time('transaction', database.transaction) as Database['transaction'],
  };
}

/**
 * The database with a span per statement and per transaction (platform/tracing.ts), when tracing
 * was on as it opened; else unchanged, so that no statement pays for tracing that is off. The
 * query builder's statements, on `db` and on a transaction's `tx` alike, through traceQueries;
 * statement(), and write() on PostgreSQL, which bypass the builder, in failingAsQueries.
 */
function traced(database: Database): Database {
  if (!tracingOn()) return database;
  traceQueries(database.db);
  return {
    ...database,
    transaction: (body) => traceTransaction(() => database.transaction((tx) => body(traceQueries(tx)))),
  };
}

/** What traceQueries needs of Drizzle's session and the queries it prepares. */
interface TracedSession {
  prepareQuery(query: { sql: string }, ...rest: unknown[]): TracedQuery;
}
interface TracedQuery {
  execute(...args: unknown[]): Promise<unknown>;
  all?(...args: unknown[]): Promise<unknown>;
}

/**
 * Makes each statement a query builder runs a span: every query its session prepares (the builder,
 * execute() and rows() alike go through prepareQuery) runs through traceStatement. Drizzle's own
 * tracing hooks are not wired to the OpenTelemetry API, so its session is wrapped here, on this
 * builder only. Returns the builder.
 */
function traceQueries<T extends Executor>(executor: T): T {
  const session = executor._.session as unknown as TracedSession;
  const prepare = session.prepareQuery.bind(session);
  session.prepareQuery = (query, ...rest) => {
    const prepared = prepare(query, ...rest);
    const { execute, all } = prepared;
    prepared.execute = (...args) => traceStatement(query.sql, () => execute.apply(prepared, args));
    if (all) prepared.all = (...args) => traceStatement(query.sql, () => all.apply(prepared, args));
    return prepared;
  };
  return executor;
}

// Dates and times as PostgreSQL writes them, as drizzle has both drivers return them.
const AS_TEXT = Object.fromEntries(
  [1082, 1083, 1114, 1115, 1182, 1184, 1185, 1186, 1187, 1231].map((oid) => [oid, (value: string) => value]),
);

const dialect = new PgDialect();

/**
 * Runs a statement sent outside the query builder so that it fails as the builder's do: with its
 * text (logged, without its parameters: logger.ts) and the driver's error as the cause. Its span,
 * when tracing is on, is made here (the builder's are made by traceQueries).
 */
async function failingAsQueries<T>(text: string, params: unknown[], run: () => Promise<T>): Promise<T> {
  try {
    return await traceStatement(text, run);
  } catch (error) {
    throw new DrizzleQueryError(text, params, error as Error);
  }
}

/**
 * Writes of the query builder as one statement (the last one) with the others as its WITH
 * queries: all of them or none, in one round trip. Each sees the database as it was before the
 * statement (not one another's rows), and constraints are checked at its end. Every write but the
 * last must be an INSERT, UPDATE or DELETE.
 */
export function asOneStatement(writes: SQL[]): SQL {
  const last = writes.at(-1);
  if (!last) throw new Error('asOneStatement: no writes');
  if (writes.length === 1) return last;
  const withs = writes.slice(0, -1).map((write, i) => sql`${sql.raw(`w${i}`)} AS (${write})`);
  return sql`WITH ${sql.join(withs, sql`, `)} ${last}`;
}

/**
 * Text written with $1, $2, ... and its values (as Database.statement takes them) as a query
 * builder SQL, to run where only those go (in a transaction).
 */
export function boundSql(text: string, params: unknown[]): SQL {
  const pieces = text.split(/\$(\d+)/);
  return sql.join(
    pieces.map((piece, i) => (i % 2 === 0 ? sql.raw(piece) : sql`${params[Number(piece) - 1]}`)),
  );
}

/**
 * An INSERT of many rows from one JSON array (the keys of each row are column names, the same in
 * every row): one statement whose text does not change with the number of rows, so it is
 * prepared once per connection. `then` follows it (ON CONFLICT ...).
 */
export function insertRows(table: PgTable, rows: Record<string, unknown>[], then: SQL = sql``): SQL {
  const columns = sql.raw(Object.keys(rows[0]!).join(', '));
  return sql`INSERT INTO ${table} (${columns}) SELECT ${columns}
    FROM json_populate_recordset(NULL::${table}, ${JSON.stringify(rows)}::json) ${then}`;
}

/**
 * True when a database error (possibly wrapped by Drizzle) has SQLSTATE `code` and names
 * `constraint`, or names none (PGlite calls it `constraint`, postgres.js `constraint_name`).
 */
export function violates(error: unknown, code: string, constraint: string): boolean {
  type DbError = { code?: unknown; constraint?: unknown; constraint_name?: unknown; cause?: unknown };
  for (let e = error as DbError | undefined, depth = 0; e && depth < 5; e = e.cause as DbError, depth++) {
    if (e.code === code) {
      const name = e.constraint ?? e.constraint_name;
      return name === undefined || name === constraint;
    }
  }
  return false;
}

// Errors after which nothing more may be sent on a connection: postgres.js's own codes for a
// closed connection, PostgreSQL's for a backend that is ending it (57P01 to 57P03, a killed
// backend or a shutdown; class 08, connection exceptions; these can come before the socket
// closes), and socket errors (they carry a syscall). A COMMIT sent on it may or may not have been
// carried out.
const CONNECTION_GONE = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  '57P01',
  '57P02',
  '57P03',
]);
export function connectionGone(error: unknown): boolean {
  for (let e = error; e !== null && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, syscall } = e as { code?: unknown; syscall?: unknown };
    if (typeof syscall === 'string') return true;
    if (typeof code === 'string' && (CONNECTION_GONE.has(code) || code.startsWith('08'))) return true;
  }
  return false;
}
