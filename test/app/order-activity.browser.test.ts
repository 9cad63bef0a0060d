// The order page's webhook deliveries and payments to refund in Chromium at 360 px and 1280 px:
// a long endpoint URL and each attempt fit the phone's width, axe finds no violation, and the
// owner goes from "Refund this payment" to its confirmation. The rows are written directly: this
// checks the pages, order-activity.test.ts checks how they come about.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { orders } from '../../src/orders/orders.schema.ts';
import { newId } from '../../src/platform/ids.ts';
import { newDeliveryId } from '../../src/webhooks/webhook-deliveries.ts';
import { insertWebhookEndpoint } from '../../src/webhooks/webhook-endpoints.ts';
import { outboxEvents, webhookAttempts, webhookDeliveries } from '../../src/webhooks/webhooks.schema.ts';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember, makeOrder } from './app-helpers.ts';
import { insertSuccessfulPayment } from './payment-fixtures.ts';
import type { Browser } from 'playwright-core';

let h: Harness;
let app: string;
let browser: Browser;

before(async () => {
  ({ h } = await startListeningHarness());
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

const LONG_URL =
  'https://hooks.kampala-road-runners-association.example.org/integrations/partner-ticketing/webhooks/order-events';

/** An order.paid about the order, delivered on a second attempt, and one that ran out of attempts. */
async function deliveriesAbout(organizationId: string, orderId: string) {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  // Subscribed to order.refunded only, so the sender sends the real order.paid nowhere.
  const { endpoint } = await insertWebhookEndpoint(db, {
    organizationId,
    url: LONG_URL,
    eventTypes: ['order.refunded'],
    now,
  });
  for (const [status, answers] of [
    ['delivered', [500, 204]],
    ['failed', [null, null, 503]],
  ] as const) {
    const eventId = newId('msg');
    await db.insert(outboxEvents).values({
      id: eventId,
      organizationId,
      type: 'order.paid',
      payload: { type: 'order.paid', timestamp: now.toISOString(), data: { id: orderId } },
      createdAt: now,
      dispatchedAt: now,
    });
    const id = newDeliveryId();
    await db.insert(webhookDeliveries).values({
      id,
      endpointId: endpoint.id,
      organizationId,
      eventId,
      eventType: 'order.paid',
      status,
      attempts: answers.length,
      createdAt: now,
      updatedAt: now,
    });
    await db.insert(webhookAttempts).values(
      answers.map((answer, i) => ({
        deliveryId: id,
        attemptedAt: new Date(now.getTime() + i * 5000),
        status: answer,
        latencyMs: 40 + i,
        error: answer === null ? 'connection refused by the receiving host' : null,
      })),
    );
  }
}

describe('order activity in Chromium', () => {
  test('an owner reads the deliveries and opens the refund of a payment made after expiry', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const event = (await makeEvent(h, partner, { name: 'Jinja Source of the Nile Run' })).id;
    const paid = await makeOrder(h, partner, { eventId: event });
    await deliveriesAbout(partner.organizationId, paid.id);
    const late = await makeOrder(h, partner, { eventId: event, paid: true });
    const now = h.clock.now();
    const db = h.service.ctx.database.db;
    await db
      .update(orders)
      .set({ status: 'expired', paidAfterExpiry: true, closedAt: now })
      .where(eq(orders.id, late.id));
    await insertSuccessfulPayment(h, {
      organizationId: partner.organizationId,
      orderId: late.id,
      method: 'airtel',
      msisdn: '256700000009',
    });

    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page.goto(`${app}/orders/${paid.id}`);
    await page.getByRole('heading', { name: `Order ${paid.order_code}` }).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Attempts of this delivery' }).count(), 2);
    assert.ok(await page.getByText('no more will be made').isVisible());
    await checkPage(page, 'order-activity-01-webhooks');

    await page.goto(`${app}/orders/${late.id}`);
    await page.getByRole('heading', { name: 'Payments to refund' }).waitFor();
    await checkPage(page, 'order-activity-02-refund-due');
    await page.getByRole('link', { name: 'Refund this payment' }).click();
    await page.getByRole('heading', { name: 'Refund this payment?' }).waitFor();
    await checkPage(page, 'order-activity-03-refund-confirm');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
