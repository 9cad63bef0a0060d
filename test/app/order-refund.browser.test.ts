// The refund dialog in Chromium at 360 px and 1280 px: an owner ticks one runner of a two-runner
// order paid by MTN MoMo (simulator), gives a reason, reviews what goes back and confirms; the
// order page then marks her refunded and lists the refund. axe with no violation, nothing
// scrolling sideways, screenshots of each step.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

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

describe('the refund dialog in Chromium', () => {
  test('an owner refunds one runner of two: the form, the review, the order marked', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const event = await makeEvent(h, partner, {
      name: 'Entebbe Lakeside 10K',
      ticket_types: [{ name: '10 km', price_minor: 35000, capacity: 100, distance_km: 10 }],
    });
    const token = await getToken(h, partner);
    const detail = await h.service.api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) });
    const ticketTypeId = detail.json().data.ticket_types[0].ticket_type_id as string;
    const created = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(token),
      payload: {
        event_id: event.id,
        items: [
          { ticket_type_id: ticketTypeId, participant_name: 'Namukasa Grace' },
          { ticket_type_id: ticketTypeId, participant_name: 'Ssempala Joseph' },
        ],
        buyer: { name: 'Namukasa Grace', email: 'grace@example.org', phone: '0772555333' },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const order = created.json().data as { id: string; order_code: string };
    const pay = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/pay`,
      headers: bearer(token),
      payload: { payment_method: 'momo', phone: '0770000001' },
    });
    assert.equal(pay.statusCode, 202, pay.body);
    const paidBy = Date.now() + 30_000;
    for (;;) {
      const read = await h.service.api.inject({ url: `/v1/orders/${order.id}`, headers: bearer(token) });
      if (read.json().data.status === 'paid') break;
      assert.ok(Date.now() < paidBy, 'paid within 30 s');
      await new Promise((r) => setTimeout(r, 300));
    }

    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page.goto(`${app}/orders/${order.id}`);
    await page.getByRole('link', { name: 'Refund this order' }).click();
    await page.getByRole('heading', { name: `Refund order ${order.order_code}` }).waitFor();
    await checkPage(page, 'refund-01-form');

    // Review without a reason: the error summary and the field's error.
    await page.getByLabel(/^Namukasa Grace, 10 km/).check();
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page.getByText('There is a problem').waitFor();
    await checkPage(page, 'refund-02-form-error');

    await page.getByLabel(/^Namukasa Grace, 10 km/).check();
    await page.getByLabel('Reason').fill('Injured in training; asked before the deadline');
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page.getByRole('heading', { name: /^Refund UGX.*\?$/ }).waitFor();
    assert.ok(await page.getByText('The order stays paid').isVisible());
    await checkPage(page, 'refund-03-review');

    await page.getByRole('button', { name: /^Refund UGX/ }).click();
    await page.getByText('The refund was sent to the network').waitFor();
    const confirmed = Date.now() + 30_000;
    while (!(await page.getByText('Refund confirmed by the network').isVisible())) {
      assert.ok(Date.now() < confirmed, 'refund confirmed within 30 s');
      await page.waitForTimeout(500);
      await page.reload();
    }
    assert.ok(await page.getByText('Refunded: place cancelled').isVisible());
    await checkPage(page, 'refund-04-order-partly-refunded');
    assert.deepEqual(
      problems.filter((p) => !/status of 400/.test(p)),
      [],
    );
    await context.close();
  });
});
