// One paid ticket with one required question, as a buyer on a phone buys it: the only ticket type
// is chosen already, so 2 screens before the wait (details, payment), at most 8 taps and 3 typed
// fields, with and without the page script, at 320x640 and 360x740. Every step
// keeps its total and main button on screen, is screenshotted and checked with axe-core; the
// layout holds at 200 % text size. With the script, the wait screen's polls run on the page's
// clock, moved by the test (runPageClockUntil).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { TSHIRT_QUESTION } from '../site/site-helpers.ts';
import { getToken, makeEvent, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  apiCall,
  newRedirectSession,
  TapCounter,
  expectAccessible,
  launchBrowser,
  runPageClockUntil,
  screenshot,
  startListeningHarness,
  startPartnerSite,
  watchProblems,
  type PartnerSite,
} from './browser-helpers.ts';

const SUITE_TIMEOUT_MS = 240_000;
const SCREENS = [
  { width: 320, height: 640 },
  { width: 360, height: 740 },
];

let h: Harness;
let api: string;
let browser: Browser;
let partnerSite: PartnerSite;
let partner: TestPartner;
let eventId: string;

before(
  async () => {
    // A 15 s prompt window (the tests' usual scale gives 3 s): a payment approved at once must
    // not time out on a machine busy with other test files and their browsers.
    ({ h, api } = await startListeningHarness({ PAYMENT_TIME_SCALE: '0.05' }));
    partnerSite = await startPartnerSite();
    browser = await launchBrowser();
    partner = await makePartner(h, { returnUrlDomains: [partnerSite.origin] });
    const event = await makeEvent(h, partner, {
      name: 'Entebbe Lakeside 10K',
      venue: 'Aero Beach, Entebbe',
      cover: 'https://example.org/cover.jpg',
      waiver_required: true,
      waiver_version: '2026-05',
      waiver_text: 'I take part at my own risk and I am fit to run.',
      additional_questions: [TSHIRT_QUESTION],
      ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 }],
    });
    eventId = event.id;
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await partnerSite?.close();
  await h?.close();
});

async function newSessionUrl(): Promise<{ id: string; url: string }> {
  return newRedirectSession(api, await getToken(h, partner), partnerSite, eventId);
}

/** The buyer's taps, typed fields and screens, each screen checked and shot as it comes. */
class Buyer extends TapCounter {
  readonly label: string;
  readonly viewport: { width: number; height: number };
  constructor(page: Page, label: string, viewport: { width: number; height: number }) {
    super(page);
    this.label = label;
    this.viewport = viewport;
  }

  /** A new screen: its step, seen at the top, with the total and main button in reach. */
  async arrive(title: string): Promise<void> {
    const step = this.page.locator('section.step:not([hidden])');
    await step.locator('h2', { hasText: title }).waitFor();
    // A new page's heading shows before its stylesheet applies: measured unstyled, the total would
    // sit below the fold.
    await this.page.waitForLoadState('load');
    this.screens.push(title);
    await this.page.evaluate(() => window.scrollTo(0, 0));
    for (const part of ['[data-total]', '[data-primary]']) {
      const box = (await step.locator(part).boundingBox())!;
      assert.ok(box.y >= 0 && box.y + box.height <= this.viewport.height, `${title}: ${part} above the fold`);
    }
    if (this.screens.length > 1) {
      const header = (await this.page.locator('header.event').boundingBox())!;
      assert.ok(header.height < 60, `${title}: compact header (${header.height} px)`);
    }
    assert.ok(
      await this.page.evaluate((w) => document.documentElement.scrollWidth <= w, this.viewport.width),
      `${title}: no sideways scroll`,
    );
    const name = `steps-${this.label}-${this.viewport.width}-${this.screens.length}-${title.toLowerCase().replace(/\W+/g, '-')}`;
    await screenshot(this.page, name);
    await expectAccessible(this.page, `${this.label} ${title}`);
  }
}

