// The retention pass as the job runner runs it: enqueued at start, run again a day after it ends;
// and its batches: a run out of time stops between two of them, and the next goes on from there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { ERASED } from '../../src/privacy/redact-orders.ts';
import { RETENTION_JOB, runRetentionPass, type RetentionProgress } from '../../src/privacy/retention-pass.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { DAY, makeRace, placeOrder, rowsOf, storedOrder } from './privacy-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness({ env: { RETENTION_BUYER_DATA_DAYS: '1' } });
});
after(() => h.close());

const retentionJob = async () =>
  (
    await rowsOf<{ run_at: Date | string; payload: Record<string, unknown> }>(
      h,
      sql`SELECT run_at, payload FROM jobs WHERE kind = ${RETENTION_JOB} AND failed_at IS NULL`,
    )
  ).map((job) => ({ runAt: new Date(job.run_at), payload: job.payload }));

/** Copies of an order (no registrations), for a batch larger than one transaction takes. */
async function cloneOrder(orderId: string, copies: number): Promise<void> {
  await h.service.ctx.database.db.execute(sql`
    INSERT INTO orders (id, organization_id, event_id, checkout_session_id, api_client_id, channel,
      checkout_mode, partner_reference, order_code, status, failure_kind, currency, subtotal,
      discount_total, donation_total, laces_fee, total, payment_method, buyer_name, buyer_email,
      buyer_phone, waiver_version, waiver_accepted_at, hold_expires_at, paid_after_expiry,
      client_ip_hash, paid_at, closed_at, created_at, updated_at)
    SELECT 'ord_clone' || lpad(g::text, 6, '0') || substr(id, 5, 12), organization_id, event_id,
      checkout_session_id, api_client_id, channel, checkout_mode, partner_reference,
      'C' || lpad(g::text, 7, '0'), status, failure_kind, currency, subtotal, discount_total,
      donation_total, laces_fee, total, payment_method, buyer_name, buyer_email, buyer_phone,
      waiver_version, waiver_accepted_at, hold_expires_at, paid_after_expiry, client_ip_hash,
      paid_at, closed_at, created_at + g * interval '1 millisecond', updated_at
    FROM orders, generate_series(1, ${copies}) AS g WHERE id = ${orderId}`);
}

describe('retention job', () => {
  test('is enqueued at start, runs when due and again a day after the pass ends', async () => {
    const [job] = await retentionJob();
    assert.ok(job, 'one live retention job');
    assert.ok(job.runAt.getTime() <= h.clock.now().getTime(), 'due at start');

    const race = await makeRace(h);
    const dan = { name: 'Dan Mugisha', email: 'dan.job@example.org', phone: '0772123459' };
    const order = (await placeOrder(h, race, dan)).id;
    await h.service.jobs.runDue();
    assert.equal((await storedOrder(h, order)).order!.buyer_email, dan.email, 'the event has not ended');

    // The event ends 30 days and 6 hours from now; RETENTION_BUYER_DATA_DAYS is 1.
    h.clock.advance(30 * DAY + 6 * 3600_000 + 2 * DAY);
    await h.service.jobs.runDue();
    assert.equal((await storedOrder(h, order)).order!.buyer_email, ERASED);
    const [next] = await retentionJob();
    const inHours = (next!.runAt.getTime() - h.clock.now().getTime()) / 3600_000;
    assert.ok(inHours > 23 && inHours <= 24, `next pass in ${inHours} hours`);
    assert.deepEqual(next!.payload, {});
  });

  test('a run out of time stops between batches of 500, and the next goes on where it stopped', async () => {
    const race = await makeRace(h);
    const eve = { name: 'Eve Akello', email: 'eve.job@example.org', phone: '0772123460' };
    const order = (await placeOrder(h, race, eve)).id;
    await cloneOrder(order, 700);
    h.clock.advance(30 * DAY + 6 * 3600_000 + 2 * DAY);
    const runs: Array<{ progress: RetentionProgress | null; redacted: number }> = [];
    let progress: RetentionProgress | null = null;
    for (let i = 0; i < 50; i++) {
      // no time at all: each run does one batch (or one event) and stops
      const result = await runRetentionPass(h.service.ctx, { now: h.clock.now(), progress, budgetMs: 0 });
      runs.push({ progress: result.progress, redacted: result.counts.orders_redacted ?? 0 });
      progress = result.progress;
      if (result.done) break;
    }
    assert.equal(runs.at(-1)!.progress, null, 'the pass ended');
    // 701 orders of one event: a batch of 500, then the rest in the next run
    assert.deepEqual(
      runs.filter((r) => r.redacted > 0).map((r) => r.redacted),
      [500, 201],
    );
    const left = await rowsOf(
      h,
      sql`SELECT count(*)::int AS n FROM orders WHERE event_id = ${race.eventId} AND buyer_email <> ${ERASED}`,
    );
    assert.deepEqual(left, [{ n: 0 }]);
    // every phase was gone through, one after another
    const phases = [...new Set(runs.flatMap((r) => (r.progress ? [r.progress.phase] : [])))];
    assert.deepEqual(phases, [
      'buyer_data',
      'webhook_deliveries',
      'webhook_events',
      'unpaid_orders',
      'checkout_sessions',
      'member_records',
    ]);
  });
});
