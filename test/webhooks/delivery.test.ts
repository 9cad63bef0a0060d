// Delivery end to end: order.paid from the outbox to real receivers on loopback, signed (checked by
// the standardwebhooks package), retried on the schedule with the same webhook-id, 410 and five days
// of failures disabling, secret rotation, test events, the attempt log and replays.
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admin, dataOf } from '../admin/admin-helpers.ts';
import { bearer, resolveNoNames, type Harness } from '../helpers/harness.ts';
import type { Resolver } from '../../src/webhooks/send-webhook.ts';
import {
  createEndpoint,
  createOrder,
  deliveriesOf,
  getEndpoint,
  makeShop,
  payFreeOrder,
  pump,
  pumpFor,
  readOrder,
  sendTestEvent,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type ReceivedRequest,
  type Receiver,
} from './webhook-helpers.ts';

const DAY = 24 * 3600 * 1000;

let h: Harness;
const receivers: Receiver[] = [];
/** What the service's resolver answers: no name, unless a test gives names of its own. */
let resolveWith: Resolver = resolveNoNames;

before(async () => {
  h = await startWebhookHarness({}, { service: { webhookResolver: (hostname) => resolveWith(hostname) } });
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** Verified with the standardwebhooks package at the service clock's time. */
function verify(secret: string, request: ReceivedRequest) {
  return verifyDelivery(secret, request, h.clock.now());
}

describe('order.paid', () => {
  test('a free order reaches each of two endpoints exactly once, signed, with the full Order', async () => {
    const shop = await makeShop(h);
    const [r1, r2, other, off] = [await receiver(), await receiver(), await receiver(), await receiver()];
    const e1 = await createEndpoint(h, shop.partner.organizationId, r1.url);
    const e2 = await createEndpoint(h, shop.partner.organizationId, r2.url, ['order.paid']);
    const disabled = await createEndpoint(h, shop.partner.organizationId, off.url);
    dataOf(await admin(h, { method: 'POST', url: `/webhook-endpoints/${disabled.id}/disable` }), 200);
    const stranger = await makeShop(h);
    await createEndpoint(h, stranger.partner.organizationId, other.url);

    const order = await payFreeOrder(h, shop);
    await pump(h, () => r1.requests.length >= 1 && r2.requests.length >= 1);
    await pumpFor(h, 300);
    assert.equal(r1.requests.length, 1);
    assert.equal(r2.requests.length, 1);
    assert.equal(other.requests.length, 0, 'another organization hears nothing');
    assert.equal(off.requests.length, 0, 'a disabled endpoint hears nothing');

    const expected = await readOrder(h, shop, order.id);
    for (const [r, secret] of [
      [r1, e1.secret],
      [r2, e2.secret],
    ] as const) {
      const request = r.requests[0]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/hooks');
      assert.match(String(request.headers['content-type']), /^application\/json/);
      assert.match(String(request.headers['webhook-id']), /^msg_[A-Za-z0-9]{24}$/);
      const payload = verify(secret, request);
      assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data']);
      assert.equal(payload.type, 'order.paid');
      assert.match(payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(payload.data, expected);
    }
    assert.equal(r1.requests[0]!.headers['webhook-id'], r2.requests[0]!.headers['webhook-id']);
    const [delivery] = await deliveriesOf(h, e1.id);
    assert.equal(delivery!.status, 'delivered');
    assert.equal(delivery!.attempt_count, 1);
    assert.equal(delivery!.event_type, 'order.paid');
    assert.equal(delivery!.webhook_id, r1.requests[0]!.headers['webhook-id']);
  });

  test('a mobile-money order reaches each of two endpoints exactly once when it is paid', async () => {
    const shop = await makeShop(h);
    const [r1, r2] = [await receiver(), await receiver()];
    const e1 = await createEndpoint(h, shop.partner.organizationId, r1.url);
    const e2 = await createEndpoint(h, shop.partner.organizationId, r2.url);
    const order = await createOrder(h, shop, shop.paidTicket);
    assert.equal(order.status, 'pending');
    const pay = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/pay`,
      headers: bearer(shop.token),
      payload: { payment_method: 'momo', phone: '0770000001' },
    });
    assert.equal(pay.statusCode, 202, pay.body);
    await pump(h, () => r1.requests.length >= 1 && r2.requests.length >= 1);
    await pumpFor(h, 300);
    assert.equal(r1.requests.length, 1);
    assert.equal(r2.requests.length, 1);
    const paid = await readOrder(h, shop, order.id);
    assert.equal(paid.status, 'paid');
    assert.deepEqual(verify(e1.secret, r1.requests[0]!).data, paid);
    assert.deepEqual(verify(e2.secret, r2.requests[0]!).data, paid);
    assert.throws(
      () => verify(e1.secret, r2.requests[0]!),
      /signature/,
      "one endpoint's secret is not another's",
    );
  });
});

describe('retries', () => {
  test('a receiver that fails 3 times then succeeds gets the same webhook-id each time', async () => {
    const shop = await makeShop(h);
    const statuses = [500, 503, 502];
    const r = await receiver((_req, previous) =>
      previous < 3
        ? { status: statuses[previous]!, body: `failure ${previous + 1}` }
        : { status: 200, body: 'ok' },
    );
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    await payFreeOrder(h, shop);
    await pump(h, () => r.requests.length >= 4);
    await pumpFor(h, 300);
    assert.equal(r.requests.length, 4);
    const ids = new Set(r.requests.map((req) => req.headers['webhook-id']));
    assert.equal(ids.size, 1, 'the same webhook-id on every retry');
    for (const request of r.requests) assert.equal(verify(endpoint.secret, request).type, 'order.paid');
    const [delivery] = await deliveriesOf(h, endpoint.id);
    assert.equal(delivery!.status, 'delivered');
    assert.equal(delivery!.attempt_count, 4);
    assert.deepEqual(
      delivery!.attempts.map((a: { status: number }) => a.status),
      [500, 503, 502, 200],
    );
    assert.deepEqual(
      delivery!.attempts.map((a: { response_excerpt: string }) => a.response_excerpt),
      ['failure 1', 'failure 2', 'failure 3', 'ok'],
    );
    assert.equal(delivery!.attempts[0].error, 'HTTP 500');
    assert.equal(delivery!.attempts[3].error, null);
    assert.equal(
      (await getEndpoint(h, endpoint.id)).failing_since,
      null,
      'a success ends the failure streak',
    );
  });

  test('a receiver that does not answer in time is retried', async () => {
    const shop = await makeShop(h);
    const r = await receiver((_req, previous) => (previous === 0 ? { hang: true } : { status: 202 }));
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    await payFreeOrder(h, shop);
    await pump(h, () => r.requests.length >= 2);
    await pump(h, async () => (await deliveriesOf(h, endpoint.id))[0]!.status === 'delivered');
    const [done] = await deliveriesOf(h, endpoint.id);
    assert.equal(done!.attempts[0].status, null);
    assert.match(done!.attempts[0].error, /no answer within 2000 ms/);
    assert.equal(done!.attempts[1].status, 202);
    assert.equal(r.requests[0]!.headers['webhook-id'], r.requests[1]!.headers['webhook-id']);
    verify(endpoint.secret, r.requests[1]!);
  });

  test('a host name goes through the resolver, and the connection goes to the address it returned', async () => {
    const shop = await makeShop(h);
    const r = await receiver();
    const asked: string[] = [];
    resolveWith = async (hostname) => {
      asked.push(hostname);
      return hostname === 'receiver.example.test' ? [{ address: '127.0.0.1', family: 4 }] : [];
    };
    const endpoint = await createEndpoint(
      h,
      shop.partner.organizationId,
      `http://receiver.example.test:${r.port}/hooks`,
    );
    await sendTestEvent(h, endpoint.id);
    await pump(h, () => r.requests.length >= 1);
    assert.equal(r.requests[0]!.headers.host, `receiver.example.test:${r.port}`);
    verify(endpoint.secret, r.requests[0]!);
    assert.deepEqual(
      asked,
      ['receiver.example.test', 'receiver.example.test'],
      'at creation and at delivery',
    );
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const shop = await makeShop(h);
    const elsewhere = await receiver();
    const r = await receiver((_req, previous) =>
      previous === 0 ? { status: 307, headers: { location: elsewhere.url } } : { status: 200 },
    );
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    await payFreeOrder(h, shop);
    await pump(h, () => r.requests.length >= 2);
    assert.equal(elsewhere.requests.length, 0);
    const [delivery] = await deliveriesOf(h, endpoint.id);
    assert.deepEqual(
      delivery!.attempts.map((a: { status: number }) => a.status),
      [307, 200],
    );
  });

  test('an endless response body is read only up to its cap', async () => {
    const shop = await makeShop(h);
    let server: Server | null = null;
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'z'.repeat(1024);
      const timer = setInterval(() => res.write(chunk), 1); // never ends
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const endpoint = await createEndpoint(h, shop.partner.organizationId, url);
      await payFreeOrder(h, shop);
      await pump(h, async () => (await deliveriesOf(h, endpoint.id))[0]?.status === 'delivered');
      const [delivery] = await deliveriesOf(h, endpoint.id);
      assert.equal(delivery!.attempts.length, 1);
      assert.equal(delivery!.attempts[0].response_excerpt, 'z'.repeat(1024));
      // Read to the deadline, the attempt would have failed with "no answer within".
      assert.equal(delivery!.attempts[0].error, null, 'stopped reading at the cap');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
  });
});

describe('disabling', () => {
  test('410 Gone disables the endpoint and nothing more is sent to it', async () => {
    const shop = await makeShop(h);
    const r = await receiver(() => ({ status: 410, body: 'gone' }));
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    await payFreeOrder(h, shop);
    await pump(h, async () => (await getEndpoint(h, endpoint.id)).status === 'disabled');
    const disabled = await getEndpoint(h, endpoint.id);
    assert.equal(disabled.disabled_reason, 'gone');
    assert.ok(disabled.disabled_at);
    const [delivery] = await deliveriesOf(h, endpoint.id);
    assert.equal(delivery!.status, 'failed');
    assert.equal(delivery!.last_status, 410);

    await payFreeOrder(h, shop);
    await pumpFor(h, 300);
    assert.equal(r.requests.length, 1);
    assert.equal(
      (await deliveriesOf(h, endpoint.id)).length,
      1,
      'no delivery is made for a disabled endpoint',
    );
  });

  test('an endpoint failing for 5 days straight is disabled and the organization is told', async () => {
    const shop = await makeShop(h);
    const r = await receiver(() => ({ status: 500 }));
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    await sendTestEvent(h, endpoint.id); // a pending delivery that disabling must cancel
    await payFreeOrder(h, shop);
    await pump(h, () => r.requests.length >= 2);
    const failing = await getEndpoint(h, endpoint.id);
    assert.equal(failing.status, 'enabled');
    assert.ok(failing.failing_since);

    const warn = mock.method(h.service.ctx.log, 'warn');
    try {
      h.clock.advance(5 * DAY + 60_000);
      await pump(h, async () => (await getEndpoint(h, endpoint.id)).status === 'disabled');
      const disabled = await getEndpoint(h, endpoint.id);
      assert.equal(disabled.disabled_reason, 'failing');
      assert.equal(disabled.failing_since, failing.failing_since);
      const told = warn.mock.calls.find((c) => /failing for 5 days/.test(String(c.arguments[1])));
      assert.ok(told, 'logged');
      assert.equal(
        (told.arguments[0] as { organization_id: string }).organization_id,
        shop.partner.organizationId,
      );
      assert.equal((told.arguments[0] as { endpoint_id: string }).endpoint_id, endpoint.id);
      const listed = dataOf(
        await admin(h, { url: `/organizations/${shop.partner.organizationId}/webhook-endpoints` }),
        200,
      );
      assert.equal(listed.webhook_endpoints[0].disabled_reason, 'failing');
      const statuses = (await deliveriesOf(h, endpoint.id)).map((d) => d.status).sort();
      assert.ok(!statuses.includes('pending'), statuses.join());
      for (const request of r.requests)
        verifyDelivery(
          endpoint.secret,
          request,
          new Date(Number(request.headers['webhook-timestamp']) * 1000),
        );
    } finally {
      warn.mock.restore();
    }

    // Enabling starts a clean slate.
    const enabled = dataOf(
      await admin(h, { method: 'POST', url: `/webhook-endpoints/${endpoint.id}/enable` }),
      200,
    );
    assert.equal(enabled.status, 'enabled');
    assert.equal(enabled.disabled_reason, null);
    assert.equal(enabled.failing_since, null);
  });
});

describe('secrets, test events, the log and replays', () => {
  test('after a rotation the old and new secrets both sign for 24 hours, then only the new one', async () => {
    const shop = await makeShop(h);
    const r = await receiver();
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    const rotated = dataOf(
      await admin(h, { method: 'POST', url: `/webhook-endpoints/${endpoint.id}/rotate-secret` }),
      200,
    );
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, endpoint.secret);
    assert.equal(Date.parse(rotated.previous_secret_expires_at) - h.clock.now().getTime() > DAY - 5000, true);

    await sendTestEvent(h, endpoint.id);
    await pump(h, () => r.requests.length >= 1);
    const during = r.requests[0]!;
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
    verify(endpoint.secret, during);
    verify(rotated.secret, during);

    h.clock.advance(DAY + 1000);
    await sendTestEvent(h, endpoint.id);
    await pump(h, () => r.requests.length >= 2);
    const afterwards = r.requests[1]!;
    assert.equal(String(afterwards.headers['webhook-signature']).split(' ').length, 1);
    verify(rotated.secret, afterwards);
    assert.throws(() => verify(endpoint.secret, afterwards), /No matching signature/);
    assert.equal((await getEndpoint(h, endpoint.id)).previous_secret_expires_at, null);
  });

  test('a test event is sent on demand, signed like any other', async () => {
    const shop = await makeShop(h);
    const r = await receiver();
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    const queued = await sendTestEvent(h, endpoint.id);
    assert.equal(queued.status, 'pending');
    assert.equal(queued.event_type, 'test');
    assert.match(queued.id, /^whd_/);
    assert.match(queued.webhook_id, /^msg_/);
    await pump(h, () => r.requests.length >= 1);
    const payload = verify(endpoint.secret, r.requests[0]!);
    assert.equal(payload.type, 'test');
    assert.equal(payload.data.endpoint_id, endpoint.id);
    assert.equal(r.requests[0]!.headers['webhook-id'], queued.webhook_id);
    const detail = dataOf(
      await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries/${queued.id}` }),
      200,
    );
    assert.equal(detail.status, 'delivered');
  });

  test('the delivery log shows each attempt (time, status, latency, excerpt); retry replays one', async () => {
    const shop = await makeShop(h);
    const r = await receiver((_req, previous) =>
      previous === 0
        ? { status: 500, body: `${'e'.repeat(3000)}` }
        : { status: 200, body: '{"received":true}' },
    );
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    await payFreeOrder(h, shop);
    await pump(h, async () => (await deliveriesOf(h, endpoint.id))[0]?.status === 'delivered');
    const [delivery] = await deliveriesOf(h, endpoint.id);
    assert.equal(delivery!.attempts.length, 2);
    const [first, second] = delivery!.attempts;
    assert.equal(first.status, 500);
    assert.equal(first.response_excerpt, 'e'.repeat(1024), 'at most 1 KB kept');
    assert.equal(typeof first.latency_ms, 'number');
    assert.ok(Date.parse(first.attempted_at) <= Date.parse(second.attempted_at));
    assert.equal(second.response_excerpt, '{"received":true}');
    assert.equal(delivery!.next_attempt_at, null);
    assert.ok(delivery!.delivered_at);

    const replay = await admin(h, {
      method: 'POST',
      url: `/webhook-endpoints/${endpoint.id}/deliveries/${delivery!.id}/retry`,
    });
    const queued = dataOf(replay, 202);
    assert.equal(queued.status, 'pending');
    await pump(h, () => r.requests.length >= 3);
    assert.equal(r.requests[2]!.headers['webhook-id'], delivery!.webhook_id, 'a replay keeps the webhook-id');
    verify(endpoint.secret, r.requests[2]!);
    await pump(h, async () => (await deliveriesOf(h, endpoint.id))[0]!.status === 'delivered');
    assert.equal((await deliveriesOf(h, endpoint.id))[0]!.attempt_count, 3);
  });

  test('deliveries page with a cursor and filter by status', async () => {
    const shop = await makeShop(h);
    const r = await receiver();
    const endpoint = await createEndpoint(h, shop.partner.organizationId, r.url);
    for (let i = 0; i < 5; i++) await sendTestEvent(h, endpoint.id);
    await pump(h, () => r.requests.length >= 5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = dataOf(
        await admin(h, {
          url: `/webhook-endpoints/${endpoint.id}/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        }),
        200,
      );
      seen.push(...page.deliveries.map((d: { id: string }) => d.id));
      assert.equal(page.has_more, page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5);
    const pending = dataOf(
      await admin(h, { url: `/webhook-endpoints/${endpoint.id}/deliveries?status=pending` }),
      200,
    );
    assert.equal(pending.deliveries.length, 0);
  });
});

