// The wait screen's ways out in a real browser (Chromium; 320x640 and 360x740): the prompt's own
// countdown, steady polling, "Resend prompt" after the (scaled) half minute, saying when it was sent, "Use another number or
// network", the cancel confirmation (a panel with the script, a page without), focus on the
// result heading after every load, axe-core on each screen, and the keyboard alone. The order
// form is posted directly (its steps are tested elsewhere). Payments run ten times faster
// (PAYMENT_TIME_SCALE 0.1): a 30 s prompt window, "Resend prompt" after 3 s. The pages run on
// Playwright's clock and the test moves it where the wait screen's timers decide (its polls, when
// "Resend prompt" shows), the service's clock where the service decides, and the payer approves
// when the test says (the simulator's test control).
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { nextPollDelayMs } from '../../src/payments/payment-schedule.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import {
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';
import {
  apiCall,
  expectAccessible,
  launchBrowser,
  runPageClockUntil,
  screenshot,
  startPartnerSite,
  watchProblems,
  type PartnerSite,
} from './browser-helpers.ts';

const SMALL = { width: 320, height: 640 };
const LARGE = { width: 360, height: 740 };
/** A stuck browser fails the suite instead of stalling the run. */
const SUITE_TIMEOUT_MS = 240_000;
const TIME_SCALE = 0.1;
/** The longest wait between two of the job's questions while the prompt is out, scaled. */
const LONGEST_JOB_POLL_MS = Math.max(...[0, 1, 2, 3, 4].map(nextPollDelayMs)) * TIME_SCALE;

let sim: Simulator;
let h: Harness;
let api: string;
let browser: Browser;
let partnerSite: PartnerSite;
let token: string;
let partner: TestPartner;
let eventId: string;
let ticketId: string;

before(
  async () => {
    const [apiPort, sitePort, appPort] = [await freePort(), await freePort(), await freePort()];
    api = `http://127.0.0.1:${apiPort}`;
    // The simulator the service would start, but the test's own: its approve() is the payer.
    sim = await startSimulator({ timeScale: TIME_SCALE });
    h = await startHarness({
      env: {
        API_URL: api,
        SITE_URL: `http://127.0.0.1:${sitePort}`,
        APP_URL: `http://127.0.0.1:${appPort}`,
        PAYMENT_TIME_SCALE: String(TIME_SCALE),
        SIMULATOR_URL: sim.url,
      },
    });
    await h.service.listen();
    partnerSite = await startPartnerSite();
    browser = await launchBrowser();
    partner = await makePartner(h, {
      returnUrlDomains: [partnerSite.origin],
      allowedDomains: [partnerSite.origin],
    });
    token = await getToken(h, partner);
    const event = await makeEvent(h, partner, {
      name: 'Jinja Half Marathon',
      ticket_types: [{ name: '21 km', price_minor: 50000, capacity: 100, distance_km: 21 }],
    });
    eventId = event.id;
    const detail = await apiCall(api, token, 'GET', `/v1/events/${eventId}`);
    ticketId = detail.json.data.ticket_types[0].ticket_type_id;
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await partnerSite?.close();
  await h?.close();
  await sim?.close();
});

async function newSession(embedded = false) {
  token = await getToken(h, partner);
  const res = await apiCall(
    api,
    token,
    'POST',
    '/v1/checkout-sessions',
    embedded
      ? { event_id: eventId, ui_mode: 'embedded', embed_origin: partnerSite.origin }
      : {
          event_id: eventId,
          on_success_url: `${partnerSite.origin}/thanks`,
          on_cancel_url: `${partnerSite.origin}/race`,
        },
  );
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json.data as { id: string; url: string };
}

async function openPage(viewport = LARGE, script = true): Promise<{ page: Page; problems: string[] }> {
  const context: BrowserContext = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  if (!script) await context.route(/\/assets\/checkout\.[^/]+\.js$/, (route) => route.abort());
  const page = await context.newPage();
  // Running with real time until the test moves it.
  await page.clock.install();
  return { page, problems: watchProblems(page) };
}

/** Posts the order form from the checkout page loaded in `target`, as the buyer's browser would. */
async function postOrder(target: Page | Frame, sessionUrl: string, phone: string, method: string) {
  const fields: Record<string, string> = {
    [`qty.${ticketId}`]: '1',
    'items[0].ticket_type_id': ticketId,
    'items[0].participant_name': 'Nakato Sarah',
    'buyer.name': 'Nakato Sarah',
    'buyer.email': 'sarah@example.org',
    'buyer.phone': '0772123456',
    waiver_accepted: 'yes',
    payment_method: method,
    payment_phone: phone,
    action: 'pay',
  };
  const submit = ({ action, fields }: { action: string; fields: Record<string, string> }) => {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = action;
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  };
  const arg = { action: `${new URL(sessionUrl).pathname}/order`, fields };
  await (target as Frame).evaluate(submit, arg);
  await target.waitForURL(/\/pay$/);
}

