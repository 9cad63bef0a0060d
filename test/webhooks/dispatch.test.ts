// The dispatcher's fan-out by batch: each outbox event becomes one delivery per enabled endpoint of
// its organization subscribed to its type, due at once, whatever the batch holds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeOutboxEvents } from '../../src/webhooks/outbox.ts';
import { dispatchOutbox } from '../../src/webhooks/webhook-deliveries.ts';
import { createWebhookEndpoint, disableWebhookEndpoint } from '../../src/webhooks/webhook-endpoints.ts';
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

test('a batch fans out to subscribed, enabled endpoints of each event’s organization only', async () => {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const [a, b, c] = [await makePartner(h), await makePartner(h), await makePartner(h)];
  const endpoint = async (organizationId: string, eventTypes: string[]) =>
    (await createWebhookEndpoint(db, { organizationId, url: 'https://hooks.example/x', eventTypes, now }))
      .endpoint.id;
  const paidA = await endpoint(a.organizationId, ['order.paid']);
  const refundedA = await endpoint(a.organizationId, ['order.refunded']);
  const disabledA = await endpoint(a.organizationId, ['order.paid']);
  await disableWebhookEndpoint(db, disabledA, 'manual', now);
  const bothB = await endpoint(b.organizationId, ['order.paid', 'order.refunded']);
  const event = (organizationId: string, type: string) => ({ organizationId, type, data: {}, at: now });
  await writeOutboxEvents(db, [
    event(a.organizationId, 'order.paid'),
    event(a.organizationId, 'order.paid'),
    event(a.organizationId, 'order.refunded'),
    event(b.organizationId, 'order.paid'),
    event(b.organizationId, 'order.refunded'),
    event(c.organizationId, 'order.paid'),
    event(a.organizationId, 'order.paid'),
  ]);

  // batches of 5: 5 events, then the other 2, then none
  const taken: number[] = [];
  for (let i = 0; i < 3; i++) {
    taken.push(await h.service.ctx.database.transaction((tx) => dispatchOutbox(tx, now, 5)));
  }
  assert.deepEqual(taken, [5, 2, 0]);
  assert.deepEqual(await db.select().from(outboxQueue), [], 'the queue is empty');

  const made = await db.select().from(webhookDeliveries);
  const byEndpoint = (id: string) => made.filter((d) => d.endpointId === id).map((d) => d.eventType);
  assert.deepEqual(byEndpoint(paidA), ['order.paid', 'order.paid', 'order.paid']);
  assert.deepEqual(byEndpoint(refundedA), ['order.refunded']);
  assert.deepEqual(byEndpoint(disabledA), []);
  assert.deepEqual(byEndpoint(bothB).sort(), ['order.paid', 'order.refunded']);
  assert.equal(made.length, 6, 'organization c has no endpoint');
  assert.ok(made.every((d) => d.status === 'pending' && d.nextAttemptAt?.getTime() === now.getTime()));

  // nothing left to take: another run makes no delivery
  await h.service.ctx.database.transaction((tx) => dispatchOutbox(tx, now, 5));
  assert.equal((await db.select().from(webhookDeliveries)).length, 6);
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

test('the recurring webhook.dispatch job of an earlier release is removed; the dispatcher queue fans out', async () => {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const partner = await makePartner(h);
  const { endpoint } = await createWebhookEndpoint(db, {
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
