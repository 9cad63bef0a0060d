// A buyer never meets a dead end when the checkout answers 503 or the network fails (Chromium, a
// phone's 360 px and a desktop's 1280 px, English and Swahili): opening the page, Pay with and
// without the page script, a Pay whose answer is lost, and the wait screen through failed status
// checks. Each time the buyer reads, in their language, whether a prompt was sent, keeps what they
// typed, and has "Try again", which works once the fault is gone, with one prompt in all.
// Faults: the service shedding under a real overload (test/helpers/overload-fault.ts), and
// requests intercepted in the browser (page.route) for lost answers and failed status checks.
// Screenshots of the 503 page and of the message in place go to test-results/screenshots/.
// Every page runs on Playwright's clock: the wait screen's polls and back-offs fire when the test
// moves it, not seconds later.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getToken, makeEvent, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import { shedRequests, SHEDDING_SETTINGS } from '../helpers/overload-fault.ts';
import { attemptsOf, TSHIRT_QUESTION } from '../site/site-helpers.ts';
import {
  apiCall,
  expectAccessible,
  launchBrowser,
  runPageClockUntil,
  screenshot,
  startListeningHarness,
  waitShown,
  watchProblems,
} from './browser-helpers.ts';

const SUITE_TIMEOUT_MS = 300_000;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

const WORDS = {
  en: {
    none: 'No payment prompt was sent to your phone, and nothing was charged.',
    nothing: 'Nothing was sent to your phone.',
    maybe: 'We cannot tell whether a payment prompt was sent to your phone.',
    tryAgain: 'Try again',
    approve: 'Approve the payment on your phone',
    registered: 'You are registered',
    stillChecking: 'We cannot reach the checkout just now.',
  },
  sw: {
    none: 'Hakuna ombi la malipo lililotumwa kwenye simu yako, na hakuna pesa iliyokatwa.',
    nothing: 'Hakuna kilichotumwa kwenye simu yako.',
    maybe: 'Hatuwezi kujua kama ombi la malipo limetumwa kwenye simu yako.',
    tryAgain: 'Jaribu tena',
    approve: 'Kubali malipo kwenye simu yako',
    registered: 'Umesajiliwa',
    stillChecking: 'Hatuwezi kufikia huduma ya malipo sasa hivi.',
  },
};
type Language = keyof typeof WORDS;

let h: Harness;
let api: string;
let site: string;
let browser: Browser;
let partner: TestPartner;
let eventId: string;

before(
  async () => {
    ({ h, api, site } = await startListeningHarness(SHEDDING_SETTINGS));
    browser = await launchBrowser();
    partner = await makePartner(h);
    const event = await makeEvent(h, partner, {
      name: 'Mbale Hills 10K',
      waiver_required: true,
      waiver_version: '2026-07',
      waiver_text: 'I run at my own risk.',
      additional_questions: [TSHIRT_QUESTION],
      ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 }],
    });
    eventId = event.id;
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await h?.close();
});

async function newSession(): Promise<{ id: string; url: string }> {
  const token = await getToken(h, partner);
  const res = await apiCall(api, token, 'POST', '/v1/checkout-sessions', {
    event_id: eventId,
    on_success_url: 'https://shop.example.org/thanks',
    on_cancel_url: 'https://shop.example.org/race',
  });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json.data;
}

async function open(options: {
  language: Language;
  script: boolean;
  viewport?: { width: number; height: number };
}): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? PHONE,
    deviceScaleFactor: 1,
    locale: options.language === 'sw' ? 'sw' : 'en-GB',
  });
  const page = await context.newPage();
  // Running with real time; moved on where the wait screen's timers decide (runPageClockUntil).
  await page.clock.install();
  // Without the script: blocked, as on a connection that drops it (axe still runs). Through the
  // DevTools protocol rather than route(), which would turn the HTTP cache off: a buyer's browser
  // has the stylesheet cached, and would not ask a shedding service for it again.
  if (!options.script) {
    const devtools = await context.newCDPSession(page);
    await devtools.send('Network.enable');
    await devtools.send('Network.setBlockedURLs', { urls: ['*/assets/checkout.*.js'] });
  }
  return { page, context, problems: options.script ? watchProblems(page) : [] };
}