describe('the real schedule (no time scale)', () => {
  let real: Harness;
  before(async () => {
    real = await startWebhookHarness({ WEBHOOK_TIME_SCALE: '1' });
  });
  after(() => real.close());

  test('the first retry comes 5 s after the first attempt (with at most 10 % jitter)', async () => {
    const shop = await makeShop(real);
    const r = await receiver((_req, previous) => (previous === 0 ? { status: 500 } : { status: 200 }));
    const endpoint = await createEndpoint(real, shop.partner.organizationId, r.url);
    await payFreeOrder(real, shop);
    await pump(real, () => r.requests.length >= 1);
    const [waiting] = await deliveriesOf(real, endpoint.id);
    const gap = Date.parse(waiting!.next_attempt_at) - Date.parse(waiting!.attempts[0].attempted_at);
    assert.ok(gap >= 5000 && gap <= 5600, `${gap} ms`);
    await pump(real, () => r.requests.length >= 2, 10_000);
    const observed = r.requests[1]!.at - r.requests[0]!.at;
    assert.ok(observed >= 4900, `${observed} ms`);
    assert.equal(r.requests[0]!.headers['webhook-id'], r.requests[1]!.headers['webhook-id']);
    verifyDelivery(endpoint.secret, r.requests[1]!);
  });

  test('Retry-After from the receiver is honoured, capped at a day', async () => {
    const shop = await makeShop(real);
    const r = await receiver((_req, previous) =>
      previous === 0
        ? { status: 429, headers: { 'retry-after': '120' } }
        : { status: 503, headers: { 'retry-after': String(30 * 24 * 3600) } },
    );
    const endpoint = await createEndpoint(real, shop.partner.organizationId, r.url);
    await payFreeOrder(real, shop);
    await pump(real, () => r.requests.length >= 1);
    const [first] = await deliveriesOf(real, endpoint.id);
    const gap = Date.parse(first!.next_attempt_at) - Date.parse(first!.attempts[0].attempted_at);
    assert.ok(gap >= 120_000 && gap < 121_000, `${gap} ms`);
    real.clock.advance(gap + 1000);
    await pump(real, () => r.requests.length >= 2);
    const [second] = await deliveriesOf(real, endpoint.id);
    const gap2 = Date.parse(second!.next_attempt_at) - Date.parse(second!.attempts[1].attempted_at);
    assert.ok(gap2 >= DAY && gap2 < DAY + 1000, `${gap2} ms`);
  });
});
