// Transactions on PostgreSQL each run on a connection of their own (src/platform/transaction-connections.ts). These tests
// need a pool, so they run when TEST_DATABASE_URL is set (CI sets it); PGlite has one connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { connectionGone, openDatabase, type Database } from '../../src/platform/db.ts';
import { databaseUnavailable, retryConflicts, transactionConflict } from '../../src/platform/db-errors.ts';
import { killBackendBlockedBy } from '../helpers/postgres.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { target } from './raw-http.ts';

const url = process.env.TEST_DATABASE_URL;

describe('PostgreSQL transactions', { skip: url ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let database: Database;
  before(async () => {
    database = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
  });
  after(() => database.close());

  const txid = async () => (await database.rows<{ t: string }>(sql`SELECT txid_current()::text AS t`))[0]!.t;

  test('a BEGIN that fills a connection pipeline still gets a connection of its own', async () => {
    // Open both connections, then queue about 100 statements on each before the transactions,
    // so that some BEGIN is the statement that would fill a pipeline (porsager/postgres#1189).
    await Promise.all([txid(), txid()]);
    const failures: unknown[] = [];
    for (let queued = 195; queued < 202; queued++) {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < queued; i++) work.push(database.rows(sql`SELECT pg_sleep(0.001)`));
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 4; i++) {
        work.push(database.transaction(async (tx) => database.rows(sql`SELECT 1`, tx)));
      }
      for (const result of await Promise.allSettled(work)) {
        if (result.status === 'rejected') failures.push(result.reason);
      }
    }
    assert.deepEqual(failures, []);
    // No transaction was left open on a pooled connection: every autocommit statement gets its
    // own transaction id.
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await txid());
    assert.equal(
      new Set(ids).size,
      ids.length,
      `autocommit statements shared a transaction: ${ids.join(' ')}`,
    );
  });

  test('commits, rolls back on an error, and rolls back only a failed savepoint', async () => {
    const name = `tx_test_${process.pid}_${Date.now()}`;
    await database.rows(sql.raw(`CREATE TABLE ${name} (v int)`));
    try {
      await database.transaction(async (tx) => {
        await database.rows(sql.raw(`INSERT INTO ${name} VALUES (1)`), tx);
        await assert.rejects(
          tx.transaction(async (inner) => {
            await database.rows(sql.raw(`INSERT INTO ${name} VALUES (2)`), inner);
            throw new Error('inner fails');
          }),
          /inner fails/,
        );
        await tx.transaction(async (inner) => {
          await database.rows(sql.raw(`INSERT INTO ${name} VALUES (3)`), inner);
        });
      });
      await assert.rejects(
        database.transaction(async (tx) => {
          await database.rows(sql.raw(`INSERT INTO ${name} VALUES (4)`), tx);
          throw new Error('outer fails');
        }),
        /outer fails/,
      );
      const rows = await database.rows<{ v: number }>(sql.raw(`SELECT v FROM ${name} ORDER BY v`));
      assert.deepEqual(
        rows.map((r) => r.v),
        [1, 3],
      );
    } finally {
      await database.rows(sql.raw(`DROP TABLE ${name}`));
    }
  });

  test('a statement sent after the transaction lost its connection fails, and the process goes on', async () => {
    // Unpatched, postgres.js 3.4.9 can write to a socket it has already dropped: an uncaught
    // TypeError that ends the process (porsager/postgres#1154, #1208; patches/). The next test
    // met it too.
    const other = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    let sent!: (sent: { statement: Promise<unknown> }) => void;
    const later = new Promise<{ statement: Promise<unknown> }>((resolve) => (sent = resolve));
    try {
      await assert.rejects(
        database.transaction(async (tx) => {
          const rows = await database.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`, tx);
          // The moment the statement in flight fails, the body sends another. Both are awaited
          // together: the failure can come before the kill's own answer.
          const sleeping = database.rows(sql`SELECT pg_sleep(2)`, tx).catch(() => {
            const statement = database.rows(sql`SELECT 2 AS two`, tx);
            sent({ statement });
            return statement;
          });
          await Promise.all([sleeping, other.rows(sql`SELECT pg_terminate_backend(${rows[0]!.pid}::int)`)]);
        }),
      );
      // the body goes on after its transaction failed, and sends one more statement
      await assert.rejects((await later).statement, (error: Error) => connectionGone(error));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(uncaught, []);
      const one = await database.transaction(async (tx) => database.rows(sql`SELECT 1 AS one`, tx));
      assert.deepEqual([...one], [{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await other.close();
    }
  });

  for (const [when, pause] of [
    ['while a statement is on its way', 0],
    ['while the transaction is idle', 300],
  ] as const) {
    test(`a connection lost ${when} fails that transaction only`, async () => {
      const other = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
      try {
        await assert.rejects(
          database.transaction(async (tx) => {
            const rows = await database.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`, tx);
            await other.rows(sql`SELECT pg_terminate_backend(${rows[0]!.pid}::int)`);
            await new Promise((resolve) => setTimeout(resolve, pause));
            await database.rows(sql`SELECT pg_sleep(0.2)`, tx);
          }),
        );
        // The pool reconnects and goes on. postgres.js 3.4.9 can replay the lost backend's
        // 57P01 onto the first query of the reconnected connection (porsager/postgres#1223): that
        // one query fails, nothing more.
        const replayed: unknown[] = [];
        let ids: string[] = [];
        for (let attempt = 0; attempt < 3 && ids.length === 0; attempt++) {
          ids = await Promise.all([txid(), txid(), txid()]).catch((error: unknown) => {
            replayed.push(error);
            return [];
          });
        }
        assert.equal(new Set(ids).size, 3);
        assert.ok(replayed.length <= 1, `${replayed.length} failures after reconnecting`);
        for (const error of replayed) {
          assert.equal((error as { cause?: { code?: string } }).cause?.code, '57P01');
        }
        const one = await database.transaction(async (tx) => database.rows(sql`SELECT 1 AS one`, tx));
        assert.deepEqual([...one], [{ one: 1 }]);
      } finally {
        await other.close();
      }
    });
  }
  test('statements still queued when the connection is lost never run outside the transaction', async () => {
    const name = `tx_lost_queue_${process.pid}_${Date.now()}`;
    await database.rows(sql.raw(`CREATE TABLE ${name} (v int)`));
    // A pool whose connection knows no statement yet: each INSERT below is described first, and
    // postgres.js queues the next ones until the description comes back.
    const fresh = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
    let unlock!: () => void;
    const unlocked = new Promise<void>((resolve) => (unlock = resolve));
    let locked!: (pid: number) => void;
    const holderPid = new Promise<number>((resolve) => (locked = resolve));
    // The table locked, describing the first INSERT waits (it must open the table).
    const holder = database.transaction(async (tx) => {
      await database.rows(sql.raw(`LOCK TABLE ${name} IN ACCESS EXCLUSIVE MODE`), tx);
      const [row] = await database.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`, tx);
      locked(Number(row!.pid));
      await unlocked;
    });
    try {
      const pid = await holderPid;
      const outcome = fresh.transaction(async (tx) => {
        await Promise.all(
          [1, 2, 3].map((v) => fresh.rows(sql`INSERT INTO ${sql.identifier(name)} VALUES (${v})`, tx)),
        );
        return 'committed';
      });
      outcome.catch(() => {});
      let killed = 0;
      try {
        killed = await killBackendBlockedBy(database, pid);
      } finally {
        unlock();
        await holder;
      }
      assert.equal(killed, 1, 'the transaction was waiting for the table');
      await assert.rejects(outcome);
      // Give a reconnected client time to run anything it still held.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [row] = await database.rows<{ n: number }>(sql.raw(`SELECT count(*)::int AS n FROM ${name}`));
      assert.equal(row!.n, 0, 'no INSERT ran after the connection was lost');
    } finally {
      unlock();
      await Promise.race([fresh.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
      await database.rows(sql.raw(`DROP TABLE ${name}`));
    }
  });

  test('transactions keep getting connections however often PostgreSQL kills them', async () => {
    // postgres.js 3.4.9 could leave the next transaction waiting for ever after a kill (a
    // reserve() dropped on reconnect, porsager/postgres#1195; a reconnected client that never
    // answered). A client whose connection is lost is now replaced (TransactionConnections).
    const pool = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
    const other = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
    const within = <T>(promise: Promise<T>, what: string) =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`${what}: no answer in 10 s`)), 10_000),
        ),
      ]);
    const txid = () =>
      pool.transaction(
        async (tx) => (await pool.rows<{ t: string }>(sql`SELECT txid_current()::text AS t`, tx))[0]!.t,
      );
    try {
      for (let round = 0; round < 6; round++) {
        await assert.rejects(
          within(
            pool.transaction(async (tx) => {
              const rows = await pool.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`, tx);
              await other.rows(sql`SELECT pg_terminate_backend(${rows[0]!.pid}::int)`);
              if (round % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 50));
              await pool.rows(sql`SELECT pg_sleep(0.05)`, tx);
            }),
            `killed transaction ${round + 1}`,
          ),
          (error: Error) => !error.message.includes('no answer'),
        );
        // After the kill: one transaction alone, or three at once, each answers with its own id.
        const ids = await within(
          round % 4 < 2 ? txid().then((id) => [id]) : Promise.all([txid(), txid(), txid()]),
          `transactions after kill ${round + 1}`,
        );
        assert.equal(new Set(ids).size, ids.length);
      }
    } finally {
      await other.close();
      await Promise.race([pool.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
    }
  });
  test('a connection refused while the database is down is replaced: writes and transactions resume', async () => {
    const proxy = new TcpProxy(target(url!));
    await proxy.start();
    const through = new URL(url!);
    through.host = `127.0.0.1:${proxy.port}`;
    const pool = await openDatabase({
      url: through.toString(),
      connections: { reads: 1, transactions: 1 },
    });
    const within = <T>(promise: Promise<T>, what: string) =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`${what}: no answer in 10 s`)), 10_000),
        ),
      ]);
    const unreachable = (error: unknown) => databaseUnavailable(error);
    try {
      await pool.write(sql`SELECT 1`);
      await pool.transaction(async (tx) => pool.rows(sql`SELECT 1`, tx));
      await proxy.cut();
      // The open connections close, and the next ones are refused.
      await assert.rejects(within(pool.write(sql`SELECT 1`), 'write while down'), unreachable);
      await assert.rejects(within(pool.write(sql`SELECT 1`), 'write while down again'), unreachable);
      await assert.rejects(
        within(
          pool.transaction(async (tx) => pool.rows(sql`SELECT 1`, tx)),
          'transaction while down',
        ),
        unreachable,
      );
      await proxy.start();
      const [row] = await within(pool.write<{ one: number }>(sql`SELECT 1 AS one`), 'write once back');
      assert.equal(Number(row!.one), 1);
      const answered = await within(
        pool.transaction(async (tx) => pool.rows<{ one: number }>(sql`SELECT 1 AS one`, tx)),
        'transaction once back',
      );
      assert.equal(Number(answered[0]!.one), 1);
    } finally {
      await Promise.race([pool.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
      await proxy.cut();
    }
  });
  test('a transaction PostgreSQL aborts to break a deadlock runs again and commits', async () => {
    const name = `tx_deadlock_${process.pid}_${Date.now()}`;
    await database.rows(sql.raw(`CREATE TABLE ${name} (id int PRIMARY KEY, v int)`));
    await database.rows(sql.raw(`INSERT INTO ${name} VALUES (1, 0), (2, 0)`));
    const other = await openDatabase({ url: url!, connections: { reads: 1, transactions: 1 } });
    const row = (id: number) => sql.raw(`SELECT v FROM ${name} WHERE id = ${id} FOR UPDATE`);
    /** Waits until a backend waits on a lock held by `pid`. */
    const blockedBy = async (pid: number) => {
      for (let i = 0; i < 250; i++) {
        const [r] = await database.rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`,
        );
        if (r!.n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('no backend waited on the lock');
    };
    try {
      let tries = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding!: (pid: number) => void;
      const holderPid = new Promise<number>((resolve) => (holding = resolve));
      // The other side takes row 2, then row 1; its slow deadlock check leaves the abort to ours.
      const holder = other.transaction(async (tx) => {
        await other.rows(sql`SET LOCAL deadlock_timeout = '10s'`, tx);
        await other.rows(row(2), tx);
        const [r] = await other.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`, tx);
        holding(Number(r!.pid));
        await released;
        await other.rows(row(1), tx);
        await other.rows(sql.raw(`UPDATE ${name} SET v = v + 10`), tx);
      });
      const pid = await holderPid;
      const work = retryConflicts(() =>
        database.transaction(async (tx) => {
          tries += 1;
          await database.rows(row(1), tx);
          await database.rows(row(2), tx);
          await database.rows(sql.raw(`UPDATE ${name} SET v = v + 1`), tx);
          return tries;
        }),
      );
      // Ours holds row 1 and waits for row 2: the other side's turn for row 1 closes the cycle.
      await blockedBy(pid);
      release();
      await holder;
      assert.equal(await work, 2, 'the first try was aborted and the second committed');
      const rows = await database.rows<{ v: number }>(sql.raw(`SELECT v FROM ${name} ORDER BY id`));
      assert.deepEqual(
        rows.map((r) => r.v),
        [11, 11],
        'both sides committed once each',
      );
      // Drizzle's wrapper around the driver's error counts; a refused statement does not.
      assert.equal(transactionConflict({ cause: { code: '40P01' } }), true);
      assert.equal(transactionConflict({ cause: { code: '23505' } }), false);
    } finally {
      await other.close();
      await database.rows(sql.raw(`DROP TABLE ${name}`));
    }
  });
});
