// The dispatcher's fan-out by batch: each outbox event becomes one delivery per enabled endpoint of
// its organization subscribed to its type, with one job each, whatever the batch holds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, inArray, isNull } from 'drizzle-orm';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { writeOutboxEvents } from '../../src/webhooks/outbox.ts';
import { dispatchOutbox, WEBHOOK_DELIVER_JOB } from '../../src/webhooks/webhook-deliveries.ts';
import { createWebhookEndpoint, disableWebhookEndpoint } from '../../src/webhooks/webhook-endpoints.ts';
import { outboxEvents, webhookDeliveries } from '../../src/webhooks/webhooks.schema.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';

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
  assert.equal((await db.select().from(outboxEvents).where(isNull(outboxEvents.dispatchedAt))).length, 0);

  const made = await db.select().from(webhookDeliveries);
  const byEndpoint = (id: string) => made.filter((d) => d.endpointId === id).map((d) => d.eventType);
  assert.deepEqual(byEndpoint(paidA), ['order.paid', 'order.paid', 'order.paid']);
  assert.deepEqual(byEndpoint(refundedA), ['order.refunded']);
  assert.deepEqual(byEndpoint(disabledA), []);
  assert.deepEqual(byEndpoint(bothB).sort(), ['order.paid', 'order.refunded']);
  assert.equal(made.length, 6, 'organization c has no endpoint');
  assert.ok(made.every((d) => d.status === 'pending' && d.nextAttemptAt?.getTime() === now.getTime()));

  const queued = await db
    .select()
    .from(jobs)
    .where(
      inArray(
        jobs.dedupeKey,
        made.map((d) => `${WEBHOOK_DELIVER_JOB}:${d.id}`),
      ),
    );
  assert.deepEqual(
    queued.map((j) => j.payload.delivery_id).sort(),
    made.map((d) => d.id).sort(),
    'one job per delivery',
  );

  // nothing left to take: another run makes no delivery
  await h.service.ctx.database.transaction((tx) => dispatchOutbox(tx, now, 5));
  assert.equal((await db.select().from(webhookDeliveries)).length, 6);
  assert.equal((await db.select().from(jobs).where(eq(jobs.kind, WEBHOOK_DELIVER_JOB))).length, 6);
});
