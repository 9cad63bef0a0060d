// The SDK's webhook verification: real deliveries (order.paid and test) from the service to a
// loopback receiver verify into typed events; a tampered body, a wrong secret, another id, a stale
// timestamp or a missing header throw WebhookVerificationError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { TicketingClient, verifyWebhook, WebhookVerificationError } from '../../packages/sdk/src/index.ts';
import { newWebhookSecret, signWebhook } from '../../src/webhooks/sign-webhook.ts';
import type { Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  makeShop,
  pump,
  sendTestEvent,
  startReceiver,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';
import { startListeningService } from './sdk-helpers.ts';

let h: Harness;
let api: string;
let shop: Shop;
let receiver: Receiver;
let endpoint: { id: string; secret: string };
let client: TicketingClient;

before(async () => {
  ({ h, api } = await startListeningService({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIME_SCALE: '0.0001',
    WEBHOOK_TIMEOUT_MS: '2000',
  }));
  shop = await makeShop(h);
  receiver = await startReceiver();
  endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url);
  client = new TicketingClient({
    clientId: shop.partner.clientId,
    clientSecret: shop.partner.clientSecret,
    baseUrl: api,
  });
});
after(async () => {
  await receiver?.close();
  await h?.close();
});

const expectRefused = (fn: () => unknown, pattern?: RegExp) =>
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    if (pattern) assert.match(error.message, pattern);
    return true;
  });

describe('webhooks.verify on real deliveries', () => {
  test('an order.paid delivery verifies into the typed event; a tampered one throws', async () => {
    const order = await client.orders.create({
      event_id: shop.eventId,
      items: [{ ticket_type_id: shop.freeTicket, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    });
    assert.equal(order.status, 'paid', 'a free order is paid at once');
    await pump(h, () => receiver.requests.some((r) => r.body.includes(order.id)));
    const delivery = receiver.requests.find((r) => r.body.includes(order.id))!;

    const event = client.webhooks.verify(delivery.body, delivery.headers, endpoint.secret);
    assert.equal(event.type, 'order.paid');
    if (event.type !== 'order.paid') return;
    assert.equal(event.data.id, order.id);
    assert.equal(event.data.order_code, order.order_code);
    assert.equal(event.data.status, 'paid');
    // The same bytes as a Buffer and the headers as a fetch Headers verify too.
    const asHeaders = new Headers(delivery.headers as Record<string, string>);
    assert.equal(verifyWebhook(Buffer.from(delivery.body), asHeaders, endpoint.secret).type, 'order.paid');

    const tampered = delivery.body.replace(order.order_code, 'ZZZZZZZZ');
    assert.notEqual(tampered, delivery.body);
    expectRefused(() => client.webhooks.verify(tampered, delivery.headers, endpoint.secret));
    expectRefused(() => client.webhooks.verify(delivery.body, delivery.headers, newWebhookSecret()));
  });

  test('a test delivery verifies as a test event', async () => {
    await sendTestEvent(h, endpoint.id);
    await pump(h, () => receiver.requests.some((r) => r.body.includes('"type":"test"')));
    const delivery = receiver.requests.find((r) => r.body.includes('"type":"test"'))!;
    const event = verifyWebhook(delivery.body, delivery.headers, endpoint.secret);
    assert.equal(event.type, 'test');
    if (event.type === 'test') assert.equal(event.data.endpoint_id, endpoint.id);
  });
});

describe('webhooks.verify refusals', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = '{"type":"order.paid","timestamp":"2026-01-01T00:00:00.000Z","data":{"id":"ord_1"}}';
  // Read at each use: the harness may have taken a while to start before these run.
  const seconds = () => Math.floor(Date.now() / 1000);
  const signed = (at = seconds(), id = 'msg_1') => ({
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': signWebhook(secret, id, at, body),
  });

  test('accepts the right signature among several (a rotation), within five minutes', () => {
    const headers = {
      ...signed(),
      'webhook-signature': `v1,bm90LXRoaXMtb25l ${signed()['webhook-signature']}`,
    };
    assert.equal(verifyWebhook(body, headers, secret).type, 'order.paid');
    assert.equal(verifyWebhook(body, signed(seconds() - 240), secret).type, 'order.paid');
  });

  test('refuses another id, an old or future timestamp, and missing headers', () => {
    expectRefused(() => verifyWebhook(body, { ...signed(), 'webhook-id': 'msg_2' }, secret));
    expectRefused(() => verifyWebhook(body, signed(seconds() - 600), secret), /timestamp/i);
    expectRefused(() => verifyWebhook(body, signed(seconds() + 600), secret), /timestamp/i);
    expectRefused(() => verifyWebhook(body, { ...signed(), 'webhook-signature': '' }, secret), /signature/);
    expectRefused(() => verifyWebhook(body, { 'webhook-id': 'msg_1' }, secret), /missing/);
  });

  test('a verified body that is not an event is refused', () => {
    const text = '"just a string"';
    const now = seconds();
    const headers = {
      'webhook-id': 'msg_3',
      'webhook-timestamp': String(now),
      'webhook-signature': signWebhook(secret, 'msg_3', now, text),
    };
    expectRefused(() => verifyWebhook(text, headers, secret), /not a webhook event/);
  });
});
