// The sender's intake from the outbox queue: each event taken becomes a first attempt per enabled
// endpoint of its organization subscribed to its type, its queue row leased until they are
// recorded; an event with none leaves the queue at once, and a lease that ran out gives the
// event again, without the endpoints already recorded.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { takeFreshDeliveries } from '../../src/webhooks/deliver-webhook.ts';
import { recordAttempts } from '../../src/webhooks/record-attempts.ts';
import { writeOutboxEvents } from '../../src/webhooks/outbox.ts';
import { readPendingDeliveries } from '../../src/webhooks/webhook-backlog.ts';
import { insertWebhookEndpoint, disableWebhookEndpoint } from '../../src/webhooks/webhook-endpoints.ts';
import { outboxEvents, outboxQueue, webhookDeliveries } from '../../src/webhooks/webhooks.schema.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { enqueueJob } from '../../src/platform/jobs.ts';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { eq } from 'drizzle-orm';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('an intake takes events in order, one first attempt per subscribed, enabled endpoint', async () => {
  const ctx = h.service.ctx;
  const db = ctx.database.db;
  const now = h.clock.now();
  const [a, b, c] = [await makePartner(h), await makePartner(h), await makePartner(h)];
  const endpoint = async (organizationId: string, eventTypes: string[]) =>
    (await insertWebhookEndpoint(db, { organizationId, url: 'https://hooks.example/x', eventTypes, now }))
      .endpoint.id;
  const paidA = await endpoint(a.organizationId, ['order.paid']);
  const refundedA = await endpoint(a.organizationId, ['order.refunded']);
  const disabledA = await endpoint(a.organizationId, ['order.paid']);
  await disableWebhookEndpoint(db, disabledA, 'manual', now);
  const bothB = await endpoint(b.organizationId, ['order.paid', 'order.refunded']);
  // apart by a millisecond each: the queue keeps one statement's events in created_at order
  let written = 0;
  const event = (organizationId: string, type: string) => ({
    organizationId,
    type,
    data: {},
    at: new Date(now.getTime() + written++),
  });
  await writeOutboxEvents(db, [
    event(a.organizationId, 'order.paid'),
    event(c.organizationId, 'order.paid'),
    event(a.organizationId, 'order.refunded'),
    event(b.organizationId, 'order.paid'),
    event(b.organizationId, 'order.refunded'),
    event(a.organizationId, 'order.paid'),
  ]);
  const followed: string[] = [];
  const follower = (e: { type: string }) => (followed.push(e.type), null);

  const first = await takeFreshDeliveries(ctx, 4, [follower]);
  const second = await takeFreshDeliveries(ctx, 4, [follower]);
  assert.deepEqual(await takeFreshDeliveries(ctx, 4, [follower]), [], 'every event is taken or leased');
  const pairs = (list: typeof first) => list.map((d) => [d.endpoint.id, d.fresh!.type]);
  assert.deepEqual(pairs(first), [
    [paidA, 'order.paid'],
    [refundedA, 'order.refunded'],
    [bothB, 'order.paid'],
  ]);
  assert.deepEqual(pairs(second), [
    [bothB, 'order.refunded'],
    [paidA, 'order.paid'],
  ]);
  assert.equal(followed.length, 6, 'the followers see every event taken');
  assert.equal((await db.select().from(webhookDeliveries)).length, 0, 'no delivery row before its record');
  assert.equal((await db.select().from(outboxQueue)).length, 5, 'organization c’s event left the queue');

  // Recorded and released: those rows go. The rest stay leased until their leases run out.
  const sentAt = h.clock.now();
  const finished = first.map((delivery) => ({
    delivery,
    result: { status: 200, latencyMs: 3, error: null, excerpt: null, retryAfter: null },
    outcome: { delivery: 'delivered' as const, endpoint: 'healthy' as const, nextAttemptAt: null },
    error: null,
    sentAt,
    done: sentAt,
  }));
  const [recorded, left] = [finished.slice(0, 2), finished.slice(2)];
  assert.deepEqual(await recordAttempts(ctx, recorded, [first[0]!.fresh!.seq, first[1]!.fresh!.seq]), []);
  const rows = await db.select().from(webhookDeliveries);
  assert.deepEqual(
    rows.map((d) => [d.endpointId, d.status, d.attempts]).sort(),
    [
      [paidA, 'delivered', 1],
      [refundedA, 'delivered', 1],
    ].sort(),
  );
  assert.equal((await db.select().from(outboxQueue)).length, 3);

  h.clock.advance(ctx.config.webhooks.timeoutMs + 31_000);
  const again = await takeFreshDeliveries(ctx, 10);
  assert.deepEqual(pairs(again).sort(), [...pairs(left.map((f) => f.delivery)), ...pairs(second)].sort());
});

test('an event written for one endpoint or stream only is never queued', async () => {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const { organizationId } = await makePartner(h);
  await db.insert(outboxEvents).values([
    {
      id: 'msg_marked_one',
      organizationId,
      type: 'order.paid',
      payload: {},
      createdAt: now,
      dispatchedAt: now,
    },
    { id: 'msg_queued_one', organizationId, type: 'order.paid', payload: {}, createdAt: now },
  ]);
  const queued = (await db.select().from(outboxQueue)).map((q) => q.eventId);
  assert.ok(queued.includes('msg_queued_one'), 'the unmarked event is queued');
  assert.ok(!queued.includes('msg_marked_one'), 'the marked event is not');
});

test('the recurring webhook.dispatch job of an earlier release is removed; the sender takes the event', async () => {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const partner = await makePartner(h);
  const { endpoint } = await insertWebhookEndpoint(db, {
    organizationId: partner.organizationId,
    url: 'https://hooks.example/x',
    eventTypes: ['order.paid'],
    now,
  });
  const dedupeKey = 'recurring:webhook.dispatch';
  await enqueueJob(db, { kind: 'webhook.dispatch', runAt: now, dedupeKey, maxAttempts: 1000 });
  await writeOutboxEvents(db, [
    { organizationId: partner.organizationId, type: 'order.paid', data: {}, at: now },
  ]);
  await h.service.jobs.runDue();
  assert.deepEqual(await db.select().from(jobs).where(eq(jobs.dedupeKey, dedupeKey)), []);
  const made = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
  assert.equal(made.length, 1);
});

test('a queued event counts as a delivery due since it was written, for the delivery lag', async () => {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const { organizationId } = await makePartner(h);
  await db.delete(outboxQueue); // the events the tests before left
  const before = await readPendingDeliveries(h.service.ctx.database, now, 100);
  const writtenAt = new Date(now.getTime() - 90_000);
  await writeOutboxEvents(db, [{ organizationId, type: 'order.paid', data: {}, at: writtenAt }]);
  const after = await readPendingDeliveries(h.service.ctx.database, now, 100);
  assert.equal(after.oldestDueAt?.getTime(), writtenAt.getTime());
  assert.equal(after.pending, before.pending, 'no delivery row is made by queueing');
});
