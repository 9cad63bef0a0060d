// The sender: sends to one receiver share kept-alive connections, a hanging receiver holds one place
// in flight while deliveries made after it go out, a batch's record survives a delivery deleted
// meanwhile, and each endpoint's failure streak after a batch follows its attempts' order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admin } from '../admin/admin-helpers.ts';
import type { Harness } from '../helpers/harness.ts';
import { claimDeliveries, sendDelivery, type FinishedAttempt } from '../../src/webhooks/deliver-webhook.ts';
import { healthOf, recordAttempts } from '../../src/webhooks/record-attempts.ts';
import {
  createEndpoint,
  deliveriesOf,
  makeShop,
  pump,
  sendTestEvent,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from './webhook-helpers.ts';

let h: Harness;
const receivers: Receiver[] = [];
const servers: Server[] = [];

before(async () => {
  h = await startWebhookHarness();
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await h.close();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

describe('webhook sender', () => {
  test('deliveries to one receiver share kept-alive connections', async () => {
    let connections = 0;
    let requests = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.writeHead(204).end();
      });
    });
    server.on('connection', () => connections++);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const shop = await makeShop(h);
    const endpoint = await createEndpoint(h, shop.partner.organizationId, url);
    const count = 40;
    for (let i = 0; i < count; i++) await sendTestEvent(h, endpoint.id);
    await pump(h, () => requests >= count);
    const widest = h.service.ctx.config.webhooks.concurrency;
    assert.ok(connections <= widest, `${connections} connections for ${count} sends, at most ${widest} open`);
    const deliveries = await deliveriesOf(h, endpoint.id);
    assert.equal(deliveries.filter((d) => d.status === 'delivered').length, count);
  });

  test('a hanging receiver holds one place; deliveries made meanwhile go out before it times out', async () => {
    const shop = await makeShop(h);
    const hanging = await receiver(() => ({ hang: true }));
    const quick = await receiver();
    const slow = await createEndpoint(h, shop.partner.organizationId, hanging.url);
    const fast = await createEndpoint(h, shop.partner.organizationId, quick.url);
    await sendTestEvent(h, slow.id);
    const started = Date.now();
    const round = h.service.jobs.runDue();
    while (hanging.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 5; i++) await sendTestEvent(h, fast.id);
    while (quick.requests.length < 5 && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const quickDone = Date.now() - started;
    await round;
    const timeoutMs = h.service.ctx.config.webhooks.timeoutMs;
    assert.equal(quick.requests.length, 5);
    assert.ok(
      quickDone < timeoutMs,
      `the quick ones arrived after ${quickDone} ms, within the ${timeoutMs} ms hang`,
    );
    const [attempted] = await deliveriesOf(h, slow.id);
    assert.equal(attempted!.status, 'pending', 'the hanging one is retried');
    assert.match(String(attempted!.last_error), /no answer within/);
  });

  test('a batch is recorded even when one of its deliveries was deleted with its endpoint', async () => {
    const shop = await makeShop(h);
    const kept = await receiver();
    const gone = await receiver();
    const stays = await createEndpoint(h, shop.partner.organizationId, kept.url);
    const deleted = await createEndpoint(h, shop.partner.organizationId, gone.url);
    await sendTestEvent(h, stays.id);
    await sendTestEvent(h, deleted.id);
    const claimed = await claimDeliveries(h.service.ctx, { limit: 10 });
    const ours = claimed.filter((d) => [stays.id, deleted.id].includes(d.endpoint.id));
    assert.equal(ours.length, 2);
    const finished = await Promise.all(ours.map((d) => sendDelivery(h.service.ctx, d)));
    await admin(h, { method: 'DELETE', url: `/webhook-endpoints/${deleted.id}` });
    await recordAttempts(h.service.ctx, finished);
    const [delivery] = await deliveriesOf(h, stays.id);
    assert.equal(delivery!.status, 'delivered');
    assert.equal(delivery!.attempts.length, 1);
  });
});

describe('failure streaks after a batch', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const attempt = (endpointId: string, healthy: boolean, sentSecond: number) =>
    ({
      delivery: { endpoint: { id: endpointId } },
      outcome: { endpoint: healthy ? 'healthy' : 'failing' },
      sentAt: at(sentSecond),
    }) as unknown as FinishedAttempt;

  test('failures only start a streak at the first; a success last ends it', () => {
    assert.deepEqual(healthOf([attempt('a', false, 5), attempt('a', false, 3), attempt('b', true, 1)]), [
      { id: 'a', reset: false, since: at(3).toISOString() },
      { id: 'b', reset: true, since: null },
    ]);
  });

  test('failures after the last success start a new streak there', () => {
    assert.deepEqual(
      healthOf([
        attempt('a', false, 1),
        attempt('a', true, 2),
        attempt('a', false, 4),
        attempt('a', false, 3),
      ]),
      [{ id: 'a', reset: true, since: at(3).toISOString() }],
    );
  });
});
