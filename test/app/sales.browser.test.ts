// Sales at a glance in Chromium at 360 px and 1280 px: an owner signs in to the home page and
// sees the chart (an image with its name), the places and the money; "Show as table" opens the
// chart's numbers without any script; another event is picked with the filter form; payments
// needing attention are listed. Every view: axe with no violation, nothing scrolling sideways,
// screenshots (also in forced-colours mode).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { ticketTypesOf } from '../../src/events/events.ts';
import {
  CHROMIUM,
  launchBrowser,
  screenshot,
  startListeningHarness,
  watchProblems,
} from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { insertAttempt, insertOrder } from '../sales/sales-fixtures.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

const DAY = 24 * 3600_000;

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

describe('sales at a glance in Chromium', () => {
  test('an owner reads the chart, its table, places, money and payments needing attention', async () => {
    const db = h.service.ctx.database.db;
    const partner = await makePartner(h);
    const org = partner.organizationId;
    const now = h.clock.now().getTime();
    const event = await makeEvent(h, partner, {
      name: 'Kampala City 10K',
      ticket_types: [
        { name: '10 km', price_minor: 30000, capacity: 300, distance_km: 10 },
        { name: '5 km fun run', price_minor: 15000, capacity: 200, distance_km: 5 },
        { name: 'Kids 2 km', price_minor: 0, capacity: 100, distance_km: 2 },
      ],
    });
    const later = await makeEvent(h, partner, {
      name: 'Jinja Half Marathon',
      starts_at: new Date(now + 90 * DAY).toISOString(),
      ends_at: new Date(now + 90 * DAY + 3600_000).toISOString(),
    });
    const tts = (await ticketTypesOf(db, [event.id])).sort((a, b) => a.position - b.position);
    // three weeks of sales, more as race day nears, over both networks and free entries
    for (let day = 21; day >= 0; day--) {
      for (let i = 0; i < 1 + ((21 - day) % 5); i++) {
        const tt = tts[(day + i) % 3]!;
        await insertOrder(db, {
          organizationId: org,
          eventId: event.id,
          ticketTypeIds: [tt.id],
          paymentMethod: tt.priceMinor === 0 ? null : i % 2 === 0 ? 'momo' : 'airtel',
          apiClientId: i % 3 === 0 ? null : partner.clientId,
          total: tt.priceMinor === 0 ? 0 : tt.priceMinor + 1050,
          fee: tt.priceMinor === 0 ? 0 : 1050,
          createdAt: new Date(now - day * DAY - 3600_000),
        });
      }
    }
    await insertOrder(db, {
      organizationId: org,
      eventId: event.id,
      ticketTypeIds: [tts[0]!.id],
      status: 'pending',
      createdAt: new Date(now - 20 * 60_000),
    });
    const stuck = await insertOrder(db, {
      organizationId: org,
      eventId: event.id,
      ticketTypeIds: [tts[1]!.id],
      status: 'pending',
      createdAt: new Date(now - 12 * 60_000),
    });
    await insertAttempt(db, {
      organizationId: org,
      orderId: stuck.id,
      status: 'pending',
      amount: 16050,
      createdAt: new Date(now - 11 * 60_000),
    });
    const late = await insertOrder(db, {
      organizationId: org,
      eventId: event.id,
      ticketTypeIds: [tts[0]!.id],
      status: 'expired',
      paidAfterExpiry: true,
      createdAt: new Date(now - 3 * 3600_000),
    });
    await insertAttempt(db, {
      organizationId: org,
      orderId: late.id,
      method: 'airtel',
      status: 'successful',
      amount: 31050,
      createdAt: new Date(now - 2 * 3600_000),
    });

    const owner = await makeMember(h, org, 'owner');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);

    await page.getByRole('heading', { name: 'Sales at a glance' }).waitFor();
    const chart = page.getByRole('img', { name: /Paid registrations per day, Kampala City 10K/ });
    assert.equal(await chart.count(), 1);
    assert.equal(await page.locator('script').count(), 0, 'no script on the page');
    assert.match(await page.locator('ul.capacity').innerText(), /10 km[\s\S]*sold[\s\S]*left of 300/);
    assert.match(
      await page.getByRole('table', { name: 'Money by payment method' }).innerText(),
      /MTN MoMo[\s\S]*Airtel Money[\s\S]*Free/,
    );
    const attention = await page.getByRole('table', { name: /Payments needing attention/ }).innerText();
    assert.match(attention, /Paid after expiry/);
    assert.match(attention, /Pending too long/);
    await checkPage(page, 'sales-overview');

    // the chart's numbers, without a script
    await page.getByText('Show as table').click();
    const table = page.getByRole('table', { name: /Paid registrations per day/ });
    assert.ok(await table.isVisible());
    assert.match(await table.innerText(), /Total/);
    await checkPage(page, 'sales-overview-table');

    await page.emulateMedia({ forcedColors: 'active' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, 'sales-overview-forced-colors-1280');
    await page.emulateMedia({ forcedColors: 'none' });

    // another event through the filter form
    await page.getByLabel('Event', { exact: true }).selectOption(later.id);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`${app}/?event=${later.id}`);
    assert.match(await page.locator('main').innerText(), /No paid registrations yet/);
    await checkPage(page, 'sales-overview-other-event');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
