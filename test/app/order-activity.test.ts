// The order page's timeline shows each webhook delivery about the order (endpoint, event type,
// every attempt with its HTTP status and latency, final state) and links to the delivery log page
// that shows it; a payment confirmed after its order expired shows under "Payments to refund" and
// an owner refunds it from the app through the simulator, on each network: once, however often
// the form is sent. A viewer sees it but cannot refund it (403, nothing sent).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../src/audit/audit.schema.ts';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { expireOrderHold } from '../../src/orders/order-lifecycle.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts, refunds } from '../../src/payments/payments.schema.ts';
import type { PaymentMethod } from '../../src/payments/provider.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { newId } from '../../src/platform/ids.ts';
import { outboxEvents, webhookDeliveries } from '../../src/webhooks/webhooks.schema.ts';
import { newDeliveryId } from '../../src/webhooks/webhook-deliveries.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  createOrder,
  deliveriesOf,
  makeShop,
  payThroughSimulator,
  pump,
  readOrder,
  sendTestEvent,
  startReceiver,
  startWebhookHarness,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';
import { makeMember, signIn, textOf } from './app-helpers.ts';

let sim: Simulator;
let h: Harness;
let receiver: Receiver;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness({ SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' });
  // Each event's first try gets a 500, its retry a 204: two attempts to show.
  receiver = await startReceiver((_request, previous) => ({ status: previous === 0 ? 500 : 204 }));
});
after(async () => {
  await h.close();
  await sim.close();
  await receiver.close();
});

const db = () => h.service.ctx.database.db;
const MINUTE = 60_000;

describe('webhook deliveries on the order page', () => {
  test("a paid order's delivered order.paid shows with its attempts and links to the delivery log", async () => {
    const shop = await makeShop(h);
    const organizationId = shop.partner.organizationId;
    const endpoint = await createEndpoint(h, organizationId, receiver.url, ['order.paid']);
    const { orderId } = await payThroughSimulator(h, sim, shop, 'momo');
    const other = await payThroughSimulator(h, sim, shop, 'airtel');
    const delivered = async () =>
      (await deliveriesOf(h, endpoint.id)).filter((d) => d.status === 'delivered').length === 2;
    await pump(h, delivered);
    const mine = (
      await db()
        .select({ id: webhookDeliveries.id, payload: outboxEvents.payload })
        .from(webhookDeliveries)
        .innerJoin(outboxEvents, eq(outboxEvents.id, webhookDeliveries.eventId))
        .where(eq(webhookDeliveries.endpointId, endpoint.id))
    ).find((d) => (d.payload.data as { id?: string }).id === orderId);
    assert.ok(mine);
    // Newer test events push the order's delivery off the log's first page (10 a page).
    for (let i = 0; i < 11; i++) await sendTestEvent(h, endpoint.id);

    for (const role of ['owner', 'viewer'] as const) {
      const agent = await signIn(h, await makeMember(h, organizationId, role));
      const page = await agent.get(`/orders/${orderId}`);
      assert.equal(page.statusCode, 200);
      const text = textOf(page.body);
      assert.match(text, new RegExp(`Webhook order\\.paid to ${receiver.url} : delivered after 2 attempts`));
      const attempts = /aria-label="Attempts of this delivery">([\s\S]*?)<\/ol>/.exec(page.body)![1]!;
      const tries = [...textOf(attempts).matchAll(/(\d\d:\d\d:\d\d EAT) (HTTP \d+) in \d+ ms/g)];
      assert.deepEqual(
        tries.map((t) => t[2]),
        ['HTTP 500', 'HTTP 204'],
      );
      assert.equal(page.body.match(/Webhook <code>/g)?.length, 1, "the other order's delivery is not shown");
      assert.doesNotMatch(page.body, new RegExp(other.orderId));

      const href = new RegExp(
        `<a href="(/developers/webhooks/${endpoint.id}\\?cursor=[^"#]+)#delivery-${mine.id}">delivery log</a>`,
      ).exec(page.body);
      assert.ok(href, 'links to the delivery log at this delivery');
      const log = await agent.get(href[1]!);
      assert.equal(log.statusCode, 200);
      assert.match(log.body, new RegExp(`id="delivery-${mine.id}"`));
      const newest = await agent.get(`/developers/webhooks/${endpoint.id}`);
      assert.doesNotMatch(newest.body, new RegExp(`id="delivery-${mine.id}"`), 'not on the first page');
    }
  });

  test('an order with more deliveries than shown lists the latest 50 and says so', async () => {
    const shop = await makeShop(h);
    const organizationId = shop.partner.organizationId;
    const endpoint = await createEndpoint(h, organizationId, receiver.url, ['order.paid']);
    const order = await createOrder(h, shop, shop.freeTicket);
    // 51 replays' worth of events about the order, made directly: the page only reads them.
    const start = h.clock.now().getTime();
    for (let i = 0; i < 51; i++) {
      const at = new Date(start + i * 1000);
      const eventId = newId('msg');
      await db()
        .insert(outboxEvents)
        .values({
          id: eventId,
          organizationId,
          type: 'order.paid',
          payload: { type: 'order.paid', timestamp: at.toISOString(), data: { id: order.id } },
          createdAt: at,
          dispatchedAt: at,
        });
      await db().insert(webhookDeliveries).values({
        id: newDeliveryId(),
        endpointId: endpoint.id,
        organizationId,
        eventId,
        eventType: 'order.paid',
        status: 'failed',
        attempts: 8,
        createdAt: at,
        updatedAt: at,
      });
    }
    const owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
    const page = await owner.get(`/orders/${order.id}`);
    assert.equal(page.statusCode, 200);
    assert.equal(page.body.match(/Webhook <code>/g)?.length, 50);
    assert.match(textOf(page.body), /failed after 8 attempts; no more will be made/);
    assert.match(textOf(page.body), /shows the latest 50 webhook deliveries of this order/);
  });
});

