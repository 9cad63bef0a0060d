import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import {
  enqueueJob,
  enqueueJobs,
  JobRunner,
  retryDelayMs,
  type JobHandler,
  type JobHandlerEntry,
  type WorkQueue,
} from '../../src/platform/jobs.ts';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { openDatabase } from '../../src/platform/db.ts';
import { OutageWatch } from '../../src/platform/db-errors.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const log = createLogger('silent');
let kindCounter = 0;
const freshKind = () => `test.kind.${++kindCounter}.${Date.now()}`;

function runner(handlers: Record<string, JobHandler>, database = h.service.ctx.database) {
  // a worker on a database of its own watches it, as a process of its own would
  const outage = database === h.service.ctx.database ? h.service.ctx.outage : new OutageWatch(database, log);
  return new JobRunner({ database, outage, clock: h.clock, log, handlers, leaseMs: 60_000 });
}

async function jobRows(kind: string) {
  return h.service.ctx.database.db.select().from(jobs).where(eq(jobs.kind, kind));
}

describe('job runner', () => {
  test('runs a due job once and removes it; a job not yet due waits', async () => {
    const kind = freshKind();
    const seen: string[] = [];
    const r = runner({ [kind]: async ({ job }) => void seen.push(String(job.payload.n)) });
    await enqueueJob(h.service.ctx.database.db, { kind, payload: { n: 1 }, runAt: h.clock.now() });
    await enqueueJob(h.service.ctx.database.db, {
      kind,
      payload: { n: 2 },
      runAt: new Date(h.clock.now().getTime() + 60_000),
    });
    await r.runDue();
    assert.deepEqual(seen, ['1']);
    assert.equal((await jobRows(kind)).length, 1);
    h.clock.advance(61_000);
    try {
      await r.runDue();
      assert.deepEqual(seen, ['1', '2']);
      assert.equal((await jobRows(kind)).length, 0);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('a job the database lost its connection under runs again in a second, no attempt counted', async () => {
    const kind = freshKind();
    let calls = 0;
    const r = runner({
      [kind]: async () => {
        calls++;
        // as postgres.js reports a backend terminated under the statement
        throw Object.assign(new Error('terminating connection due to administrator command'), {
          code: '57P01',
        });
      },
    });
    await enqueueJob(h.service.ctx.database.db, { kind, runAt: h.clock.now(), maxAttempts: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        await r.runDue();
        const [row] = await jobRows(kind);
        assert.equal(row!.attempts, 0, 'an outage is not a failure of the job');
        assert.equal(row!.failedAt, null, 'never parked as failed, even with one attempt allowed');
        const wait = row!.runAt.getTime() - h.clock.now().getTime();
        assert.ok(wait > 0 && wait <= 1000, `runs again within a second (${wait} ms)`);
        h.clock.advance(1001);
      }
      assert.equal(calls, 3);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('a failing job is retried with backoff, then marked failed after max attempts', async () => {
    const kind = freshKind();
    let calls = 0;
    const r = runner({
      [kind]: async () => {
        calls++;
        throw new Error('receiver down');
      },
    });
    await enqueueJob(h.service.ctx.database.db, { kind, runAt: h.clock.now(), maxAttempts: 3 });
    try {
      for (let i = 0; i < 3; i++) {
        await r.runDue();
        const [row] = await jobRows(kind);
        assert.equal(row!.attempts, i + 1);
        assert.equal(row!.lastError, 'receiver down');
        assert.ok(row!.runAt.getTime() > h.clock.now().getTime(), 'pushed into the future');
        h.clock.advance(3600_000 * 2);
      }
      const [row] = await jobRows(kind);
      assert.ok(row!.failedAt, 'failed after 3 attempts');
      await r.runDue();
      assert.equal(calls, 3, 'a failed job is not run again');
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('a handler failure rolls back its writes', async () => {
    const kind = freshKind();
    const r = runner({
      [kind]: async ({ tx }) => {
        await tx.execute(sql`INSERT INTO settings (key, value) VALUES (${kind}, 'x')`);
        throw new Error('after writing');
      },
    });
    await enqueueJob(h.service.ctx.database.db, { kind, runAt: h.clock.now(), maxAttempts: 1 });
    await r.runDue();
    const rows = await h.service.ctx.database.rows(sql`SELECT 1 FROM settings WHERE key = ${kind}`);
    assert.equal(rows.length, 0);
  });

  test('a handler may ask to run again later without spending an attempt', async () => {
    const kind = freshKind();
    let calls = 0;
    const r = runner({
      [kind]: async ({ now }) => {
        calls++;
        return calls === 1 ? { retryAt: new Date(now.getTime() + 5_000) } : undefined;
      },
    });
    await enqueueJob(h.service.ctx.database.db, { kind, runAt: h.clock.now() });
    await r.runDue();
    const [row] = await jobRows(kind);
    assert.equal(row!.attempts, 0);
    h.clock.advance(6_000);
    try {
      await r.runDue();
      assert.equal(calls, 2);
      assert.equal((await jobRows(kind)).length, 0);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('a dedupe key keeps one live job and moves its run time', async () => {
    const kind = freshKind();
    const db = h.service.ctx.database.db;
    await enqueueJob(db, { kind, runAt: new Date(h.clock.now().getTime() + 1000), dedupeKey: `${kind}:a` });
    const later = new Date(h.clock.now().getTime() + 9000);
    await enqueueJob(db, { kind, runAt: later, dedupeKey: `${kind}:a` });
    const rows = await jobRows(kind);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.runAt.getTime(), later.getTime());
  });

  test('jobs sharing a dedupe key in one enqueue keep the last, and others are all added', async () => {
    const kind = freshKind();
    const base = h.clock.now().getTime();
    const at = (ms: number) => new Date(base + ms);
    await enqueueJobs(h.service.ctx.database.db, [
      { kind, runAt: at(1000), dedupeKey: `${kind}:a`, payload: { n: 1 } },
      { kind, runAt: at(2000), payload: { n: 2 } },
      { kind, runAt: at(3000), dedupeKey: `${kind}:a`, payload: { n: 3 } },
      { kind, runAt: at(4000), payload: { n: 4 } },
    ]);
    const rows = await jobRows(kind);
    assert.deepEqual(rows.map((r) => r.payload.n).sort(), [2, 3, 4]);
    assert.equal(rows.find((r) => r.payload.n === 3)!.runAt.getTime(), at(3000).getTime());
  });

  test('a job claimed by a worker that died is picked up after its lease', async () => {
    const kind = freshKind();
    const db = h.service.ctx.database.db;
    await enqueueJob(db, { kind, runAt: h.clock.now() });
    // Simulate a claim by a dead worker.
    await db
      .update(jobs)
      .set({ lockedBy: 'dead', lockedUntil: new Date(h.clock.now().getTime() + 60_000), attempts: 1 })
      .where(eq(jobs.kind, kind));
    let calls = 0;
    const r = runner({ [kind]: async () => void calls++ });
    await r.runDue();
    assert.equal(calls, 0, 'hidden while the lease lasts');
    h.clock.advance(61_000);
    try {
      await r.runDue();
      assert.equal(calls, 1);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('several workers on their own connections run each job exactly once', async () => {
    const kind = freshKind();
    const db = h.service.ctx.database.db;
    const count = 60;
    for (let i = 0; i < count; i++) await enqueueJob(db, { kind, payload: { i }, runAt: h.clock.now() });
    const seen: number[] = [];
    const handler: JobHandler = async ({ job }) => {
      await new Promise((r) => setTimeout(r, 2));
      seen.push(Number(job.payload.i));
    };
    // On PostgreSQL each worker gets its own pool, as separate processes would.
    const url = h.config.databaseUrl;
    const databases = url
      ? await Promise.all(
          [1, 2, 3].map(() => openDatabase({ url, connections: { reads: 1, transactions: 1 } })),
        )
      : [h.service.ctx.database, h.service.ctx.database, h.service.ctx.database];
    try {
      const workers = databases.map((d) => runner({ [kind]: handler }, d));
      await Promise.all(workers.map((w) => w.runDue()));
      assert.equal(seen.length, count, 'no job run twice, none skipped');
      assert.deepEqual(
        [...new Set(seen)].sort((a, b) => a - b),
        Array.from({ length: count }, (_, i) => i),
      );
      assert.equal((await jobRows(kind)).length, 0);
    } finally {
      if (url) await Promise.all(databases.map((d) => d.close()));
    }
  });

  /** A runner whose poll is far beyond the test: only a wake makes a loop run again soon. */
  const wakeOnlyRunner = (handlers: Record<string, JobHandlerEntry>, queues: WorkQueue[]) =>
    new JobRunner({
      database: h.service.ctx.database,
      outage: h.service.ctx.outage,
      clock: h.clock,
      log,
      pollMs: 60_000,
      handlers,
      queues,
    });

  test('runDue runs the due jobs, then each queue; start runs a queue in its own loop, woken by jobs', async () => {
    const kind = freshKind();
    const items: string[] = [];
    const worked: string[] = [];
    let stoppingSeen = false;
    const queue: WorkQueue = {
      name: 'test queue',
      async runDue(stopping) {
        const taken = items.splice(0);
        worked.push(...taken);
        stoppingSeen ||= stopping();
        return taken.length;
      },
    };
    const r = wakeOnlyRunner({ [kind]: async ({ job }) => void items.push(String(job.payload.n)) }, [queue]);
    const db = h.service.ctx.database.db;
    await enqueueJob(db, { kind, payload: { n: 1 }, runAt: h.clock.now() });
    assert.equal(await r.runDue(), 2, 'one job, then the item it made');
    assert.deepEqual(worked, ['1']);

    await enqueueJob(db, { kind, payload: { n: 2 }, runAt: h.clock.now() });
    r.start();
    try {
      const deadline = Date.now() + 10_000;
      while (worked.length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
      assert.deepEqual(worked, ['1', '2'], 'the queue ran after the job, long before its poll');
    } finally {
      await r.stop();
    }
    assert.equal(stoppingSeen, false);
    assert.equal((await jobRows(kind)).length, 0);
  });

  test('a queue that makes jobs and work for the next queue: runDue runs both; started, it wakes them', async () => {
    const kind = freshKind();
    const db = h.service.ctx.database.db;
    const outbox: number[] = [];
    const handed: number[] = [];
    const jobsRan: number[] = [];
    // the first queue makes a job and an item for the second, as one queue's work can make another's
    const maker: WorkQueue = {
      name: 'maker',
      pollMs: 20,
      async runDue() {
        const taken = outbox.splice(0);
        for (const n of taken) await enqueueJob(db, { kind, payload: { n }, runAt: h.clock.now() });
        handed.push(...taken);
        return taken.length;
      },
    };
    const sent: number[] = [];
    const taker: WorkQueue = {
      name: 'taker',
      async runDue() {
        const taken = handed.splice(0);
        sent.push(...taken);
        return taken.length;
      },
    };
    const r = wakeOnlyRunner({ [kind]: async ({ job }) => void jobsRan.push(Number(job.payload.n)) }, [
      maker,
      taker,
    ]);
    outbox.push(1);
    assert.equal(await r.runDue(), 3, 'the item, the item handed on, then the job it made');
    assert.deepEqual([sent, jobsRan], [[1], [1]]);

    // Started: the maker polls on its own interval, and its work wakes the others (polls of 60 s).
    r.start();
    try {
      await new Promise((res) => setTimeout(res, 100)); // the first rounds found nothing
      outbox.push(2);
      const deadline = Date.now() + 10_000;
      while ((sent.length < 2 || jobsRan.length < 2) && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 20));
      }
      assert.deepEqual(
        [sent, jobsRan],
        [
          [1, 2],
          [1, 2],
        ],
        'woken long before their 60 s poll',
      );
    } finally {
      await r.stop();
    }
  });

  test('stop tells a queue to claim no more and waits for its round', async () => {
    let release: () => void = () => {};
    let sawStop = false;
    let finished = false;
    const r = new JobRunner({
      database: h.service.ctx.database,
      outage: h.service.ctx.outage,
      clock: h.clock,
      log,
      handlers: {},
      queues: [
        {
          name: 'slow queue',
          async runDue(stopping) {
            await new Promise<void>((res) => (release = res));
            sawStop = stopping();
            finished = true;
            return 1;
          },
        },
      ],
    });
    r.start();
    await new Promise((res) => setTimeout(res, 50));
    const stopped = r.stop();
    release();
    await stopped;
    assert.equal(finished, true, 'stop waited for the round');
    assert.equal(sawStop, true, 'the round was told to stop');
  });

  test('retry delays grow exponentially with jitter and are capped at an hour', () => {
    assert.equal(
      retryDelayMs(1, () => 0.5),
      2000,
    );
    assert.equal(
      retryDelayMs(2, () => 0.5),
      4000,
    );
    assert.equal(
      retryDelayMs(5, () => 0.5),
      32_000,
    );
    assert.equal(
      retryDelayMs(30, () => 0.5),
      3600_000,
    );
    assert.equal(
      retryDelayMs(3, () => 0),
      6400,
    );
    assert.equal(
      retryDelayMs(3, () => 1),
      9600,
    );
  });
});