/** Opens the session and posts the order; lands on the wait screen. */
async function payFrom(page: Page, session: { url: string }, phone: string, method = 'momo') {
  await page.goto(session.url);
  await postOrder(page, session.url, phone, method);
}

async function attemptsOf(sessionId: string) {
  return h.service.ctx.database.rows<{ status: string; method: string; msisdn: string }>(
    sql`SELECT a.status, a.method, a.msisdn FROM payment_attempts a JOIN orders o ON o.id = a.order_id
        WHERE o.checkout_session_id = ${sessionId} ORDER BY a.created_at`,
  );
}

/** The payer approves the session's pending prompt now; the service's job asks at its next question. */
async function approveNow(sessionId: string): Promise<void> {
  const [attempt] = await h.service.ctx.database.rows<{ reference: string }>(
    sql`SELECT a.reference FROM payment_attempts a JOIN orders o ON o.id = a.order_id
        WHERE o.checkout_session_id = ${sessionId} AND a.status = 'pending'`,
  );
  assert.ok(attempt && sim.approve(attempt.reference), 'a prompt was out');
  h.clock.advance(LONGEST_JOB_POLL_MS);
  await h.service.jobs.runDue();
}

async function orderStatus(sessionId: string) {
  const [row] = await h.service.ctx.database.rows<{ status: string }>(
    sql`SELECT status FROM orders WHERE checkout_session_id = ${sessionId}`,
  );
  return row?.status;
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

/** The seconds shown by a countdown, "4:59" -> 299. */
async function shownSeconds(page: Page, selector: string): Promise<number> {
  const text = (await page.locator(selector).textContent())!.trim();
  const [m, s] = text.split(':').map(Number);
  return m! * 60 + s!;
}

describe('the wait screen with its script', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('counts the prompt down, polls every 2 s, and offers "Resend prompt" after half a minute', async () => {
    const session = await newSession();
    const { page, problems } = await openPage(SMALL);
    // Each status check, sent and answered, at the page's clock, which the test moves (the test's
    // own time would not tell).
    await page.addInitScript(() => {
      const polls: { sent: number; answered?: number }[] = ((
        window as unknown as { __polls: unknown[] }
      ).__polls = []);
      const send = window.fetch.bind(window);
      window.fetch = (input, init) => {
        if (!String(input).endsWith('/status.json')) return send(input, init);
        const poll: { sent: number; answered?: number } = { sent: Date.now() };
        polls.push(poll);
        return send(input, init).finally(() => (poll.answered = Date.now()));
      };
    });
    const polls = () =>
      page.evaluate(() => (window as unknown as { __polls: { sent: number; answered?: number }[] }).__polls);
    await payFrom(page, session, '0770000009');
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    assert.equal(await focusedId(page), 'h-wait', 'focus on the result heading');
    const first = await shownSeconds(page, '[data-prompt-countdown]');
    assert.ok(first > 20 && first <= 30, `the 30 s (scaled) prompt window, not the hold: ${first}`);
    assert.match((await page.locator('[data-countdown]').textContent())!, /1[45]:\d\d/);
    assert.equal(await page.locator('[data-wait]').getAttribute('data-poll'), '1');
    assert.ok(
      !(await page.getByRole('button', { name: 'Resend prompt' }).isVisible()),
      'not before the half minute',
    );
    assert.ok(await page.getByRole('button', { name: 'Use another number or network' }).isVisible());
    await screenshot(page, 'wait-01-waiting-320px');
    await expectAccessible(page, 'wait screen 320');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), 'no sideways scroll');

    // The half minute (3 s scaled) passes on the service's clock, and on the page's while it polls:
    // "Resend prompt" shows by the page's timer, and the server takes it.
    h.clock.advance(3_000);
    await runPageClockUntil(page, 'five status checks', async () => (await polls()).length >= 5);
    assert.ok(await page.getByRole('button', { name: 'Resend prompt' }).isVisible(), 'after the half minute');
    assert.ok((await shownSeconds(page, '[data-prompt-countdown]')) < first, 'counting down');
    // Steady polling while the prompt is out: each check goes 2 s after the last one's answer
    // (a backoff would wait 4 s or more); how long an answer takes is the machine's, not the page's.
    const times = await polls();
    const gaps = times.slice(1).map((poll, i) => poll.sent - times[i]!.answered!);
    assert.ok(Math.min(...gaps) >= 2000 && Math.max(...gaps) < 3000, `gaps ${gaps.join(', ')}`);
    await page.setViewportSize(LARGE);
    await screenshot(page, 'wait-02-resend-360px');
    await expectAccessible(page, 'wait screen with resend');

    await page.getByRole('button', { name: 'Resend prompt' }).click();
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'h-wait');
    assert.match((await page.getByRole('status').first().textContent())!, /Sent again at \d\d:\d\d\./);
    const attempts = await attemptsOf(session.id);
    assert.deepEqual(
      attempts.map((a) => [a.status, a.msisdn]),
      [
        ['closed', '256770000009'],
        [attempts[1]!.status, '256770000009'],
      ],
    );
    assert.ok(['submitting', 'pending'].includes(attempts[1]!.status));
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('with the keyboard alone: "Use another number or network", then the filled retry form pays', async () => {
    const session = await newSession();
    const { page, problems } = await openPage(LARGE);
    await payFrom(page, session, '0770000009');
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    const other = page.getByRole('button', { name: 'Use another number or network' });
    for (let i = 0; i < 12 && !(await other.evaluate((e) => e === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    assert.ok(await other.evaluate((e) => e === document.activeElement), 'reachable by Tab');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Pay with another number or network' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'h-wait');
    assert.equal(await page.locator('[data-wait]').getAttribute('data-poll'), '0');
    assert.equal(await page.getByLabel('Mobile money number').inputValue(), '0770000009');
    assert.ok(await page.getByLabel(/MTN Mobile Money/).isChecked());
    assert.match((await page.locator('[data-wait] [role=status]').textContent())!, /Approve only one prompt/);
    await screenshot(page, 'wait-03-another-number-360px');
    await expectAccessible(page, 'another number');
    await page.setViewportSize(SMALL);
    await screenshot(page, 'wait-03-another-number-320px');
    assert.equal((await attemptsOf(session.id))[0]!.status, 'closed');

    const phone = page.getByLabel('Mobile money number');
    await phone.focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('0700000001');
    assert.ok(await page.getByLabel(/Airtel Money/).isChecked(), 'the network follows the number');
    await page.keyboard.press('Enter');
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible(), 15_000);
    assert.equal(await focusedId(page), 'h-done', 'focus on the result heading');
    assert.equal(await orderStatus(session.id), 'paid');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a payment approved after the first checks shows "You are registered" at the next one', async () => {
    const session = await newSession();
    const { page, problems } = await openPage(LARGE);
    let checks = 0;
    page.on('request', (r) => void (r.url().endsWith('/status.json') && checks++));
    await payFrom(page, session, '0770000009');
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    await runPageClockUntil(page, 'a first check', async () => checks > 0);
    assert.ok(await page.getByRole('heading', { name: 'Approve the payment on your phone' }).isVisible());
    await approveNow(session.id);
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible(), 10_000);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('cancel while a prompt is out asks in a panel first; leaving closes the prompt and keeps the order', async () => {
    const session = await newSession();
    const { page, problems } = await openPage(SMALL);
    await payFrom(page, session, '0770000009');
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    await page.getByRole('link', { name: /Cancel and return to/ }).click();
    const panel = page.locator('[data-cancel-panel]');
    await panel.waitFor();
    assert.equal(await focusedId(page), 'h-cancel');
    assert.match(await panel.innerText(), /If you approve it, you will still be charged and registered/);
    assert.equal(page.url().endsWith('/pay'), true, 'still on the wait screen');
    await screenshot(page, 'wait-04-cancel-panel-320px');
    await expectAccessible(page, 'cancel panel');

    await page.getByRole('button', { name: 'Keep waiting' }).click();
    assert.ok(await panel.isHidden());
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('data-cancel-ask')),
      '',
      'focus back on Cancel',
    );
    assert.equal((await attemptsOf(session.id))[0]!.status, 'pending');

    // A slow network holds the cancel over two of the wait screen's checks (2 s apart; the page's
    // clock runs in real time here, and cannot be moved while the page navigates). None may go
    // out: its outcome would replace the page and so end the way back to the partner.
    let checksAfterCancel = 0;
    await page.route(/\/cancel$/, async (route) => {
      await delay(2 * 2000 + 500);
      await route.continue();
    });
    await page.getByRole('link', { name: /Cancel and return to/ }).click();
    page.on('request', (r) => void (r.url().endsWith('/status.json') && checksAfterCancel++));
    await page.getByRole('button', { name: /Cancel and return to/ }).click();
    assert.equal(checksAfterCancel, 0, 'no status check once the cancel is sent');
    await page.waitForURL(`${partnerSite.origin}/race`);
    assert.equal((await attemptsOf(session.id))[0]!.status, 'closed');
    assert.equal(await orderStatus(session.id), 'pending', 'an approval would still pay');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a declined prompt: the outcome is announced, focused, and the retry form is filled in', async () => {
    const session = await newSession();
    const { page, problems } = await openPage(SMALL);
    await payFrom(page, session, '0700000003', 'airtel');
    const declined = page.getByRole('heading', { name: 'The payment was declined' });
    await runPageClockUntil(page, 'declined', () => declined.isVisible(), 15_000);
    assert.equal(await focusedId(page), 'h-wait');
    assert.match(
      (await page.locator('[data-wait] [role=status]').textContent())!,
      /not approved on the phone/,
    );
    assert.equal(await page.getByLabel('Mobile money number').inputValue(), '0700000003');
    assert.ok(await page.getByLabel(/Airtel Money/).isChecked());
    await screenshot(page, 'wait-05-declined-320px');
    await expectAccessible(page, 'declined');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});

describe('the wait screen without its script', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('the server refreshes the countdown, shows "Resend prompt" after half a minute, and asks on its own page before cancelling', async () => {
    const session = await newSession();
    const { page, problems } = await openPage(LARGE, false);
    await payFrom(page, session, '0770000009');
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    assert.equal(await focusedId(page), 'h-wait', 'autofocus without the script');
    assert.ok(await page.locator('form[data-resend]').isHidden());
    // 6.5 s on, by the service's clock rather than waited out.
    h.clock.advance(6_500);
    await page.reload(); // as the <noscript> refresh does every 5 s
    assert.ok(
      await page.getByRole('button', { name: 'Resend prompt' }).isVisible(),
      'the server shows it now',
    );
    assert.ok((await shownSeconds(page, '[data-prompt-countdown]')) < 25);

    await page.getByRole('link', { name: /Cancel and return to/ }).click();
    await page.waitForURL(/\/cancel$/);
    await page.getByRole('heading', { name: 'Cancel while a prompt is on your phone?' }).waitFor();
    await screenshot(page, 'wait-06-cancel-page-nojs-360px');
    await expectAccessible(page, 'cancel page');
    await page.getByRole('link', { name: 'Keep waiting' }).click();
    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    assert.equal((await attemptsOf(session.id))[0]!.status, 'pending');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});

describe('an embedded wait screen', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('cancel asks first, then tells the host page service:cancel', async () => {
    const session = await newSession(true);
    const { page, problems } = await openPage(LARGE);
    const host = `${partnerSite.origin}/embed?src=${encodeURIComponent(session.url)}`;
    await page.goto(host);
    const inFrame = page.frameLocator('iframe');
    await inFrame.getByRole('heading', { name: /Your details/ }).waitFor();
    const frame = page.frames().find((f) => f.url().startsWith(session.url))!;
    await postOrder(frame, session.url, '0770000009', 'momo');
    await inFrame.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    await inFrame.getByRole('link', { name: 'Cancel', exact: true }).click();
    const received = () =>
      page.evaluate(() =>
        (window as unknown as { received: { data: { type: string } }[] }).received.map((m) => m.data.type),
      );
    assert.ok(!(await received()).includes('service:cancel'), 'nothing told before confirming');
    await inFrame.getByRole('button', { name: 'Cancel anyway' }).click();
    await inFrame.getByRole('heading', { name: 'Checkout cancelled' }).waitFor();
    assert.ok((await received()).includes('service:cancel'));
    assert.equal(page.url(), host);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});

describe('the wait screen in Swahili', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('a browser asking for Swahili gets the wait screen and its cancel panel in Swahili at 320 px', async () => {
    const session = await newSession();
    // The browser's language: Playwright sends it as Accept-Language.
    const context = await browser.newContext({ viewport: SMALL, deviceScaleFactor: 1, locale: 'sw-UG' });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await payFrom(page, session, '0770000009');
    await page.getByRole('heading', { name: 'Kubali malipo kwenye simu yako' }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'sw');
    assert.equal(await focusedId(page), 'h-wait', 'focus on the result heading');
    assert.match(
      (await page.locator('.prompt-time').textContent())!,
      /Muda uliobaki wa kukubali:\s*\d+:\d\d/,
    );
    assert.ok(await page.getByRole('button', { name: 'Tumia namba au mtandao mwingine' }).isVisible());
    await screenshot(page, 'wait-07-waiting-sw-320px');
    await expectAccessible(page, 'Swahili wait screen 320');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320), 'no sideways scroll');

    await page.getByRole('link', { name: /^Ghairi/ }).click();
    const ask = page.getByRole('heading', { name: 'Ghairi wakati ombi la malipo liko kwenye simu yako?' });
    await ask.waitFor();
    await expectAccessible(page, 'Swahili cancel panel');
    await page.getByRole('button', { name: 'Endelea kusubiri' }).click();
    assert.ok(!(await ask.isVisible()), 'the panel closes on "Keep waiting"');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
