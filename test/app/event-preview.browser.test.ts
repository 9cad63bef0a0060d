// The checkout preview in Chromium: an owner opens it from a draft event's page and walks the
// three steps with the checkout's own script, then presses Pay: the preview says nothing was sold
// and nothing was written. The page keeps the app host's CSP: no violation may be reported (the
// checkout's stylesheet and script load from the app host). axe with no violations, nothing
// scrolling sideways, screenshots at 360 px and 1280 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { count } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { checkoutSessions } from '../../src/checkout/checkout.schema.ts';
import { orders } from '../../src/orders/orders.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { CHROMIUM, launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

const DAY = 86_400_000;

let h: Harness;
let app: string;
let browser: Browser;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}`);
  ({ h } = await startListeningHarness());
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

async function writes(): Promise<number[]> {
  const db = h.service.ctx.database.db;
  const counts = [];
  for (const table of [checkoutSessions, orders, paymentAttempts]) {
    counts.push((await db.select({ n: count() }).from(table))[0]!.n);
  }
  return counts;
}

describe('checkout preview in Chromium', () => {
  test('an owner previews a draft: tickets, details, payment, then Pay sells nothing', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const opens = new Date(h.clock.now().getTime() + 7 * DAY);
    const event = await makeEvent(h, partner, {
      name: 'Fort Portal Crater Lakes Run',
      status: 'draft',
      venue: 'Fort Portal, Boma Grounds',
      ticket_types: [
        {
          name: '21 km',
          price_minor: 60_000,
          capacity: 300,
          distance_km: 21,
          sales_start: opens.toISOString(),
          sales_end: new Date(opens.getTime() + 14 * DAY).toISOString(),
        },
        {
          name: '5 km fun run',
          price_minor: 20_000,
          capacity: 300,
          distance_km: 5,
          sales_start: opens.toISOString(),
          sales_end: new Date(opens.getTime() + 14 * DAY).toISOString(),
        },
      ],
    });
    const before = await writes();
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);

    await page.goto(`${app}/events/${event.id}`);
    await page.getByRole('link', { name: 'Preview checkout' }).click();
    await page.waitForURL(`${app}/events/${event.id}/preview`);
    await page.getByText('Preview: nothing here is sold.').waitFor();
    await page.getByText(/No ticket is on sale yet: shown as on/).waitFor();
    await page.getByRole('heading', { name: /Tickets/ }).waitFor();
    // The checkout's own stylesheet applies: the sticky bar of the step is laid out as a footer.
    const bar = await page
      .locator('[data-step="tickets"] .bar')
      .evaluate((el) => getComputedStyle(el).position);
    assert.equal(bar, 'sticky');
    await checkPage(page, 'preview-01-tickets');

    await page.getByLabel('Quantity of 21 km').selectOption('1');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: /Your details/ }).waitFor();
    await page.getByLabel('Your name').fill('Kemigisa Ruth');
    await page.getByLabel('E-mail').fill('ruth@example.org');
    await page.getByLabel('Phone number').fill('0700000001');
    await checkPage(page, 'preview-02-details');
    await page.locator('[data-step="details"]').getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: /Payment/ }).waitFor();
    await checkPage(page, 'preview-03-payment');

    await page.getByRole('button', { name: /^Pay UGX/ }).click();
    await page.getByText('Nothing was held, sent or sold.').waitFor();
    assert.equal(new URL(page.url()).pathname, `/events/${event.id}/preview`);
    await checkPage(page, 'preview-04-pay-pressed');

    assert.deepEqual(await writes(), before, 'no session, order or payment');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
