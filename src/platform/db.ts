// The database: embedded PGlite by default, PostgreSQL (postgres.js) when a URL is given.
// One Drizzle query layer over both; one set of SQL migrations applied at start.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT, PgTable, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import postgres from 'postgres';
import * as schema from '../db-schema.ts';

type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
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
   * A transaction whose body may end while its last writes (statements already sent on `tx`) are
   * still on their way: on PostgreSQL COMMIT goes out right behind them, so a transaction's last
   * round trip carries both, and locks its writes took are held for that one trip. The transaction
   * fails with the first failed write's error. On PGlite the writes are awaited before COMMIT.
   */
  transaction<T>(body: (tx: Tx) => Promise<{ value: T; writes: Promise<unknown>[] }>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres:// URL; absent means PGlite */
  url?: string | undefined;
  /** PGlite directory, or 'memory://' */
  dataDir?: string;
  /** PostgreSQL connections, required with `url` (the service's come from config.ts); PGlite has one */
  connections?: DatabaseConnections;
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
    // transaction waits for a connection with nothing in flight; sharing one pool, a burst of
    // reads keeps every connection busy and starves the transactions behind it. Few read
    // connections, so that the reads of many requests go out in few writes (docs/decisions.md).
    const sizes = options.connections;
    if (!sizes)
      throw new Error('openDatabase: connections (reads, transactions) are required for PostgreSQL');
    const client = postgres(options.url, { max: sizes.reads, ...RECONNECT });
    const transactions = new TransactionConnections(options.url, sizes.transactions);
    const db = drizzlePostgres(preparing(client, undefined, transactions), { schema }) as unknown as Db;
    // Drizzle sets the value parsers and serializers of the client it is given (dates and JSON
    // pass through as text, for its own mapping); the transactions' clients must speak the same.
    transactions.speakLike(client);
    return {
      kind: 'postgres',
      db,
      async rows<T>(query: SQL, executor: Executor = db) {
        return (await executor.execute(query)) as unknown as T[];
      },
      async statement<T>(text: string, params: unknown[]) {
        return (await client.unsafe(text, params as never[], { prepare: true })) as unknown as T[];
      },
      async transaction(body) {
        // inTransaction recognises a CommitBehind and answers its value
        return db.transaction(async (tx) => {
          const { value, writes } = await body(tx);
          return new CommitBehind(value, writes) as never;
        });
      },
      close: async () => {
        await Promise.all([client.end({ timeout: 5 }), transactions.end()]);
      },
    };
  }
  const dataDir = options.dataDir ?? 'memory://';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    async rows<T>(query: SQL, executor: Executor = db) {
      const result = (await executor.execute(query)) as unknown as { rows: T[] };
      return result.rows;
    },
    async statement<T>(text: string, params: unknown[]) {
      return (await client.query<T>(text, params, { parsers: AS_TEXT })).rows;
    },
    transaction: (body) =>
      db.transaction(async (tx) => {
        const { value, writes } = await body(tx);
        await Promise.all(writes);
        return value;
      }),
    close: () => client.close(),
  };
}

// Dates and times as PostgreSQL writes them, as drizzle has both drivers return them.
const AS_TEXT = Object.fromEntries(
  [1082, 1083, 1114, 1115, 1182, 1184, 1185, 1186, 1187, 1231].map((oid) => [oid, (value: string) => value]),
);

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

type Sql = ReturnType<typeof postgres>;

/**
 * A transaction connection's socket, which can hold back what postgres.js writes to it and send
 * it all in one write (inTransaction says when). Each write to PostgreSQL is a system call that
 * also wakes its backend: on a busy 2-CPU machine about 40 µs of the service's CPU, and a
 * transaction was three or more of them (postgres.js writes a pipeline in pieces of about 1 KB).
 */
class HeldSocket extends Socket {
  #held = false;
  /** counts holds, so that a late release never ends a newer one */
  #holds = 0;

