// WEBHOOK_SEND_RATE: a backlog of events is taken from the outbox queue as it is sent, at the
// rate, so that it never takes the CPU requests need. Lower bounds only, counted from before the
// backlog: a slow machine can make a drain longer, never shorter.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeOutboxEvents } from '../../src/webhooks/outbox.ts';
import { webhookDeliveries } from '../../src/webhooks/webhooks.schema.ts';
import { eq } from 'drizzle-orm';
import type { Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  makeShop,
  pump,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from './webhook-helpers.ts';

const RATE = 40;
let h: Harness;
let receiver: Receiver;
before(async () => {
  h = await startWebhookHarness({ WEBHOOK_SEND_RATE: String(RATE), WEBHOOK_CONCURRENCY: '16' });
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await h.close();
});

test('a backlog is taken as it is sent, no faster than WEBHOOK_SEND_RATE', async () => {
  const shop = await makeShop(h);
  const endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.paid']);
  const count = 60;
  const at = h.clock.now();
  const started = Date.now();
  const event = { organizationId: shop.partner.organizationId, type: 'order.paid', data: {}, at };
  await writeOutboxEvents(
    h.service.ctx.database.db,
    Array.from({ length: count }, () => event),
  );

  await pump(h, () => receiver.requests.length >= count, 20_000);

  // The first batch may take every free place (16), and unused pace allows one more batch (8);
  // every send after them waits its turn. Counted from before the backlog was written: from the
  // first arrival, a first send held up in transit would shorten the span.
  assert.equal(receiver.requests.length, count, 'each delivery once');
  const spanMs = Math.max(...receiver.requests.map((r) => r.at)) - started;
  const paced = ((count - 16 - 8) * 1000) / RATE;
  assert.ok(
    spanMs >= paced,
    `${count} sends arrived within ${spanMs} ms; at ${RATE}/s they take ${paced} ms or more`,
  );
  // Each delivery's row is written once, with its first attempt: as paced as the sends.
  const made = await h.service.ctx.database.db
    .select({ createdAt: webhookDeliveries.createdAt, status: webhookDeliveries.status })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpoint.id));
  assert.equal(made.length, count);
  assert.ok(made.every((d) => d.status === 'delivered'));
  const created = made.map((d) => d.createdAt.getTime());
  assert.ok(Math.max(...created) - at.getTime() >= paced, 'the rows came as the sends did');
});
