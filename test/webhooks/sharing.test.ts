// New events and retries share the sender's places: a backlog of due retries (an endpoint back
// after an outage) does not hold up another organization's new order.paid, nor the other way round.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  makeShop,
  payFreeOrder,
  sendTestEvent,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from './webhook-helpers.ts';

let h: Harness;
const receivers: Receiver[] = [];

before(async () => {
  h = await startWebhookHarness();
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** `count` deliveries pending and due for one endpoint of a shop of their own (test events). */
async function dueBacklog(count: number) {
  const shop = await makeShop(h);
  const to = await receiver();
  const endpoint = await createEndpoint(h, shop.partner.organizationId, to.url);
  for (let i = 0; i < count; i++) await sendTestEvent(h, endpoint.id);
  return to;
}

/** A shop whose endpoint takes order.paid, and its receiver. */
async function paidShop() {
  const shop = await makeShop(h);
  const to = await receiver();
  await createEndpoint(h, shop.partner.organizationId, to.url, ['order.paid']);
  return { shop, to };
}

test('a new event goes out with the first batches, ahead of a backlog of due retries', async () => {
  const width = h.service.ctx.config.webhooks.concurrency;
  const backlog = await dueBacklog(3 * width);
  const { shop, to } = await paidShop();
  await payFreeOrder(h, shop);
  await h.service.jobs.runDue();
  assert.equal(backlog.requests.length, 3 * width);
  assert.equal(to.requests.length, 1);
  const ahead = backlog.requests.filter((r) => r.at < to.requests[0]!.at).length;
  // It goes out in the first batch; the second may start before it arrives.
  assert.ok(ahead < 2 * width, `${ahead} of ${3 * width} retries arrived before the new event`);
});

test('retries keep half the places while new events keep coming', async () => {
  const width = h.service.ctx.config.webhooks.concurrency;
  const backlog = await dueBacklog(width);
  const { shop, to } = await paidShop();
  for (let i = 0; i < 3 * width; i++) await payFreeOrder(h, shop);
  await h.service.jobs.runDue();
  assert.equal(to.requests.length, 3 * width);
  assert.equal(backlog.requests.length, width);
  const lastRetry = Math.max(...backlog.requests.map((r) => r.at));
  const freshBefore = to.requests.filter((r) => r.at < lastRetry).length;
  assert.ok(
    freshBefore < 2 * width,
    `${freshBefore} new events went out before the last of ${width} retries, fewer than ${2 * width}`,
  );
});
