// WEBHOOK_SEND_RATE: a backlog is fanned out a slice of 50 events per transaction at twice the
// rate, and sent at the rate, so that it never takes the CPU requests need. Lower bounds only: a
// slow machine can make a drain longer, never shorter.
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

test('a backlog is fanned out in slices and sent no faster than WEBHOOK_SEND_RATE', async () => {
  const shop = await makeShop(h);
  const endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.paid']);
  const count = 60;
  const at = h.clock.now();
  const event = { organizationId: shop.partner.organizationId, type: 'order.paid', data: {}, at };
  await writeOutboxEvents(
    h.service.ctx.database.db,
    Array.from({ length: count }, () => event),
  );

  await pump(h, () => receiver.requests.length >= count, 20_000);

  // Two slices, 50 then 10, the second after a pause of 50 events at twice the rate (625 ms).
  const made = await h.service.ctx.database.db
    .select({ createdAt: webhookDeliveries.createdAt })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpoint.id));
  const slices = new Map<number, number>();
  for (const { createdAt } of made)
    slices.set(createdAt.getTime(), (slices.get(createdAt.getTime()) ?? 0) + 1);
  assert.deepEqual([...slices.values()], [50, 10]);
  const [first, second] = [...slices.keys()];
  const pauseMs = (50 * 1000) / (2 * RATE);
  assert.ok(second! - first! >= pauseMs - 5, `the second slice came ${second! - first!} ms after the first`);

  // The first claim may take every free place (16); every send after it waits its turn.
  assert.equal(receiver.requests.length, count, 'each delivery once');
  const times = receiver.requests.map((r) => r.at).sort((a, b) => a - b);
  const spanMs = times.at(-1)! - times[0]!;
  const paced = ((count - 16 - 8) * 1000) / RATE;
  assert.ok(
    spanMs >= paced,
    `${count} sends arrived within ${spanMs} ms; at ${RATE}/s they take ${paced} ms or more`,
  );
});
