import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import {
  enqueueJob,
  JobRunner,
  retryDelayMs,
  type JobHandler,
  type JobRow,
} from '../../src/platform/jobs.ts';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { openDatabase } from '../../src/platform/db.ts';
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
  return new JobRunner({ database, clock: h.clock, log, handlers, leaseMs: 60_000 });
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

  test('a lane works its kind several at once, up to its width; other kinds one at a time', async () => {
    const wide = freshKind();
    const narrow = freshKind();
    const db = h.service.ctx.database.db;
    for (let i = 0; i < 12; i++) {
      await enqueueJob(db, { kind: i % 2 ? wide : narrow, payload: { i }, runAt: h.clock.now() });
    }
    const inFlight = { [wide]: 0, [narrow]: 0 };
    const most = { [wide]: 0, [narrow]: 0 };
    const handler = async ({ job }: { job: JobRow }) => {
      most[job.kind] = Math.max(most[job.kind]!, ++inFlight[job.kind]!);
      await new Promise((r) => setTimeout(r, 20));
      inFlight[job.kind]!--;
    };
    // the lane's kind as webhook sends are: outside a transaction (PGlite runs one at a time)
    const r = new JobRunner({
      database: h.service.ctx.database,
      clock: h.clock,
      log,
      handlers: { [wide]: { outsideTransaction: true, run: handler }, [narrow]: handler },
      lanes: { [wide]: 3 },
    });
    assert.equal(await r.runDue(), 12);
    assert.equal(most[wide], 3, 'the lane is full, never wider');
    assert.equal(most[narrow], 1);
    assert.equal((await jobRows(wide)).length + (await jobRows(narrow)).length, 0);
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