/** The whole purchase: details (one ticket chosen, the buyer runs), payment. */
async function buyOneTicket(buyer: Buyer): Promise<void> {
  const { page } = buyer;
  const step = () => page.locator('section.step:not([hidden])');
  await buyer.arrive('Your details');
  assert.equal(await page.locator('select[data-qty]').inputValue(), '1', 'one ticket chosen');
  assert.ok(await page.getByLabel('I am the runner').isChecked());
  assert.ok(!(await page.getByLabel('Full name').isVisible()), 'the runner is the buyer: no name to type');
  await buyer.type(page.getByLabel('Your name'), 'Amina Nakato');
  await buyer.type(page.getByLabel('E-mail'), 'amina@example.org');
  await buyer.type(page.getByLabel('Phone number'), '0770000001');
  await buyer.choose(page.getByLabel('T-shirt size'), 'M');
  await buyer.tap(page.getByLabel(/I accept the waiver/));
  await buyer.tap(step().getByRole('button', { name: 'Continue' }));

  await buyer.arrive('Payment');
  assert.equal(await page.getByLabel('Mobile money number').inputValue(), '0770000001');
  assert.ok(await page.getByLabel('MTN Mobile Money').isChecked(), 'the network of the number');
  await buyer.tap(step().getByRole('button', { name: 'Pay UGX\u00a031,050' }));
  // The wait screen: the script polls; without it the buyer reloads (a <noscript> refresh only
  // runs where scripts are off altogether).
  const registered = page.getByRole('heading', { name: 'You are registered' });
  if (buyer.label === 'js') return runPageClockUntil(page, 'paid', () => registered.isVisible());
  const deadline = Date.now() + 30_000;
  while (!(await registered.isVisible())) {
    assert.ok(Date.now() < deadline, 'paid within 30 s');
    await page.waitForTimeout(500);
    await page.reload();
  }
}

async function expectRegistered(sessionId: string): Promise<void> {
  const token = await getToken(h, partner);
  const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${sessionId}`);
  assert.equal(read.json.data.status, 'complete');
  const order = await apiCall(api, token, 'GET', `/v1/orders/${read.json.data.order.id}`);
  assert.equal(order.json.data.status, 'paid');
  assert.equal(order.json.data.registrations[0].participant_name, 'Amina Nakato');
  const [row] = await h.service.ctx.database.rows<{ answers: Record<string, string> }>(
    sql`SELECT answers FROM registrations WHERE order_id = ${read.json.data.order.id}`,
  );
  assert.deepEqual(row!.answers, { tshirt: 'M' });
}

describe('one paid ticket in two screens before the wait', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const viewport of SCREENS) {
    for (const script of [true, false]) {
      const label = script ? 'js' : 'nojs';
      test(`${viewport.width}x${viewport.height}, ${script ? 'with' : 'without'} the page script: 2 screens, at most 8 taps and 3 typed fields`, async () => {
        const session = await newSessionUrl();
        const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
        // Without the script: the page script is blocked, as on a connection that drops it
        // (switching JavaScript off would switch off axe-core too).
        if (!script) await context.route(/\/assets\/checkout\.[^/]+\.js$/, (route) => route.abort());
        const page = await context.newPage();
        // Running with real time until the test moves it.
        await page.clock.install();
        const problems = script ? watchProblems(page) : [];
        await page.goto(session.url);
        const buyer = new Buyer(page, label, viewport);
        await buyOneTicket(buyer);
        assert.deepEqual(buyer.screens, ['Your details', 'Payment']);
        assert.ok(buyer.taps <= 8, `${buyer.taps} taps`);
        assert.ok(buyer.typed <= 3, `${buyer.typed} typed fields`);
        await expectRegistered(session.id);
        assert.deepEqual(problems, []);
        await context.close();
      });
    }
  }

  test('at 200 % text size nothing overlaps and nothing scrolls sideways at 320 px', async () => {
    const session = await newSessionUrl();
    const context = await browser.newContext({ viewport: SCREENS[0]!, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(session.url);
    // The only ticket type is chosen already: the quantities are behind "Change tickets".
    await page.getByRole('button', { name: 'Change tickets' }).click();
    await page.locator('section.step[data-step="tickets"]:not([hidden])').waitFor();
    // As a browser's text size setting does (CSSOM, which the page's CSP allows).
    await page.evaluate(() => (document.documentElement.style.fontSize = '200%'));
    const price = (await page.locator('.ticket .price').boundingBox())!;
    const quantity = (await page.locator('.ticket .qty-box').boundingBox())!;
    const apart =
      quantity.y >= price.y + price.height ||
      price.y >= quantity.y + quantity.height ||
      quantity.x >= price.x + price.width ||
      price.x >= quantity.x + quantity.width;
    assert.ok(apart, 'the quantity does not cover the price');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), 'no sideways scroll');
    await screenshot(page, 'steps-text-200-percent');
    await context.close();
  });
});
