// The connections transactions run on (PostgreSQL): one postgres.js client of one connection
// each, handed to one transaction at a time (through Drizzle's own transaction()), or to one
// statement that is a transaction by itself, first come first served. A client carries nothing
// but its transaction's statements, so BEGIN never shares a connection with other requests'
// statements (porsager/postgres#1189), and a client whose connection was lost is replaced rather
// than reconnected (docs/decisions/transactions-on-clients-of-their-own.md).
import { connect, type Socket } from 'node:net';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Tx } from './db.ts';

/** No schema, as db.ts's query builders. */
type Schema = Record<string, never>;

/** postgres.js's documented `socket` option receives these (its parsed host, port and path). */
interface SocketOptions {
  host: string[];
  port: number[];
  path: string | false;
  connect_timeout: number;
}

interface Connection {
  db: PostgresJsDatabase<Schema>;
  client: postgres.Sql;
  /** its socket closed: whatever it was doing failed, and it is not to be used again */
  lost: boolean;
  /** it was given up: it must not connect again */
  retired: boolean;
}

/** A connected socket, as postgres.js's own would be; `onClose` hears of its error or closing. */
function connectSocket(options: SocketOptions, onClose: () => void): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = options.path
      ? connect(options.path)
      : connect({ port: options.port[0]!, host: options.host[0]! });
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
      // An error comes a tick before its close: in between, the connection must not be handed on.
      socket.once('error', onClose);
      socket.once('close', onClose);
      resolve(socket);
    });
  });
}

export class TransactionConnections {
  readonly #url: string;
  readonly #options: postgres.Options<Record<string, never>>;
  readonly #free: Connection[];
  readonly #all = new Set<Connection>();
  readonly #waiting: Array<(connection: Connection) => void> = [];
  /** connections handed to a transaction or statement now */
  #busy = 0;

  constructor(url: string, size: number, options: postgres.Options<Record<string, never>>) {
    this.#url = url;
    this.#options = options;
    this.#free = Array.from({ length: size }, () => this.#open());
  }

  #open(): Connection {
    const connection = { lost: false, retired: false } as Connection;
    connection.client = postgres(this.#url, {
      ...this.#options,
      max: 1,
      socket: async (options: SocketOptions) => {
        // A retired client must not reconnect: it would run whatever is still queued on it
        // outside the transaction it belonged to.
        if (connection.retired) throw new Error('transaction connection retired after it was lost');
        connection.lost = false;
        try {
          return await connectSocket(options, () => (connection.lost = true));
        } catch (error) {
          // postgres.js fails the statement waiting on it but leaves the client connecting for
          // good: anything sent to it next would wait for ever. It is replaced instead.
          connection.lost = true;
          throw error;
        }
      },
    } as postgres.Options<Record<string, never>>);
    connection.db = drizzle(connection.client);
    this.#all.add(connection);
    return connection;
  }

  /** Runs `body` in a transaction on a connection of its own. */
  run<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#on((connection) => connection.db.transaction(body as (tx: unknown) => Promise<T>));
  }

  /** Runs one statement (a transaction by itself) on a connection of its own, prepared. */
  statement<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.#on(
      async (connection) =>
        (await connection.client.unsafe(text, params as never[], { prepare: true })) as unknown as T[],
    );
  }

  async #on<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = await this.#take();
    this.#busy++;
    try {
      return await work(connection);
    } finally {
      this.#busy--;
      this.#give(connection);
    }
  }

  /** Connections in use and callers waiting for one, for metrics. */
  usage(): { busy: number; waiting: number } {
    return { busy: this.#busy, waiting: this.#waiting.length };
  }

  #take(): Promise<Connection> {
    let connection = this.#free.pop();
    if (connection?.lost) {
      // closed while it waited here (by PostgreSQL, or at the end of its lifetime)
      this.#retire(connection);
      connection = this.#open();
    }
    return connection ? Promise.resolve(connection) : new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the connection on; one that was lost is retired and a new one takes its place. */
  #give(connection: Connection): void {
    let next = connection;
    if (connection.lost) {
      this.#retire(connection);
      next = this.#open();
    }
    const waiting = this.#waiting.shift();
    if (waiting) waiting(next);
    else this.#free.push(next);
  }

  #retire(connection: Connection): void {
    connection.retired = true;
    this.#all.delete(connection);
    // Not awaited, and at once: ending a client whose connection is gone can wait for ever
    // (porsager/postgres#1097).
    connection.client.end({ timeout: 0 }).catch(() => {});
  }

  async end(): Promise<void> {
    await Promise.all([...this.#all].map((connection) => connection.client.end({ timeout: 5 })));
  }
}
