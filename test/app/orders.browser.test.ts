// The orders pages in Chromium at 360 px and 1280 px: the list with its filters, a search, and one
// order; axe with no violation, nothing scrolling sideways, screenshots of each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember, makeOrder } from './app-helpers.ts';

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

describe('orders in Chromium', () => {
  test('a viewer lists, searches and opens an order', async () => {
    const partner = await makePartner(h);
    const viewer = await makeMember(h, partner.organizationId, 'viewer');
    const event = (await makeEvent(h, partner, { name: 'Mbarara Hills Half Marathon' })).id;
    const buyer = { name: 'Nakato Sarah', email: 'sarah@example.org', phone: '0772555111' };
    const order = await makeOrder(h, partner, { eventId: event, buyer });
    await makeOrder(h, partner, { eventId: event });
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, viewer);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await checkPage(page, 'orders-01-list');
    await page.getByLabel('Search').fill('nakato');
    await page.getByRole('button', { name: 'Show orders' }).click();
    await page.waitForURL(/q=nakato/);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await checkPage(page, 'orders-02-search');
    await page.getByRole('link', { name: order.order_code }).click();
    await page.getByRole('heading', { name: `Order ${order.order_code}` }).waitFor();
    assert.ok(await page.getByText('Nakato Sarah Junior').isVisible());
    await checkPage(page, 'orders-03-detail');
    await page.goto(`${app}/orders?from=yesterday`);
    await page.getByText('Error: Enter a date as YYYY-MM-DD').first().waitFor();
    await checkPage(page, 'orders-04-bad-filter');
    assert.deepEqual(
      problems.filter((p) => !/status of 400/.test(p)),
      [],
    );
    await context.close();
  });

  test('an owner refunds a paid order: confirmation, then the order refunded', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const event = (await makeEvent(h, partner, { name: 'Gulu Peace Run' })).id;
    const order = await makeOrder(h, partner, { eventId: event, paid: true });
    const token = await getToken(h, partner);
    const pay = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/pay`,
      headers: bearer(token),
      payload: { payment_method: 'momo', phone: '0770000001' },
    });
    assert.equal(pay.statusCode, 202, pay.body);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const read = await h.service.api.inject({
        method: 'GET',
        url: `/v1/orders/${order.id}`,
        headers: bearer(token),
      });
      if (read.json().data.status === 'paid') break;
      assert.ok(Date.now() < deadline, 'paid within 30 s');
      await new Promise((r) => setTimeout(r, 300));
    }
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page.goto(`${app}/orders/${order.id}`);
    await page.getByRole('link', { name: 'Refund this order' }).click();
    await page.getByRole('heading', { name: `Refund order ${order.order_code}?` }).waitFor();
    await checkPage(page, 'orders-05-refund-confirm');
    await page.getByRole('button', { name: /^Refund UGX/ }).click();
    await page.getByText('The refund was sent to the network').waitFor();
    const refunded = Date.now() + 30_000;
    while (!(await page.getByText('Refund confirmed by the network').isVisible())) {
      assert.ok(Date.now() < refunded, 'refund confirmed within 30 s');
      await page.waitForTimeout(500);
      await page.reload();
    }
    await checkPage(page, 'orders-06-refunded');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
