// Every screen of the hosted checkout at 360x740, in English and in Swahili: a screenshot each
// (test-results/screenshots/screens-<lang>-*.png, to be looked at; the details step at desktop
// width too) and axe-core with no violation
// of any impact. The path: tickets, details, payment, the wait screen, another number, declined
// with the retry tiles, the confirmation; then a cancelled checkout's way back. The wait screen's
// polls run on the page's clock, moved by the test (runPageClockUntil).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { TSHIRT_QUESTION } from '../site/site-helpers.ts';
import { getToken, makeEvent, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  newRedirectSession,
  expectAccessible,
  launchBrowser,
  runPageClockUntil,
  screenshot,
  startListeningHarness,
  startPartnerSite,
  watchProblems,
  type PartnerSite,
} from './browser-helpers.ts';

const SUITE_TIMEOUT_MS = 300_000;
const VIEWPORT = { width: 360, height: 740 };

let h: Harness;
let api: string;
let browser: Browser;
let partnerSite: PartnerSite;
let partner: TestPartner;
let eventId: string;

before(
  async () => {
    ({ h, api } = await startListeningHarness({ PAYMENT_TIME_SCALE: '0.05' }));
    partnerSite = await startPartnerSite();
    browser = await launchBrowser();
    partner = await makePartner(h, { returnUrlDomains: [partnerSite.origin], displayName: 'Gulu Runners' });
    eventId = (
      await makeEvent(h, partner, {
        name: 'Mbarara Run',
        venue: 'Kakyeka Stadium',
        waiver_required: true,
        waiver_version: '2026-05',
        waiver_text: 'I run at my own risk.',
        additional_questions: [TSHIRT_QUESTION],
        ticket_types: [
          { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 },
          { name: '5 km', price_minor: 20000, capacity: 100, distance_km: 5 },
        ],
      })
    ).id;
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await partnerSite?.close();
  await h?.close();
});

async function newSession(): Promise<string> {
  return (await newRedirectSession(api, await getToken(h, partner), partnerSite, eventId)).url;
}

/** The screen as it is now: a screenshot to look at, and axe with nothing to report. */
async function look(page: Page, lang: string, name: string): Promise<void> {
  await screenshot(page, `screens-${lang}-${name}-360px`);
  await expectAccessible(page, `${lang} ${name}`, { strict: true });
  assert.ok(
    await page.evaluate(() => document.documentElement.scrollWidth <= 360),
    `${name}: no sideways scroll`,
  );
}

const shownStep = (page: Page) => page.locator('section.step:not([hidden])');

describe('every screen at 360 px, in both languages', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const lang of ['en', 'sw'] as const) {
    test(`${lang}: from the tickets to the confirmation, declined once on the way`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
      const page = await context.newPage();
      // Running with real time until the test moves it.
      await page.clock.install();
      const problems = watchProblems(page);
      await page.goto(`${await newSession()}?lang=${lang}`);
      await page.locator('html[data-ready]').waitFor();
      await look(page, lang, '01-tickets');
      await page.locator('select[data-qty]').first().selectOption('1');
      await shownStep(page).locator('[data-primary]').click();
      await page.locator('section.step[data-step="details"]:not([hidden])').waitFor();
      await look(page, lang, '02-details');
      await page.setViewportSize({ width: 1280, height: 800 });
      await screenshot(page, `screens-${lang}-02-details-desktop`);
      await page.setViewportSize(VIEWPORT);
      await page.locator('#f-buyer-name').fill('Amina Nakato');
      await page.locator('#f-buyer-email').fill('amina@example.org');
      // the simulator's number that never answers: the prompt stays out
      await page.locator('#f-buyer-phone').fill('0770000009');
      await page.locator('#f-items-0-answers-tshirt').selectOption('M');
      await page.locator('#f-waiver_accepted').check();
      await look(page, lang, '03-details-filled');
      await shownStep(page).locator('[data-primary]').click();
      await page.locator('section.step[data-step="payment"]:not([hidden])').waitFor();
      await look(page, lang, '04-payment');
      await shownStep(page).locator('[data-primary]').click();
      await page.locator('[data-wait][data-poll="1"]').waitFor();
      await look(page, lang, '05-waiting');
      await page.locator('form[action$="/switch"] button, form[action*="/switch?"] button').click();
      await page.locator('[data-pay-phone]').waitFor();
      await look(page, lang, '06-another-number');
      // the simulator's declining number
      await page.locator('[data-pay-phone]').fill('0770000003');
      await page.locator('form[action*="/retry"] button[type=submit]').click();
      const declined = page.locator('[data-wait][data-poll="0"] .notice.bad');
      await runPageClockUntil(page, 'declined', () => declined.isVisible());
      await look(page, lang, '07-declined');
      await page.locator('[data-pay-phone]').fill('0770000001');
      await page.locator('form[action*="/retry"] button[type=submit]').click();
      const success = page.locator('[data-success]');
      await runPageClockUntil(page, 'the confirmation', () => success.isVisible());
      await look(page, lang, '08-confirmation');
      assert.deepEqual(problems, []);
      await context.close();
    });

    test(`${lang}: cancelled, the checkout says so and leads back`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const problems = watchProblems(page);
      const url = await newSession();
      await page.goto(`${url}?lang=${lang}`);
      await page.locator('html[data-ready]').waitFor();
      await page.locator('form[data-cancel] button').click();
      await page.waitForURL(`${partnerSite.origin}/race**`);
      await page.goto(`${url}?lang=${lang}`);
      await page.locator('main h2, main h1').first().waitFor();
      await look(page, lang, '09-after-cancel');
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});
