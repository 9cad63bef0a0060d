// Partial refunds end to end, over real HTTP on a listening service with its jobs and webhook
// sender running and the in-process simulator: on each network a two-runner order is paid, one
// runner is refunded through POST /v1/orders/{id}/refunds, the partner's loopback receiver gets
// order.refunded (verified with the standardwebhooks package) with the order still paid and its
// refunded_total, then the rest is refunded and the order is refunded; the buyer's refund mails
// are in the development mailbox. Both networks alike: MTN's refund names the amount; Airtel's
// refund takes only whole payments, so there the runner's part goes back as a disbursement.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listDevMail } from '../../src/mail/mailbox.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import type { Harness } from '../helpers/harness.ts';
import { getToken, makeEvent, makePartner } from '../helpers/harness.ts';
import {
  createEndpoint,
  startReceiver,
  verifyDelivery,
  type Receiver,
  type WebhookPayload,
} from '../webhooks/webhook-helpers.ts';
import { startListeningHarness } from './browser-helpers.ts';

let h: Harness;
let api: string;
let receiver: Receiver;

before(async () => {
  ({ h, api } = await startListeningHarness({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await h?.close();
});

async function call(token: string, method: string, path: string, body?: unknown, key?: string) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(key && { 'idempotency-key': key }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function until<T>(what: string, read: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `${what} within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The verified order.refunded events received about the order, oldest first. */
function refundedEvents(secret: string, orderId: string): WebhookPayload[] {
  return receiver.requests
    .map((r) => ({ r, body: JSON.parse(r.body) as WebhookPayload }))
    .filter(({ body }) => body.type === 'order.refunded' && body.data.id === orderId)
    .map(({ r }) => verifyDelivery(secret, r))
    .sort((a, b) => a.data.refunded_total - b.data.refunded_total);
}

for (const method of ['momo', 'airtel'] as const) {
  describe(`refunds over HTTP, paid with ${method}`, () => {
    test('one runner, then the rest: order.refunded verified each time, and the refund mails', async () => {
      const partner = await makePartner(h);
      const token = await getToken(h, partner);
      const endpoint = await createEndpoint(h, partner.organizationId, receiver.url, ['order.refunded']);
      const event = await makeEvent(h, partner, {
        ticket_types: [{ name: '21 km', price_minor: 45000, capacity: 50, distance_km: 21 }],
      });
      const detail = await call(token, 'GET', `/v1/events/${event.id}`);
      const ticketTypeId = detail.body.data.ticket_types[0].ticket_type_id as string;
      const email = `buyer-${method}@example.org`;
      const created = await call(token, 'POST', '/v1/orders', {
        event_id: event.id,
        items: [
          { ticket_type_id: ticketTypeId, participant_name: 'Achieng Mary' },
          { ticket_type_id: ticketTypeId, participant_name: 'Mugisha Paul' },
        ],
        buyer: { name: 'Achieng Mary', email, phone: '0772555444' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const orderId = created.body.data.id as string;
      const [mary, paul] = created.body.data.registrations as Array<{ id: string }>;
      const paying = await call(token, 'POST', `/v1/orders/${orderId}/pay`, {
        payment_method: method,
        phone: testPhoneNumber(method, '01'),
      });
      assert.equal(paying.status, 202, JSON.stringify(paying.body));
      const paid = await until('paid', async () => {
        const read = await call(token, 'GET', `/v1/orders/${orderId}`);
        return read.body.data.status === 'paid' ? read.body.data : undefined;
      });
      const total = paid.total as number;

      const one = await call(
        token,
        'POST',
        `/v1/orders/${orderId}/refunds`,
        { registration_ids: [mary!.id], reason: 'Injured' },
        `refund-${orderId}-mary`,
      );
      assert.equal(one.status, 201, JSON.stringify(one.body));
      const first = one.body.data;
      assert.deepEqual(first.registration_ids, [mary!.id]);
      assert.equal(first.method, method);
      const [event1] = await until('the first order.refunded', () => {
        const got = refundedEvents(endpoint.secret, orderId);
        return got.length === 1 ? got : undefined;
      });
      assert.equal(event1!.data.status, 'paid');
      assert.equal(event1!.data.refunded_total, first.amount_minor);
      assert.ok(first.amount_minor < total);
      assert.equal(event1!.data.refund.id, first.id);
      assert.equal(event1!.data.refund.reason, 'Injured');
      assert.deepEqual(event1!.data.refund.registration_ids, [mary!.id]);
      // The simulator's ids: MTN's refund a number, Airtel's disbursement DSIM and digits.
      assert.match(
        String(event1!.data.refund.provider_reference),
        method === 'airtel' ? /^DSIM\d+$/ : /^\d+$/,
      );
      const partly = await call(token, 'GET', `/v1/orders/${orderId}`);
      assert.equal(partly.body.data.status, 'paid');
      assert.equal(partly.body.data.refunded_total, first.amount_minor);
      const rest = total - first.amount_minor;

      const all = await call(token, 'POST', `/v1/orders/${orderId}/refunds`, {}, `refund-${orderId}-rest`);
      assert.equal(all.status, 201, JSON.stringify(all.body));
      assert.equal(all.body.data.amount_minor, rest);
      const events = await until('order.refunded of the whole order', () => {
        const got = refundedEvents(endpoint.secret, orderId);
        return got.some((e) => e.data.status === 'refunded') ? got : undefined;
      });
      const last = events.at(-1)!;
      assert.equal(last.data.status, 'refunded');
      assert.equal(last.data.refunded_total, total);
      assert.deepEqual(last.data.refund.registration_ids, [paul!.id]);
      const read = await call(token, 'GET', `/v1/orders/${orderId}`);
      assert.equal(read.body.data.status, 'refunded');
      assert.equal(read.body.data.refunded_total, total);

      const mails = await until('the refund mails in the development mailbox', async () => {
        const kept = (await listDevMail(h.service.ctx.database.db, 200)).filter(
          (m) => m.to === email && m.subject.startsWith('Refund:'),
        );
        return kept.length === 2 ? kept : undefined;
      });
      assert.ok(mails.some((m) => /fully refunded/.test(m.text)));
      assert.ok(mails.some((m) => /Achieng Mary/.test(m.text) && /Reason: Injured/.test(m.text)));
    });
  });
}