  /** from now on, writes wait in the socket */
  hold(): void {
    if (this.#held) return;
    this.#held = true;
    this.#holds++;
    this.cork();
  }

  /**
   * What is held goes out `turns` turns of the event loop from now (postgres.js writes what it
   * was given in the next turn), unless the socket was released and held again meanwhile.
   */
  releaseIn(turns: number): void {
    if (!this.#held) return;
    const hold = this.#holds;
    const next = (left: number) =>
      setImmediate(() => {
        if (left > 1) next(left - 1);
        else if (this.#holds === hold) this.release();
      });
    next(turns);
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.uncork();
  }
}

/** postgres.js's socket option: a connected HeldSocket, as its own connect() would make it. */
function connectHeldSocket(options: {
  host: string[];
  port: number[];
  path: string | false;
  connect_timeout: number;
}): Promise<HeldSocket> {
  return new Promise((resolve, reject) => {
    const socket = new HeldSocket();
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(options.connect_timeout * 1000, () =>
      fail(Object.assign(new Error('connect timeout'), { code: 'CONNECT_TIMEOUT' })),
    );
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      resolve(socket);
    });
    if (options.path) socket.connect(options.path);
    else socket.connect({ port: options.port[0]!, host: options.host[0]! });
  });
}

/** A transaction client's socket, and whether the client may still connect. */
interface ClientSocket {
  socket: HeldSocket | null;
  retired: boolean;
}

/**
 * The connections transactions run on: a postgres.js client of one connection each, handed to one
 * transaction at a time, first come first served, and replaced by a new client once its connection
 * is lost. postgres.js 3.4.9 does not recover reliably when PostgreSQL closes a connection (a killed
 * backend, a restart, a failover): a pool's reserve() that reconnects it is dropped and never
 * settles (porsager/postgres#1195), and a statement sent on a reconnected client can wait for
 * ever (seen here; porsager/postgres#1199 and #1208 are nearby). A new client has none of that
 * state. A client of its own also carries nothing but its transaction's statements, so BEGIN is
 * never written onto a connection that other statements share (porsager/postgres#1189).
 */
class TransactionConnections {
  readonly #url: string;
  readonly #all: Sql[];
  readonly #free: Sql[];
  readonly #waiting: Array<(connection: Sql) => void> = [];
  readonly #sockets = new WeakMap<Sql, ClientSocket>();
  #like: Sql | null = null;

  constructor(url: string, size: number) {
    this.#url = url;
    this.#all = Array.from({ length: size }, () => this.#open());
    this.#free = [...this.#all];
  }