const shown = (page: Page) => page.locator('section.step:not([hidden])');

/** Details (the only ticket type chosen), payment: everything typed, up to the Pay button (not pressed). */
async function fillToPay(page: Page): Promise<void> {
  await page.locator('select[name="items[0].answers.tshirt"]').selectOption('M');
  await page.locator('[name="buyer.name"]:visible').fill('Amina Nakato');
  await page.locator('[name="buyer.email"]:visible').fill('amina@example.org');
  await page.locator('[name="buyer.phone"]:visible').fill('0770000001');
  await page.locator('[name="waiver_accepted"]:visible').check();
  await shown(page).locator('[data-primary]').click();
  await shown(page).locator('[name="payment_phone"]').waitFor();
  assert.equal(await shown(page).getAttribute('data-step'), 'payment');
}

async function expectTyped(page: Page): Promise<void> {
  const value = (name: string) => page.locator(`[name="${name}"]`).first().inputValue();
  assert.equal(await value('items[0].answers.tshirt'), 'M');
  assert.equal(await value('buyer.name'), 'Amina Nakato');
  assert.equal(await value('buyer.email'), 'amina@example.org');
  assert.equal(await value('payment_phone'), '0770000001');
  assert.ok(await page.locator('[name="waiver_accepted"]').first().isChecked());
}

/** The button in reach on the screen, and nothing wider than it. */
async function expectInReach(page: Page, button: ReturnType<Page['locator']>, what: string) {
  const viewport = page.viewportSize()!;
  await button.scrollIntoViewIfNeeded();
  const box = (await button.boundingBox())!;
  assert.ok(box.y >= 0 && box.y + box.height <= viewport.height, `${what}: the button is on screen`);
  assert.ok(box.height >= 44, `${what}: the button is big enough to tap (${box.height} px)`);
  assert.ok(
    await page.evaluate((w) => document.documentElement.scrollWidth <= w, viewport.width),
    `${what}: no sideways scroll`,
  );
}

async function waitForRegistered(page: Page, language: Language, reload = false): Promise<void> {
  const registered = page.getByRole('heading', { name: WORDS[language].registered });
  if (!reload) return runPageClockUntil(page, 'registered', () => registered.isVisible());
  const deadline = Date.now() + 30_000;
  while (!(await registered.isVisible())) {
    assert.ok(Date.now() < deadline, `registered within 30 s (at ${page.url()})`);
    await page.waitForTimeout(300);
    await page.reload();
  }
}

