// Screens, taps (clicks and field focuses) and typed fields to the confirmation, counted in Chromium
// at 360x740: one paid ticket of a one-type event (2 screens before Pay, 4 in all, at most 6 taps
// and 3 typed fields, with and without the page script); the partner's line items and prefill
// (nothing typed); several ticket types; a free registration (no phone); declined, then paid.
// Then the fields a choice reveals, the main button's not-ready look, and the language switch at
// the top, which keeps the step and all that was typed. The wait screen's polls run on the page's
// clock, moved by the test (runPageClockUntil).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { TSHIRT_QUESTION } from '../site/site-helpers.ts';
import { getToken, makeEvent, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  apiCall,
  newRedirectSession,
  TapCounter,
  launchBrowser,
  runPageClockUntil,
  startListeningHarness,
  startPartnerSite,
  watchProblems,
  type PartnerSite,
} from './browser-helpers.ts';

const SUITE_TIMEOUT_MS = 300_000;
const VIEWPORT = { width: 360, height: 740 };
const WAIVER = { waiver_required: true, waiver_version: '2026-05', waiver_text: 'I run at my own risk.' };

let h: Harness;
let api: string;
let browser: Browser;
let partnerSite: PartnerSite;
let partner: TestPartner;
/** one paid type, a waiver, no question */
let oneType: string;
/** two paid types and a required T-shirt question */
let twoTypes: { eventId: string; tenK: string };
/** one free type, a waiver */
let freeRun: string;