  #open(): Sql {
    const current: ClientSocket = { socket: null, retired: false };
    const connection = postgres(this.#url, {
      max: 1,
      ...RECONNECT,
      socket: async (options: Parameters<typeof connectHeldSocket>[0]) => {
        // postgres.js reconnects by itself; a retired client must not (see retire)
        if (current.retired) throw new Error('transaction client retired after its connection was lost');
        return (current.socket = await connectHeldSocket(options));
      },
    } as postgres.Options<Record<string, never>>);
    this.#sockets.set(connection, current);
    this.#speak(connection);
    return connection;
  }

  /** the client's socket, once it has connected */
  socketOf(connection: Sql): HeldSocket | null {
    return this.#sockets.get(connection)?.socket ?? null;
  }

  #speak(connection: Sql): void {
    if (!this.#like) return;
    Object.assign(connection.options.parsers, this.#like.options.parsers);
    Object.assign(connection.options.serializers, this.#like.options.serializers);
  }

  /** New and current clients use `client`'s value parsers and serializers (drizzle sets them). */
  speakLike(client: Sql): void {
    this.#like = client;
    for (const connection of this.#all) this.#speak(connection);
  }

  take(): Promise<Sql> {
    const connection = this.#free.pop();
    return connection ? Promise.resolve(connection) : new Promise((resolve) => this.#waiting.push(resolve));
  }

  /**
   * Ends a client whose connection was lost, for good: what is still queued on it fails, and it
   * never connects again (postgres.js would otherwise reconnect, run the queued statements outside
   * their transaction, and keep the new connection open).
   */
  retire(connection: Sql): void {
    const current = this.#sockets.get(connection);
    if (current) current.retired = true;
    // Not awaited: ending a client whose connection is gone can itself wait for ever
    // (porsager/postgres#1097); timeout 0 destroys whatever is left at once.
    connection.end({ timeout: 0 }).catch(() => {});
  }

  /** Hands the client on; one whose connection was lost is retired and a new one takes its place. */
  give(connection: Sql, lost: boolean): void {
    let next = connection;
    if (lost) {
      next = this.#open();
      this.#all[this.#all.indexOf(connection)] = next;
      this.retire(connection);
    }
    const waiting = this.#waiting.shift();
    if (waiting) waiting(next);
    else this.#free.push(next);
  }

  async end(): Promise<void> {
    await Promise.all(this.#all.map((connection) => connection.end({ timeout: 5 })));
  }
}

/**
 * Drizzle asks postgres.js not to prepare statements it was not told to name, which costs every
 * query an extra round trip (parse/describe, then execute) and a fresh plan. Our SQL text is
 * stable (values are always parameters), so every statement is prepared once per connection and
 * reused: one round trip per query.
 *
 * Transactions run on a connection of their own (TransactionConnections) rather than postgres.js's
 * begin(). Under load, begin() can write BEGIN onto a connection whose pipeline it just filled
 * without taking it for itself (porsager/postgres#1189, unfixed in 3.4.9): the transaction fails
 * with UNSAFE_TRANSACTION while the server keeps it open, and the pool then runs other requests'
 * statements inside it.
 */
function preparing<T extends Sql>(
  client: T,
  transaction?: OpenTransaction,
  transactions?: TransactionConnections,
): T {
  let savepoints = 0;
  const proxy: T = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: unknown[], options?: Record<string, unknown>) => {
          if (transaction?.lost) throw transaction.lost;
          return target.unsafe(query, params as never, { ...options, prepare: true });
        };
      }
      if (property === 'begin' && !transaction) {
        return (...args: unknown[]) =>
          inTransaction(
            transactions!,
            args.at(-1) as TransactionBody,
            args.length > 1 ? String(args[0]) : '',
          );
      }
      if (property === 'savepoint' && transaction) {
        return (...args: unknown[]) =>
          inSavepoint(proxy as Sql, `s${savepoints++}`, args.at(-1) as TransactionBody);
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return proxy;
}

type TransactionBody = (tx: Sql) => unknown;

/** A transaction's connection, and why it is gone once it is. */
interface OpenTransaction {
  lost: Error | null;
}

// Errors after which nothing more may be sent on a connection: postgres.js's own codes for a
// closed connection, PostgreSQL's for a backend that is ending it (57P01 to 57P03, a killed
// backend or a shutdown; class 08, connection exceptions; these can come before the socket
// closes), and socket errors (they carry a syscall). No ROLLBACK is sent on it; a COMMIT sent on
// it may or may not have been carried out.
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

/** The part of a postgres.js connection that tells of its closing. */
interface ConnectionHandle {
  onclose: ((error: Error) => void) | null;
}

async function inTransaction(
  transactions: TransactionConnections,
  body: TransactionBody,
  mode: string,
): Promise<unknown> {
  const connection = await transactions.take();
  const transaction: OpenTransaction = { lost: null };
  // A connection that closes while the transaction is idle says nothing to its caller, and a
  // statement sent afterwards would open a new connection and run outside the transaction. BEGIN's
  // onexecute hands us the connection, whose onclose postgres.js calls when it closes (its own
  // begin() listens the same way): from then on the transaction fails at once and sends nothing.
  let handle: ConnectionHandle | undefined;
  let closed!: (error: Error) => void;
  const lost = new Promise<never>((_, reject) => (closed = reject));
  lost.catch(() => {});
  const onexecute = (c: ConnectionHandle) => {
    handle = c;
    c.onclose = (error) => {
      transaction.lost = error;
      closed(error);
      // Right after this, postgres.js would open a new connection for the statements still
      // queued for this one (behind one it had to describe first) and run them there, outside
      // any transaction. Retired, the client fails them instead (it is replaced in give()).
      transactions.retire(connection);
    };
    return true; // the connection can take the next statement at once
  };
  let gone = false;
  const control = async (command: string, options?: Record<string, unknown>) => {
    if (transaction.lost) throw transaction.lost;
    try {
      return await connection.unsafe(command, [], options);
    } catch (error) {
      gone ||= connectionGone(error);
      throw error;
    }
  };
  // The transaction goes out in as few writes as it can. Its socket holds what is written from
  // BEGIN until the next turn of the event loop, when every statement the body sent before its
  // first wait has reached it. A body that waits on nothing (a CommitBehind at once) keeps it held
  // until COMMIT: BEGIN, the writes and COMMIT then leave in one write, and a lock they take is
  // held only while PostgreSQL runs them, never while this process is busy with other work.
  const socket = transactions.socketOf(connection);
  socket?.hold();
  let releasing: NodeJS.Immediate | null = socket ? setImmediate(() => socket.release()) : null;
  try {
    // BEGIN goes out with the body's first statements instead of a round trip ahead of them: the
    // connection runs them in the order sent, and BEGIN itself fails only with the connection,
    // which fails those statements too.
    const begun = control(`begin ${mode.replace(/[^a-z ]/gi, '')}`, { onexecute });
    begun.catch(() => {});
    let result: unknown;
    try {
      result = await Promise.race([body(preparing(connection, transaction) as unknown as Sql), lost]);
      if (!(result instanceof CommitBehind)) await begun;
    } catch (error) {
      socket?.release();
      gone ||= connectionGone(error);
      if (!gone && !transaction.lost) await control('rollback');
      throw error;
    }
    // With a CommitBehind, COMMIT follows the body's last writes on the wire. A failed statement
    // aborts the transaction, and PostgreSQL answers COMMIT with ROLLBACK: the transaction then
    // fails with that statement's error (or, for one nobody waited for, says so).
    const behind = result instanceof CommitBehind ? result : null;
    if (behind) {
      socket?.hold();
      if (releasing) clearImmediate(releasing);
      releasing = null;
      // Drizzle hands a statement to the connection a few promise steps after it was asked for.
      // Those steps are all microtasks, so by the next turn of the event loop every write has
      // reached the connection, and COMMIT is queued behind them.
      await new Promise((resolve) => setImmediate(resolve));
      // postgres.js puts COMMIT in its buffer and writes it in the next turn, after which the
      // socket lets it all go. Should COMMIT wait instead (behind a statement postgres.js must
      // describe first, or a full buffer), whatever is held goes out two turns from now anyway.
      socket?.releaseIn(2);
    }
    const commitWritten = () => {
      socket?.releaseIn(1);
      return true; // the connection can take the next statement at once
    };
    const [committed, ...writes] = await Promise.allSettled([
      control('commit', behind ? { onexecute: commitWritten } : undefined),
      ...(behind ? [begun, ...behind.writes] : []),
    ]);
    const failed = writes.find((w) => w.status === 'rejected');
    if (committed.status === 'rejected') throw committed.reason;
    if (failed) throw failed.reason;
    if (committed.value.command !== 'COMMIT') {
      throw new Error(`COMMIT answered ${committed.value.command}: a statement of the transaction failed`);
    }
    return behind ? behind.value : result;
  } finally {
    if (releasing) clearImmediate(releasing);
    socket?.release();
    if (handle) handle.onclose = null;
    transactions.give(connection, gone || transaction.lost !== null);
  }
}

/** A transaction body's value with the writes still on their way (see Database.transaction). */
class CommitBehind {
  readonly value: unknown;
  readonly writes: Promise<unknown>[];
  constructor(value: unknown, writes: Promise<unknown>[]) {
    this.value = value;
    this.writes = writes;
  }
}

async function inSavepoint(tx: Sql, name: string, body: TransactionBody): Promise<unknown> {
  await tx.unsafe(`savepoint ${name}`);
  let result: unknown;
  try {
    result = await body(tx);
  } catch (error) {
    if (!connectionGone(error)) await tx.unsafe(`rollback to savepoint ${name}`);
    throw error;
  }
  await tx.unsafe(`release savepoint ${name}`);
  return result;
}

const here = dirname(fileURLToPath(import.meta.url));
/** drizzle/ at the repository root, from src/platform or dist/src/platform. */
export function migrationsDir(): string {
  for (const candidate of [resolve(here, '../../drizzle'), resolve(here, '../../../drizzle')]) {
    try {
      readdirSync(candidate);
      return candidate;
    } catch {
      // try the next layout
    }
  }
  throw new Error('drizzle/ migrations folder not found');
}

// Any constant: the advisory lock that serialises migrations across processes.
const MIGRATION_LOCK = 724_100_113;

/**
 * Applies every drizzle/NNNN_*.sql file not yet recorded, in order, each in its own transaction,
 * under an advisory lock so several processes starting at once migrate exactly once.
 */
export async function migrate(database: Database): Promise<string[]> {
  const dir = migrationsDir();
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await database.rows<{ name: string }>(sql`SELECT name FROM schema_migrations`, tx)).map((r) => r.name),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      const statements = readFileSync(join(dir, file), 'utf8')
        .split('--> statement-breakpoint')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const statement of statements) await tx.execute(sql.raw(statement));
      await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES (${file})`);
      applied.push(file);
    }
  });
  return applied;
}

/** True when every migration file is recorded as applied (readiness). */
export async function migrationsCurrent(database: Database): Promise<boolean> {
  const files = readdirSync(migrationsDir()).filter((f) => /^\d{4}_.*\.sql$/.test(f));
  const rows = await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM schema_migrations`);
  return (rows[0]?.n ?? 0) >= files.length;
}
