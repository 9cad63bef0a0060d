// Events in Chromium: an owner creates an event (meeting an error next to its field first), adds a
// ticket type and publishes it after the confirmation page; the partner then opens a hosted
// checkout for it. Every app page: axe with no violations, no horizontal overflow, screenshots at
// 360 px and 1280 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { findEvent } from '../../src/events/events.ts';
import {
  apiCall,
  CHROMIUM,
  launchBrowser,
  startListeningHarness,
  startPartnerSite,
  watchProblems,
  type PartnerSite,
} from '../e2e/browser-helpers.ts';
import { toLocalTime } from '../../src/app/routes/event-form.ts';
import { getToken, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

let h: Harness;
let api: string;
let app: string;
let browser: Browser;
let partnerSite: PartnerSite;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}`);
  ({ h, api } = await startListeningHarness());
  partnerSite = await startPartnerSite();
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await partnerSite?.close();
  await h?.close();
});

const step = (page: Page, name: string) => checkPage(page, `events-${name}`);

describe('events in Chromium', () => {
  test('an owner creates an event with a ticket type and publishes it', async () => {
    const partner = await makePartner(h, {
      returnUrlDomains: [partnerSite.origin],
      allowedDomains: [partnerSite.origin],
    });
    // Registration open now, on the harness's clock, so the published event is on sale.
    const DAY = 24 * 3600 * 1000;
    const local = (days: number) =>
      toLocalTime(new Date(h.clock.now().getTime() + days * DAY), 'Africa/Kampala');
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await page.waitForURL(`${app}/events`);
    await step(page, 'list');
    await page.getByRole('link', { name: 'New event' }).click();
    await page.waitForURL(`${app}/events/new`);
    await step(page, 'new');

    await page.getByLabel('Venue', { exact: true }).fill('Kololo Airstrip');
    // Read once: the clock moves on while the test runs, across a minute now and then.
    const starts = local(60);
    await page.getByLabel('Starts', { exact: true }).fill(starts);
    await page.getByLabel('Ends', { exact: true }).fill(local(60.25));
    await page.getByLabel('Registration opens', { exact: true }).fill(local(-1));
    await page.getByLabel('Registration closes', { exact: true }).fill(local(58));
    const question = page.getByRole('group', { name: 'Question 1' });
    await question.getByLabel('Question', { exact: true }).fill('T-shirt size');
    await question.getByLabel('Key (optional)', { exact: true }).fill('tshirt');
    await question.getByLabel('Answer', { exact: true }).selectOption('select');
    await question.getByLabel('Choices', { exact: true }).fill('S, M, L');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    assert.match(await page.locator('#f-name-error').innerText(), /Enter the name/);
    assert.equal(await page.getByLabel('Venue', { exact: true }).inputValue(), 'Kololo Airstrip');
    await step(page, 'new-error');

    await page.getByLabel('Name', { exact: true }).fill('Kampala Sunrise 10K');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByText('The event was created as a draft').waitFor();
    const eventId = /\/events\/(evt_\w+)/.exec(page.url())![1]!;
    await step(page, 'created');

    await page.getByLabel('Name', { exact: true }).fill('10 km');
    await page.getByLabel('Price (UGX)', { exact: true }).fill('45,000');
    // said as it is typed: what buyers pay with each method, and what the organizer receives
    assert.equal(
      (await page.locator('#f-new_price-breakdown').innerText()).trim(),
      'Buyers pay UGX 46,575 with MTN MoMo or Airtel Money (UGX 1,575 service fee); you receive UGX 45,000.',
    );
    await page.getByLabel('Places', { exact: true }).fill('500');
    await page.getByLabel('Distance in km', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Add ticket type' }).click();
    await page.getByText('The ticket type was added').waitFor();
    assert.match(
      await page
        .getByRole('heading', { name: 'Ticket types' })
        .locator('xpath=following-sibling::ul')
        .innerText(),
      /UGX\u00a045,000/,
    );
    await step(page, 'ticket-type');

    await page.getByRole('link', { name: 'Publish event' }).click();
    await page.waitForURL(`${app}/events/${eventId}/publish`);
    await step(page, 'publish');
    await page.getByRole('button', { name: 'Publish event' }).click();
    await page.getByText('The event is published').waitFor();
    await step(page, 'published');

    const found = (await findEvent(h.service.ctx.database.db, eventId))!;
    assert.equal(found.event.status, 'open');
    assert.equal(toLocalTime(found.event.startsAt, 'Africa/Kampala'), starts);
    assert.deepEqual(
      found.ticketTypes.map((t) => [t.name, t.priceMinor, t.capacity]),
      [['10 km', 45000, 500]],
    );
    assert.deepEqual(problems, []);

    // On sale: the partner opens a hosted checkout for it, which offers the new ticket type.
    const token = await getToken(h, partner);
    const session = await apiCall(api, token, 'POST', '/v1/checkout-sessions', {
      event_id: eventId,
      on_success_url: `${partnerSite.origin}/thanks?session_id={CHECKOUT_SESSION_ID}`,
      on_cancel_url: `${partnerSite.origin}/race`,
    });
    assert.equal(session.status, 201, JSON.stringify(session.json));
    const checkout = await context.newPage();
    const checkoutProblems = watchProblems(checkout);
    await checkout.goto((session.json as { data: { url: string } }).data.url);
    await checkout.getByRole('heading', { name: 'Kampala Sunrise 10K' }).first().waitFor();
    assert.match(await checkout.locator('body').innerText(), /10 km/);
    // A buyer registers on it (the simulator's success number), and the order shows in the app.
    const primary = () => checkout.locator('section.step:not([hidden]) [data-primary]');
    const tshirt = checkout.getByLabel(/T-shirt size/);
    if (await tshirt.isVisible()) await tshirt.selectOption('M');
    await primary().click();
    await checkout.getByLabel('Your name').fill('Apio Grace');
    await checkout.getByLabel('E-mail').fill('apio@example.org');
    await checkout.getByLabel('Phone number').fill('0770000001');
    const waiver = checkout.getByLabel(/I accept the waiver/);
    if (await waiver.isVisible()) await waiver.check();
    await primary().click();
    if (await checkout.locator('section.step:not([hidden]) h2', { hasText: 'Payment' }).isVisible()) {
      await primary().click();
    }
    await checkout.getByRole('heading', { name: 'You are registered' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(checkoutProblems, []);
    await page.goto(`${app}/orders?event=${eventId}`);
    await page
      .getByRole('link', { name: /^[A-Z0-9]{8}$/ })
      .first()
      .waitFor();
    assert.match(await page.locator('tbody').innerText(), /Apio Grace/);
    assert.match(await page.locator('tbody').innerText(), /\tPaid\t/);
    assert.match(await page.locator('tbody').innerText(), /Hosted checkout page/);
    await step(page, 'order-appears');
    // The channel filter finds it among the hosted page's orders, and not among the API's.
    await page.goto(`${app}/orders?event=${eventId}&channel=hosted`);
    assert.match(await page.locator('tbody').innerText(), /Apio Grace/);
    await page.goto(`${app}/orders?event=${eventId}&channel=api`);
    await page.getByText('No orders match.').waitFor();
    await context.close();
  });
});