/**
 * A payment confirmed after its order expired with no place left: the buyer's prompt goes
 * unanswered past the hold, the order expires, another buyer takes the only place, then the
 * first buyer approves after all.
 */
async function paidAfterExpiry(method: PaymentMethod) {
  const partner = await makePartner(h);
  const event = await makeEvent(h, partner, {
    ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 1, distance_km: 10 }],
  });
  const [ticket] = await db().select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id));
  const shop: Shop = {
    partner,
    token: await getToken(h, partner),
    eventId: event.id,
    paidTicket: ticket!.id,
    freeTicket: '',
  };
  const order = await createOrder(h, shop, shop.paidTicket);
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${order.id}/pay`,
    headers: bearer(shop.token),
    payload: { payment_method: method, phone: testPhoneNumber(method, '09') },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const [attempt] = await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, order.id));
  h.clock.advance(16 * MINUTE);
  assert.equal(await expireOrderHold(db(), order.id, h.clock.now()), 'done');
  assert.equal((await readOrder(h, shop, order.id)).status, 'expired');
  const taker = await payThroughSimulator(h, sim, shop, method);
  assert.ok(sim.approve(attempt!.reference));
  assert.equal(await reconcileAttempt(h.service.ctx, attempt!.reference), null);
  assert.equal((await readOrder(h, shop, order.id)).status, 'expired');
  return { shop, orderId: order.id, attempt: attempt!, taker };
}

const refundsOf = (attemptId: string) => db().select().from(refunds).where(eq(refunds.attemptId, attemptId));
const simRefundsOf = (reference: string) => sim.refunds().filter((r) => r.paymentReference === reference);

for (const method of ['momo', 'airtel'] as const) {
  describe(`refunding a payment made after expiry from the app, paid with ${method}`, () => {
    test('the owner confirms, the refund shows refunded, and a second post refunds nothing more', async () => {
      const { shop, orderId, attempt, taker } = await paidAfterExpiry(method);
      const organizationId = shop.partner.organizationId;
      const member = await makeMember(h, organizationId, 'owner');
      const owner = await signIn(h, member);
      const path = `/orders/${orderId}/payments/${attempt.id}/refund`;

      // The overview's "needs attention" row opens the order at its payments to refund.
      const overview = await owner.get('/');
      assert.match(overview.body, new RegExp(`<a href="/orders/${orderId}#refunds-due">`));
      const page = await owner.get(`/orders/${orderId}`);
      assert.match(page.body, /<h2 id="refunds-due">Payments to refund<\/h2>/);
      assert.match(
        textOf(page.body),
        /Paid after expiry : UGX 31,050 by (MTN Mobile|Airtel) Money from 07\d\d ••• 009/,
      );
      assert.match(page.body, new RegExp(`<a class="button" href="${path}">Refund this payment</a>`));
      assert.doesNotMatch(page.body, /Refund this order/, 'the order itself was never paid');

      const ask = await owner.get(path);
      assert.equal(ask.statusCode, 200);
      assert.match(ask.body, /Refund this payment\?/);
      assert.match(textOf(ask.body), /The order itself does not change\. This cannot be undone\./);
      const done = await owner.post(path, {});
      assert.equal(done.statusCode, 303, done.body.slice(0, 300));
      assert.equal(done.headers.location, `/orders/${orderId}?refund=requested`);
      assert.equal(simRefundsOf(attempt.reference).length, 1);

      const shown = await owner.get(`/orders/${orderId}?refund=requested`);
      const text = textOf(shown.body);
      assert.match(text, /The refund was sent to the network/);
      assert.match(shown.body, /<h2>Refunds<\/h2>/);
      assert.match(text, /a payment made after expiry/);
      assert.match(text, /Refund confirmed by the network/);
      assert.doesNotMatch(shown.body, /Refund this payment/, 'no second refund offered');
      assert.match(
        shown.body,
        /<dt>Status<\/dt>\s*<dd>Expired: not paid in time \(the places were held too long without payment\)<\/dd>/,
        'the order does not change',
      );

      // Sent again (a second tab, a double click): refused on the order page, nothing more sent.
      const again = await owner.post(path, {});
      assert.equal(again.statusCode, 409);
      assert.match(again.body, /The payment was refunded already/);
      assert.equal((await owner.get(path)).statusCode, 409);
      assert.equal(simRefundsOf(attempt.reference).length, 1);
      const rows = await refundsOf(attempt.id);
      assert.deepEqual(
        rows.map((r) => [r.kind, r.status, r.method, r.amount, r.requestedByLabel]),
        [['paid_after_expiry', 'succeeded', method, attempt.amount, member.email]],
      );
      const audit = await db()
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.organizationId, organizationId),
            eq(auditEvents.action, 'payment.refund_requested'),
          ),
        );
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.targetId, orderId);
      assert.equal(audit[0]!.actorMemberId, member.memberId);

      // The payment that bought the place is not one to refund this way, nor through this order.
      const paying = (
        await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, taker.orderId))
      )[0]!;
      const wrongOrder = await owner.get(`/orders/${orderId}/payments/${paying.id}/refund`);
      assert.equal(wrongOrder.statusCode, 404);
      assert.equal((await owner.post(`/orders/${orderId}/payments/${paying.id}/refund`, {})).statusCode, 404);
      const ownPath = `/orders/${taker.orderId}/payments/${paying.id}/refund`;
      const refused = await owner.post(ownPath, {});
      assert.equal(refused.statusCode, 409);
      assert.match(refused.body, /refund the order instead/);
      assert.equal((await refundsOf(paying.id)).length, 0);
    });
  });
}

describe('who may refund a payment', () => {
  test('a viewer and a developer see the payment to refund but cannot refund it: 403, nothing sent', async () => {
    const { shop, orderId, attempt } = await paidAfterExpiry('momo');
    const path = `/orders/${orderId}/payments/${attempt.id}/refund`;
    for (const role of ['viewer', 'developer'] as const) {
      const agent = await signIn(h, await makeMember(h, shop.partner.organizationId, role));
      const page = await agent.get(`/orders/${orderId}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Payments to refund/);
      assert.match(textOf(page.body), /An owner or an admin can refund it/);
      assert.doesNotMatch(page.body, /Refund this payment/);
      assert.equal((await agent.get(path)).statusCode, 403);
      const post = await agent.post(path, {});
      assert.equal(post.statusCode, 403);
      assert.match(post.body, /Your role cannot do this/);
    }
    assert.equal(simRefundsOf(attempt.reference).length, 0);
    assert.equal((await refundsOf(attempt.id)).length, 0);
  });
});