describe('a buyer never meets a dead end', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const language of ['en', 'sw'] as const) {
    test(`with the script (${language}): Pay while the checkout sheds says so in place, keeps the form, and Try again pays once`, async () => {
      const words = WORDS[language];
      const session = await newSession();
      const { page, context, problems } = await open({ language, script: true });
      await page.goto(session.url);
      await fillToPay(page);
      const shedding = await shedRequests(h, site);
      try {
        await shown(page).locator('[data-primary]').click();
        const note = page.locator('[data-unavailable-note]');
        await note.waitFor();
        assert.ok((await note.innerText()).includes(words.none), await note.innerText());
        assert.match(await note.innerText(), /req_[A-Za-z0-9]{24}/, 'the reference to quote');
        assert.equal(
          await page.evaluate(() => document.activeElement?.hasAttribute('data-unavailable-note')),
          true,
        );
        assert.equal(await shown(page).getAttribute('data-step'), 'payment', 'still on the payment step');
        await expectTyped(page);
        const again = note.getByRole('button', { name: words.tryAgain });
        await expectInReach(page, again, 'phone');
        assert.equal(await shown(page).locator('[data-primary]').isDisabled(), false, 'Pay works again');
        await screenshot(page, `unavailable-in-place-${language}-360`);
        await page.setViewportSize(DESKTOP);
        await screenshot(page, `unavailable-in-place-${language}-1280`);
        await expectInReach(page, again, 'desktop');
        await expectAccessible(page, `the message in place (${language})`);
        await page.setViewportSize(PHONE);
      } finally {
        await shedding.release();
      }
      await page.locator('[data-unavailable-note]').getByRole('button', { name: words.tryAgain }).click();
      const paying = page
        .getByRole('heading', { name: words.approve })
        .or(page.getByRole('heading', { name: words.registered }));
      await waitShown(page, paying.first(), 'the wait screen or the confirmation');
      await waitForRegistered(page, language);
      assert.equal(await attemptsOf(h, session.id), 1);
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test('with the script: a Pay whose answer is lost says a prompt may have gone, and Try again sends none more', async () => {
    const session = await newSession();
    const { page, context, problems } = await open({ language: 'en', script: true });
    await page.goto(session.url);
    await fillToPay(page);
    // The order and its prompt are made on the server; the answer never reaches the phone.
    let lost = 0;
    await page.route(/\/checkout\/[^/]+\/order/, async (route) => {
      if (lost++ > 0) return route.continue();
      await route.fetch({ maxRedirects: 0 });
      await route.abort('connectionreset');
    });
    await shown(page).locator('[data-primary]').click();
    const note = page.locator('[data-unavailable-note]');
    await note.waitFor();
    const text = await note.innerText();
    assert.ok(text.includes(WORDS.en.maybe), text);
    assert.ok(text.includes('Check your phone before you try again'), text);
    assert.ok(text.includes('What you entered is still here.'), text);
    await expectTyped(page);
    await screenshot(page, 'unavailable-answer-lost-en-360');
    assert.equal(await attemptsOf(h, session.id), 1, 'the lost request did send the prompt');
    await note.getByRole('button', { name: 'Try again' }).click();
    await waitForRegistered(page, 'en');
    assert.equal(lost, 2);
    assert.equal(await attemptsOf(h, session.id), 1, 'Try again sent no second prompt');
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const language of ['en', 'sw'] as const) {
    test(`without the script (${language}): Pay while the checkout sheds shows the 503 page with the form again, and Try again pays`, async () => {
      const words = WORDS[language];
      const session = await newSession();
      const { page, context } = await open({ language, script: false });
      await page.goto(session.url);
      await fillToPay(page);
      const shedding = await shedRequests(h, site);
      try {
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          shown(page).locator('[data-primary]').click(),
        ]);
        assert.equal(response.status(), 503);
        assert.equal(response.headers()['retry-after'], '1');
        const section = page.locator('[data-unavailable]');
        await section.waitFor();
        const text = await section.innerText();
        assert.ok(text.includes(words.none), text);
        assert.ok(text.includes(String(response.headers()['x-request-id'])), 'the request id to quote');
        const hidden = await page
          .locator('[data-unavailable] input[type="hidden"]')
          .evaluateAll((inputs) =>
            Object.fromEntries(
              inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value]),
            ),
          );
        assert.equal(hidden['buyer.name'], 'Amina Nakato');
        assert.equal(hidden['payment_phone'], '0770000001');
        assert.equal(hidden['items[0].answers.tshirt'], 'M');
        assert.equal(hidden.action, 'pay');
        const again = page.getByRole('button', { name: words.tryAgain });
        await expectInReach(page, again, 'phone');
        await screenshot(page, `unavailable-page-${language}-360`);
        await page.setViewportSize(DESKTOP);
        await expectInReach(page, again, 'desktop');
        await screenshot(page, `unavailable-page-${language}-1280`);
        await expectAccessible(page, `the 503 page (${language})`);
        await page.setViewportSize(PHONE);
      } finally {
        await shedding.release();
      }
      await page.getByRole('button', { name: words.tryAgain }).click();
      await waitForRegistered(page, language, true);
      assert.equal(await attemptsOf(h, session.id), 1);
      await context.close();
    });
  }

  for (const script of [true, false]) {
    test(`opening the checkout while it sheds, ${script ? 'with' : 'without'} the script: the 503 page, and Try again opens the form`, async () => {
      const session = await newSession();
      const { page, context, problems } = await open({ language: 'sw', script });
      // Loaded once, so that its style and script are cached, as for a buyer who comes back.
      await page.goto(session.url);
      const shedding = await shedRequests(h, site);
      try {
        const response = await page.reload();
        assert.equal(response?.status(), 503);
        const text = await page.locator('[data-unavailable]').innerText();
        assert.ok(text.includes(WORDS.sw.nothing), text);
      } finally {
        await shedding.release();
      }
      await page.getByRole('link', { name: WORDS.sw.tryAgain }).click();
      await page.locator('form[data-checkout]').waitFor();
      assert.deepEqual(problems, [], 'the inline style and script run under the page CSP');
      await context.close();
    });
  }

  test('with the script, the wait screen keeps checking through 503s and lost answers, then shows the confirmation', async () => {
    const session = await newSession();
    const { page, context, problems } = await open({ language: 'en', script: true });
    // One check lost, three answered 503 (as a proxy in front of the service would), and the
    // first load of the outcome page 503 too.
    const faults = ['lost', '503', '503', '503'];
    let checks = 0;
    await page.route(/\/status\.json/, async (route) => {
      const fault = faults[checks++];
      if (fault === 'lost') return route.abort('internetdisconnected');
      if (fault === '503') {
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '1' },
          contentType: 'text/html',
          body: 'busy',
        });
      }
      return route.continue();
    });
    // Armed once the wait screen shows: asking the page itself from in here could wait on a
    // navigation that waits on this very handler.
    let armed = false;
    let outcomes = 0;
    await page.route(/\/checkout\/[^/]+\/pay(\?|$)/, async (route) => {
      if (!armed || route.request().method() !== 'GET') return route.continue();
      if (outcomes++ === 0) {
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '1' },
          contentType: 'text/html',
          body: 'busy',
        });
      }
      return route.continue();
    });
    await page.goto(session.url);
    await fillToPay(page);
    await shown(page).locator('[data-primary]').click();
    await waitShown(page, page.getByRole('heading', { name: WORDS.en.approve }), 'the wait screen');
    armed = true;
    await runPageClockUntil(
      page,
      'the still-checking note',
      () => page.getByText(WORDS.en.stillChecking).isVisible(),
      20_000,
    );
    await screenshot(page, 'unavailable-wait-still-checking-en-360');
    await waitForRegistered(page, 'en');
    assert.ok(checks > faults.length, `${checks} checks`);
    assert.equal(outcomes, 2, 'the outcome page was asked for again after its 503');
    assert.equal(await page.getByText(WORDS.en.stillChecking).count(), 0, 'the note went with the page');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('without the script, the wait screen while the checkout sheds reloads itself, then shows the confirmation', async () => {
    const session = await newSession();
    const { page, context } = await open({ language: 'en', script: false });
    await page.goto(session.url);
    await fillToPay(page);
    await shown(page).locator('[data-primary]').click();
    await page.waitForURL(/\/pay$/);
    const shedding = await shedRequests(h, site);
    try {
      assert.equal((await page.reload())?.status(), 503);
      await page.locator('[data-unavailable]').waitFor();
    } finally {
      await shedding.release();
    }
    // Nobody presses anything: the 503 page reloads itself after its Retry-After.
    await page.locator('[data-unavailable]').waitFor({ state: 'detached', timeout: 15_000 });
    await waitForRegistered(page, 'en', true);
    await context.close();
  });
});
