// The orders pages in Chromium at 360 px and 1280 px: the list with its filters, a search, and one
// order, which a viewer may read but not refund; an owner's refund of an order paid on each network
// through the simulator, with the partner's verified order.refunded; an owner's erasure of a
// buyer's personal data; axe with no violation, nothing scrolling sideways, screenshots of each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { createEndpoint, startReceiver, verifyDelivery, type Receiver } from '../webhooks/webhook-helpers.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember, makeOrder } from './app-helpers.ts';

let h: Harness;
let app: string;
let browser: Browser;
let receiver: Receiver;

before(async () => {
  // The partner's webhook receiver is on 127.0.0.1.
  ({ h } = await startListeningHarness({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
  receiver = await startReceiver();
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.close();
});

/** Pays the order through the partner API from a simulator number and waits until it is paid. */
async function payOrder(token: string, orderId: string, method: 'momo' | 'airtel', phone: string) {
  const pay = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: bearer(token),
    payload: { payment_method: method, phone },
  });
  assert.equal(pay.statusCode, 202, pay.body);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const read = await h.service.api.inject({
      method: 'GET',
      url: `/v1/orders/${orderId}`,
      headers: bearer(token),
    });
    if (read.json().data.status === 'paid') return;
    assert.ok(Date.now() < deadline, `paid with ${method} within 30 s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('orders in Chromium', () => {
  test('a viewer lists, searches and opens an order', async () => {
    const partner = await makePartner(h);
    const viewer = await makeMember(h, partner.organizationId, 'viewer');
    const event = (await makeEvent(h, partner, { name: 'Mbarara Hills Half Marathon' })).id;
    const buyer = { name: 'Nakato Sarah', email: 'sarah@example.org', phone: '0772555111' };
    // Paid, so that an owner could refund it: the viewer may not.
    const order = await makeOrder(h, partner, { eventId: event, buyer, paid: true });
    await payOrder(await getToken(h, partner), order.id, 'momo', '0770000001');
    await makeOrder(h, partner, { eventId: event });
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, viewer);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await checkPage(page, 'orders-01-list');
    // the list's filters as a workbook, downloaded from the page
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download these orders (Excel)' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^orders-\d{4}-\d{2}-\d{2}\.xlsx$/);
    assert.equal(await download.failure(), null);
    await page.getByLabel('Search').fill('nakato');
    await page.getByRole('button', { name: 'Show orders' }).click();
    await page.waitForURL(/q=nakato/);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await checkPage(page, 'orders-02-search');
    await page.getByRole('link', { name: order.order_code }).click();
    await page.getByRole('heading', { name: `Order ${order.order_code}` }).waitFor();
    assert.ok(await page.getByText('Nakato Sarah Junior').isVisible());
    await checkPage(page, 'orders-03-detail');
    assert.equal(await page.getByRole('link', { name: 'Refund this order' }).count(), 0);
    const refundPage = await page.goto(`${app}/orders/${order.id}/refund`);
    assert.equal(refundPage!.status(), 403);
    await checkPage(page, 'orders-03b-viewer-refund-refused');
    // Even with the viewer's own CSRF token, a refund posted from the page is refused.
    const refundPath = `/orders/${order.id}/refund`;
    await page.goto(`${app}/orders/${order.id}`);
    const [posted] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(refundPath) && r.request().method() === 'POST'),
      page.waitForURL(`${app}${refundPath}`),
      page.evaluate((path) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = path;
        form.append(document.querySelector('input[name="_csrf"]')!.cloneNode());
        document.body.append(form);
        form.submit();
      }, refundPath),
    ]);
    assert.equal(posted.status(), 403);
    const after = await h.service.api.inject({
      method: 'GET',
      url: `/v1/orders/${order.id}`,
      headers: bearer(await getToken(h, partner)),
    });
    assert.equal(after.json().data.status, 'paid');
    await page.goto(`${app}/orders?from=yesterday`);
    await page.getByText('Error: Enter a date as YYYY-MM-DD').first().waitFor();
    await checkPage(page, 'orders-04-bad-filter');
    assert.deepEqual(
      problems.filter((p) => !/status of 40[03]/.test(p)),
      [],
    );
    await context.close();
  });

  test('an owner refunds an MTN and an Airtel order: confirmation, the order refunded, a verified order.refunded', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const endpoint = await createEndpoint(h, partner.organizationId, receiver.url, ['order.refunded']);
    const event = (await makeEvent(h, partner, { name: 'Gulu Peace Run' })).id;
    const token = await getToken(h, partner);
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    // The sandbox success numbers of docs/partners/testing.md, one order paid on each network.
    const networks = [
      { method: 'momo', phone: '0770000001', shots: ['orders-05-refund-confirm', 'orders-06-refunded'] },
      {
        method: 'airtel',
        phone: '0700000001',
        shots: ['orders-07-airtel-refund-confirm', 'orders-08-airtel-refunded'],
      },
    ] as const;
    for (const { method, phone, shots } of networks) {
      const order = await makeOrder(h, partner, { eventId: event, paid: true });
      await payOrder(token, order.id, method, phone);
      await page.goto(`${app}/orders/${order.id}`);
      await page.getByRole('link', { name: 'Refund this order' }).click();
      await page.getByRole('heading', { name: `Refund order ${order.order_code}` }).waitFor();
      await page.getByLabel('Reason').fill('The event was cancelled');
      await page.getByRole('button', { name: 'Review the refund' }).click();
      await page.getByRole('heading', { name: /^Refund UGX.*\?$/ }).waitFor();
      await checkPage(page, shots[0]);
      await page.getByRole('button', { name: /^Refund UGX/ }).click();
      await page.getByText('The refund was sent to the network').waitFor();
      const refunded = Date.now() + 30_000;
      while (!(await page.getByText('Refund confirmed by the network').isVisible())) {
        assert.ok(Date.now() < refunded, `${method} refund confirmed within 30 s`);
        await page.waitForTimeout(500);
        await page.reload();
      }
      await checkPage(page, shots[1]);

      const delivered = Date.now() + 30_000;
      const received = () =>
        receiver.requests.filter(
          (r) => (JSON.parse(r.body) as { data?: { id?: string } }).data?.id === order.id,
        );
      while (received().length === 0) {
        assert.ok(Date.now() < delivered, `${method}: order.refunded delivered within 30 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const payload = verifyDelivery(endpoint.secret, received()[0]!);
      assert.equal(payload.type, 'order.refunded');
      assert.equal(payload.data.status, 'refunded');
      assert.equal(payload.data.refund.method, method);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("an owner erases a buyer's personal data: what goes and what stays, then the counts", async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const event = (await makeEvent(h, partner, { name: 'Jinja Source Run' })).id;
    const buyer = { name: 'Okello Brian', email: 'brian@example.org', phone: '0772555222' };
    const order = await makeOrder(h, partner, { eventId: event, buyer });
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page.goto(`${app}/orders/${order.id}`);
    await page.getByRole('link', { name: "Erase this buyer's personal data" }).click();
    await page.getByRole('heading', { name: 'Erase the personal data of Okello Brian?' }).waitFor();
    await checkPage(page, 'orders-09-erase-confirm');
    await page.getByRole('button', { name: "Erase this buyer's personal data" }).click();
    await page.getByRole('heading', { name: "The buyer's personal data is erased" }).waitFor();
    await checkPage(page, 'orders-10-erased');
    await page.getByRole('link', { name: 'Back to the order' }).click();
    await page.getByText('Personal data erased').waitFor();
    assert.equal(await page.getByText('brian@example.org').count(), 0);
    await checkPage(page, 'orders-11-erased-order');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