before(
  async () => {
    ({ h, api } = await startListeningHarness({ PAYMENT_TIME_SCALE: '0.05' }));
    partnerSite = await startPartnerSite();
    browser = await launchBrowser();
    partner = await makePartner(h, { returnUrlDomains: [partnerSite.origin] });
    oneType = (
      await makeEvent(h, partner, {
        name: 'Gulu 10K',
        ...WAIVER,
        ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 }],
      })
    ).id;
    const two = await makeEvent(h, partner, {
      name: 'Mbarara Run',
      ...WAIVER,
      additional_questions: [TSHIRT_QUESTION],
      ticket_types: [
        { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 },
        { name: '5 km', price_minor: 20000, capacity: 100, distance_km: 5 },
      ],
    });
    const token = await getToken(h, partner);
    const detail = await apiCall(api, token, 'GET', `/v1/events/${two.id}`);
    const types = detail.json.data.ticket_types as { ticket_type_id: string; name: string }[];
    twoTypes = { eventId: two.id, tenK: types.find((t) => t.name === '10 km')!.ticket_type_id };
    freeRun = (
      await makeEvent(h, partner, {
        name: 'Fort Portal Fun Run',
        ...WAIVER,
        ticket_types: [{ name: '5 km', price_minor: 0, capacity: 100, distance_km: 5 }],
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

async function newSession(eventId: string, extra: Record<string, unknown> = {}) {
  return newRedirectSession(api, await getToken(h, partner), partnerSite, eventId, extra);
}

async function openPage(script = true): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  if (!script) await context.route(/\/assets\/checkout\.[^/]+\.js$/, (route) => route.abort());
  const page = await context.newPage();
  // Running with real time until the test moves it.
  await page.clock.install();
  return { page, context, problems: script ? watchProblems(page) : [] };
}

/** The buyer's taps, typed fields and screens, on the form's steps. */
class Buyer extends TapCounter {
  get step(): Locator {
    return this.page.locator('section.step:not([hidden])');
  }

  /** A step of the form: its heading, and its main button in reach. */
  async arrive(title: string): Promise<void> {
    await this.step.locator('h2', { hasText: title }).waitFor();
    this.screens.push(title);
    const box = (await this.step.locator('[data-primary]').boundingBox())!;
    assert.ok(box.y >= 0 && box.y + box.height <= VIEWPORT.height, `${title}: main button in reach`);
  }

  /** After Pay: the wait screen (its address), then the confirmation, reloading without the script. */
  async waitAndDone(script: boolean): Promise<void> {
    await this.page.waitForURL(/\/pay(\?|$)/);
    this.screens.push('wait');
    await this.done(script);
  }

  async done(script: boolean): Promise<void> {
    const registered = this.page.getByRole('heading', { name: 'You are registered' });
    if (script) await runPageClockUntil(this.page, 'registered', () => registered.isVisible());
    else {
      const deadline = Date.now() + 30_000;
      while (!(await registered.isVisible())) {
        assert.ok(Date.now() < deadline, 'registered within 30 s');
        await this.page.waitForLoadState('load');
        await this.page.reload();
      }
    }
    this.screens.push('done');
  }
}

async function sessionOrder(sessionId: string) {
  const [row] = await h.service.ctx.database.rows<{ status: string; buyer_phone: string; total: number }>(
    sql`SELECT status, buyer_phone, total FROM orders WHERE checkout_session_id = ${sessionId}
        ORDER BY created_at DESC LIMIT 1`,
  );
  return row!;
}

/** The payment step: prefilled from the buyer's phone, its network checked; Pay is the only tap. */
async function payOnly(buyer: Buyer, phone: string, network: RegExp, amount: string): Promise<void> {
  await buyer.arrive('Payment');
  assert.equal(await buyer.page.getByLabel('Mobile money number').inputValue(), phone);
  assert.ok(await buyer.page.getByLabel(network).isChecked(), 'the network of the number');
  assert.equal(await buyer.page.locator('input[name=payment_method][value=card]').count(), 0, 'no card');
  await buyer.tap(buyer.step.getByRole('button', { name: `Pay ${amount}` }));
}

describe('taps to the confirmation at 360x740', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const script of [true, false]) {
    test(`one ticket type ${script ? 'with' : 'without'} the script: 2 screens before Pay, 4 in all, ≤ 6 taps, ≤ 3 typed`, async () => {
      const session = await newSession(oneType);
      const { page, context, problems } = await openPage(script);
      await page.goto(session.url);
      const buyer = new Buyer(page);
      await buyer.arrive('Your details');
      await buyer.type(page.getByLabel('Your name'), 'Amina Nakato');
      await buyer.type(page.getByLabel('E-mail'), 'amina@example.org');
      await buyer.type(page.getByLabel('Phone number'), '0770000001');
      await buyer.tap(page.getByLabel(/I accept the waiver/));
      await buyer.tap(buyer.step.getByRole('button', { name: 'Continue' }));
      const before = buyer.taps;
      await payOnly(buyer, '0770000001', /MTN Mobile Money/, 'UGX\u00a031,050');
      assert.equal(buyer.taps - before, 1, 'Pay is the only tap on the payment step');
      await buyer.waitAndDone(script);
      assert.deepEqual(buyer.screens, ['Your details', 'Payment', 'wait', 'done']);
      assert.ok(buyer.taps <= 6, `${buyer.taps} taps`);
      assert.ok(buyer.typed <= 3, `${buyer.typed} typed fields`);
      assert.equal((await sessionOrder(session.id)).status, 'paid');
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test("the partner's line items and prefill: nothing typed", async () => {
    const session = await newSession(twoTypes.eventId, {
      line_items: [{ ticket_type_id: twoTypes.tenK, quantity: 1 }],
      prefill: { buyer_name: 'Okello Brian', buyer_email: 'okello@example.org', buyer_phone: '0700000001' },
    });
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    const buyer = new Buyer(page);
    await buyer.arrive('Your details');
    assert.match((await buyer.step.locator('[data-step-count]').textContent())!, /Step 1 of 2/);
    await buyer.choose(page.getByLabel('T-shirt size'), 'L');
    await buyer.tap(page.getByLabel(/I accept the waiver/));
    await buyer.tap(buyer.step.getByRole('button', { name: 'Continue' }));
    await payOnly(buyer, '0700000001', /Airtel Money/, 'UGX\u00a031,050');
    await buyer.waitAndDone(true);
    assert.deepEqual(buyer.screens, ['Your details', 'Payment', 'wait', 'done']);
    assert.ok(buyer.typed <= 1, `${buyer.typed} typed fields`);
    assert.ok(buyer.taps <= 6, `${buyer.taps} taps`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('several ticket types: the tickets step first, then the same two', async () => {
    const session = await newSession(twoTypes.eventId);
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    const buyer = new Buyer(page);
    await buyer.arrive('Tickets');
    assert.match((await buyer.step.locator('[data-step-count]').textContent())!, /Step 1 of 3/);
    assert.equal(await buyer.step.locator('[data-item]').count(), 0, 'no participant on the tickets step');
    await buyer.choose(page.getByLabel('Quantity of 10 km'), '1');
    await buyer.tap(buyer.step.getByRole('button', { name: 'Continue' }));
    await buyer.arrive('Your details');
    await buyer.type(page.getByLabel('Your name'), 'Amina Nakato');
    await buyer.type(page.getByLabel('E-mail'), 'amina@example.org');
    await buyer.type(page.getByLabel('Phone number'), '0770000001');
    await buyer.choose(page.getByLabel('T-shirt size'), 'M');
    await buyer.tap(page.getByLabel(/I accept the waiver/));
    await buyer.tap(buyer.step.getByRole('button', { name: 'Continue' }));
    await payOnly(buyer, '0770000001', /MTN Mobile Money/, 'UGX\u00a031,050');
    await buyer.waitAndDone(true);
    assert.deepEqual(buyer.screens, ['Tickets', 'Your details', 'Payment', 'wait', 'done']);
    assert.ok(buyer.taps <= 11, `${buyer.taps} taps`);
    assert.ok(buyer.typed <= 3, `${buyer.typed} typed fields`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a free registration: one screen, no phone typed, the order keeps an empty phone', async () => {
    const session = await newSession(freeRun);
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    const buyer = new Buyer(page);
    await buyer.arrive('Your details');
    assert.ok(await page.getByText('(optional)', { exact: true }).isVisible(), 'the phone says optional');
    assert.equal(await buyer.step.locator('[data-step-count]').textContent(), '', 'no "Step 1 of 1"');
    await buyer.type(page.getByLabel('Your name'), 'Amina Nakato');
    await buyer.type(page.getByLabel('E-mail'), 'amina@example.org');
    await buyer.tap(page.getByLabel(/I accept the waiver/));
    await buyer.tap(buyer.step.getByRole('button', { name: 'Confirm registration' }));
    await buyer.done(true);
    assert.deepEqual(buyer.screens, ['Your details', 'done']);
    assert.ok(buyer.taps <= 4, `${buyer.taps} taps`);
    assert.equal(buyer.typed, 2);
    const order = await sessionOrder(session.id);
    assert.equal(order.status, 'paid');
    assert.equal(order.buyer_phone, '');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('declined, then paid from another number on the wait screen', async () => {
    const session = await newSession(oneType);
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    const buyer = new Buyer(page);
    await buyer.arrive('Your details');
    await buyer.type(page.getByLabel('Your name'), 'Amina Nakato');
    await buyer.type(page.getByLabel('E-mail'), 'amina@example.org');
    // the simulator's declining number (docs/partners/testing.md)
    await buyer.type(page.getByLabel('Phone number'), '0770000003');
    await buyer.tap(page.getByLabel(/I accept the waiver/));
    await buyer.tap(buyer.step.getByRole('button', { name: 'Continue' }));
    await payOnly(buyer, '0770000003', /MTN Mobile Money/, 'UGX\u00a031,050');
    await page.waitForURL(/\/pay(\?|$)/);
    buyer.screens.push('wait');
    const declined = page.getByRole('heading', { name: 'The payment was declined' });
    await runPageClockUntil(page, 'declined', () => declined.isVisible());
    buyer.screens.push('declined');
    await buyer.type(page.getByLabel('Mobile money number'), '0770000001');
    await buyer.tap(page.getByRole('button', { name: 'Send the payment prompt' }));
    await buyer.done(true);
    assert.deepEqual(buyer.screens, ['Your details', 'Payment', 'wait', 'declined', 'done']);
    assert.ok(buyer.taps <= 8, `${buyer.taps} taps`);
    assert.ok(buyer.typed <= 4, `${buyer.typed} typed fields`);
    assert.equal((await sessionOrder(session.id)).status, 'paid');
    assert.deepEqual(problems, []);
    await context.close();
  });
});

/** The focused element's id, and whether it lies between the top and the sticky bar. */
async function focusedInView(page: Page): Promise<{ id: string; inView: boolean }> {
  return page.evaluate(() => {
    const focused = document.activeElement as HTMLElement;
    const box = focused.getBoundingClientRect();
    const step = focused.closest('[data-step]');
    const bar = step && step.querySelector('.bar');
    const bottom = bar ? bar.getBoundingClientRect().top : window.innerHeight;
    return { id: focused.id, inView: box.top >= 0 && box.bottom <= bottom };
  });
}

describe('required fields in view', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('unticking "I am the runner" brings the runner\'s name into view, focused', async () => {
    const session = await newSession(twoTypes.eventId, {
      line_items: [{ ticket_type_id: twoTypes.tenK, quantity: 1 }],
    });
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    await page.locator('section.step[data-step="details"]:not([hidden])').waitFor();
    assert.ok(!(await page.locator('#f-items-0-participant_name').isVisible()));
    await page.getByLabel('I am the runner').click();
    const focused = await focusedInView(page);
    assert.equal(focused.id, 'f-items-0-participant_name');
    assert.ok(focused.inView, 'the name is between the top and the bar');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('Continue looks not ready while fields are empty, says how many, and pressing it shows the first', async () => {
    const session = await newSession(twoTypes.eventId, {
      line_items: [{ ticket_type_id: twoTypes.tenK, quantity: 1 }],
      prefill: { buyer_name: 'Okello Brian', buyer_email: 'okello@example.org', buyer_phone: '0770000001' },
    });
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    const step = page.locator('section.step:not([hidden])');
    const continueButton = step.getByRole('button', { name: 'Continue' });
    await continueButton.waitFor();
    // T-shirt and waiver left: two fields, the button drawn as not ready and described by the count
    assert.match((await continueButton.getAttribute('class'))!, /not-ready/);
    const toFill = step.locator('[data-to-fill]');
    assert.equal(await toFill.textContent(), '2 fields to fill');
    assert.equal(await continueButton.getAttribute('aria-describedby'), await toFill.getAttribute('id'));
    await page.evaluate(() => window.scrollTo(0, 0));
    await continueButton.click();
    const focused = await focusedInView(page);
    assert.equal(focused.id, 'f-items-0-answers-tshirt', 'the first empty field');
    assert.ok(focused.inView, 'scrolled into view clear of the bar');
    await page.getByLabel('T-shirt size').selectOption('S');
    assert.equal(await toFill.textContent(), '1 field to fill');
    await page.getByLabel(/I accept the waiver/).check();
    assert.ok(await toFill.isHidden());
    assert.doesNotMatch((await continueButton.getAttribute('class')) ?? '', /not-ready/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('in Swahili the count is in Swahili', async () => {
    const session = await newSession(oneType);
    const { page, context } = await openPage();
    await page.goto(`${session.url}?lang=sw`);
    const toFill = page.locator('section.step:not([hidden]) [data-to-fill]');
    await toFill.waitFor();
    assert.equal(await toFill.textContent(), 'Sehemu 4 za kujaza');
    await context.close();
  });

  test("the browser's Back from the first screen reaches the tickets step", async () => {
    const session = await newSession(oneType);
    const { page, context, problems } = await openPage();
    await page.goto(session.url);
    await page.locator('section.step[data-step="details"]:not([hidden])').waitFor();
    await page.goBack();
    await page.locator('section.step[data-step="tickets"]:not([hidden])').waitFor();
    assert.equal(await page.locator('section.step[data-step="tickets"] [data-step-count]').count(), 0);
    await page.goForward();
    await page.locator('section.step[data-step="details"]:not([hidden])').waitFor();
    await page.getByRole('button', { name: 'Change tickets' }).click();
    await page.locator('section.step[data-step="tickets"]:not([hidden])').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('the language switch at the top', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const script of [true, false]) {
    test(`mid-form ${script ? 'with' : 'without'} the script: the same step in Swahili, all typed kept`, async () => {
      const session = await newSession(twoTypes.eventId);
      const { page, context, problems } = await openPage(script);
      await page.goto(session.url);
      await page.getByLabel('Quantity of 10 km').selectOption('1');
      await page.getByRole('button', { name: 'Continue' }).first().click();
      const details = page.locator('section.step[data-step="details"]:not([hidden])');
      await details.waitFor();
      await page.getByLabel('Your name').fill('Amina Nakato');
      await page.getByLabel('E-mail').fill('amina@');
      await page.getByLabel('T-shirt size').selectOption('L');
      const top = (await page.getByRole('button', { name: 'Kiswahili' }).boundingBox())!;
      assert.ok(top.y < 60, `the switch is at the top of the page (${top.y})`);
      await page.getByRole('button', { name: 'Kiswahili' }).click();
      await page.locator('html[lang="sw"]').waitFor();
      await details.locator('h2', { hasText: 'Taarifa zako' }).waitFor();
      assert.equal(await page.locator('#f-buyer-name').inputValue(), 'Amina Nakato');
      assert.equal(await page.locator('#f-buyer-email').inputValue(), 'amina@', 'kept as typed, unchecked');
      assert.equal(await page.locator('#f-items-0-answers-tshirt').inputValue(), 'L');
      assert.equal(await page.locator('.error-summary').count(), 0, 'nothing was checked');
      // The choice stays: a reload, and the next step, are in Swahili too.
      if (script) assert.match(page.url(), /\?lang=sw$/);
      await page.getByRole('button', { name: 'English' }).waitFor();
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});
