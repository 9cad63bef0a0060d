// The money page in Chromium: an owner reaches it from the event's page and reads what they
// receive; axe finds nothing at 360 px and 1280 px and nothing scrolls sideways.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';
import { seedMoneyEvent } from './money-fixtures.ts';

let h: Harness;
let browser: Browser;

before(async () => {
  ({ h } = await startListeningHarness());
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

describe('the money page in Chromium', () => {
  test("an owner opens an event's money from its page", async () => {
    const app = h.config.appUrl.origin;
    const partner = await makePartner(h);
    const eventId = await seedMoneyEvent(h, partner);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page.goto(`${app}/events/${eventId}`);
    await page.getByRole('link', { name: 'Money', exact: true }).click();
    await page.waitForURL(`${app}/events/${eventId}/money`);
    await page.getByRole('heading', { name: 'Money', level: 1 }).waitFor();
    const receive = page.locator('dl.facts div', { hasText: 'You receive' });
    assert.match((await receive.innerText()).replace(/\s+/g, ' '), /You receive UGX 52,000/);
    await checkPage(page, 'event-money');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
