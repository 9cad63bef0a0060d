// The hosted checkout in a real browser (Chromium, 360x740, JavaScript on): a redirect session
// created through the partner API, the buyer going through every step, paying with simulator
// numbers, and landing on the partner's on_success_url; then the partner API confirms it.
// Every step is screenshotted and checked with axe-core. The pages run on Playwright's clock, which
// the test moves past the wait screen's polls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { PROMPT_WINDOW_MS } from '../../src/payments/payment-schedule.ts';
import { getToken, makeEvent, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  clickRemovingFrame,
  apiCall,
  expectAccessible,
  launchBrowser,
  runPageClockUntil,
  screenshot,
  startListeningHarness,
  startPartnerSite,
  watchProblems,
  type PartnerSite,
} from './browser-helpers.ts';

const DAY = 24 * 3600 * 1000;
const VIEWPORT = { width: 360, height: 740 };
/** A stuck browser fails the suite instead of stalling the run. */
const SUITE_TIMEOUT_MS = 240_000;

let h: Harness;
let api: string;
let browser: Browser;
let partnerSite: PartnerSite;
let partner: TestPartner;
let token: string;
let eventId: string;
let paidTicket: string;
let freeTicket: string;

before(
  async () => {
    // A 15 s prompt window (the tests' usual scale gives 3 s): a payment approved at once must
    // not time out on a machine busy with other test files and their browsers.
    ({ h, api } = await startListeningHarness({ PAYMENT_TIME_SCALE: '0.05' }));
    partnerSite = await startPartnerSite();
    browser = await launchBrowser();
    partner = await makePartner(h, {
      returnUrlDomains: [partnerSite.origin],
      allowedDomains: [partnerSite.origin],
    });
    const event = await makeEvent(h, partner, {
      name: 'Kampala City 10K',
      venue: 'Kololo Airstrip, Kampala',
      waiver_required: true,
      waiver_version: '2026-03-01',
      waiver_text: 'I take part at my own risk and I am fit to run.',
      additional_questions: [
        {
          key: 'tshirt',
          label: 'T-shirt size',
          type: 'select',
          required: true,
          options: ['S', 'M', 'L'],
          help: '',
        },
      ],
      ticket_types: [
        { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10, min_age: 16 },
        { name: '5 km fun run', price_minor: 0, capacity: 5, distance_km: 5 },
      ],
    });
    eventId = event.id;
    const detail = await h.service.api.inject({
      method: 'GET',
      url: `/v1/events/${eventId}`,
      headers: { authorization: `Bearer ${await getToken(h, partner)}` },
    });
    const types = detail.json().data.ticket_types as { ticket_type_id: string; price_minor: number }[];
    paidTicket = types.find((t) => t.price_minor > 0)!.ticket_type_id;
    freeTicket = types.find((t) => t.price_minor === 0)!.ticket_type_id;
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await partnerSite?.close();
  await h?.close();
});

async function newSession(overrides: Record<string, unknown> = {}) {
  token = await getToken(h, partner);
  const res = await apiCall(api, token, 'POST', '/v1/checkout-sessions', {
    event_id: eventId,
    on_success_url: `${partnerSite.origin}/thanks?session_id={CHECKOUT_SESSION_ID}`,
    on_cancel_url: `${partnerSite.origin}/race`,
    client_reference_id: 'cart-42',
    prefill: { buyer_name: 'Amina Nakato', buyer_email: 'amina@example.org' },
    ...overrides,
  });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json.data as { id: string; url: string };
}

async function openPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  const page = await context.newPage();
  // The page's own clock, running with real time until the test moves it.
  await page.clock.install();
  return { page, problems: watchProblems(page) };
}

async function ordersCount(sessionId: string): Promise<number> {
  const rows = await h.service.ctx.database.rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM orders WHERE checkout_session_id = ${sessionId}`,
  );
  return rows[0]!.n;
}

async function heading(page: Page): Promise<string> {
  const visible = page.locator('section.step:not([hidden]) h2');
  return (await visible.textContent())!.trim();
}

/** Presses Tab until the element matching `selector` has focus (at most 40 times). */
async function tabTo(page: Page, selector: string): Promise<void> {
  const target = page.locator(selector);
  for (let i = 0; i < 40; i++) {
    if (await target.evaluate((e) => e === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} is not reachable by Tab`);
}

/** Continue from the visible step. */
async function next(page: Page) {
  await page.locator('section.step:not([hidden])').getByRole('button', { name: 'Continue' }).click();
}

/** Tickets -> details with the participant; stops on the payment step (on the details step when free). */
async function fillUpToPayment(page: Page, options: { shots?: string; free?: boolean } = {}) {
  const shot = async (name: string) => {
    if (!options.shots) return;
    await screenshot(page, `${options.shots}-${name}`);
    await expectAccessible(page, name);
  };
  assert.match(await heading(page), /Step 1 of \d+\s*Tickets/);
  await shot('01-tickets');
  // Continuing with nothing chosen is stopped next to the tickets list.
  await next(page);
  await page.getByText('Error: Choose at least one ticket').waitFor();
  await page.selectOption(`select[name="qty.${options.free ? freeTicket : paidTicket}"]`, '1');
  await next(page);

  assert.match(await heading(page), /Your details/);
  // The prefill is applied and editable.
  assert.equal(await page.getByLabel('Your name').inputValue(), 'Amina Nakato');
  // The participant is with the buyer. The buyer is not the runner here.
  await page.getByLabel('I am the runner').uncheck();
  await page.locator('section.step:not([hidden]) [data-primary]').click();
  await page.getByText('Error: Full name is required').waitFor();
  await shot('02-participant-errors');
  await page.getByLabel('Full name').fill('Okello Brian');
  await page.getByLabel('T-shirt size').selectOption('M');
  if (!options.free) await page.getByLabel('Date of birth').fill('1995-04-12');
  await page.getByLabel('Phone number').fill('0772 123456');
  await page.locator('section.step:not([hidden]) [data-primary]').click();
  await page.getByText('Error: Accept the waiver to continue').waitFor();
  await page.getByLabel(/I accept the waiver \(version 2026-03-01\)/).check();
  await shot('03-details');
  if (!options.free) await next(page);
}

describe('hosted checkout in a browser (redirect session)', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('a buyer pays with MTN (0770000001) and lands on on_success_url; the API shows it paid', async () => {
    const session = await newSession();
    const { page, problems } = await openPage();
    await page.goto(session.url);
    // Readable at 320 px: nothing wider than the screen.
    await page.setViewportSize({ width: 320, height: 640 });
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= 320),
      'no sideways scroll at 320 px',
    );
    await screenshot(page, 'paid-00-tickets-320px');
    await page.setViewportSize(VIEWPORT);
    await fillUpToPayment(page, { shots: 'paid' });

    assert.match(await heading(page), /Payment/);
    // The payment number starts as the buyer's; the network follows its prefix.
    assert.equal(await page.getByLabel('Mobile money number').inputValue(), '0772 123456');
    assert.ok(await page.getByLabel('MTN Mobile Money').isChecked());
    await page.getByLabel('Mobile money number').fill('0700000001');
    assert.ok(await page.getByLabel('Airtel Money').isChecked(), 'Airtel guessed from 070');
    assert.equal(await page.locator('input[name=payment_method][value=card]').count(), 0, 'no card tile');
    await page.getByLabel('Mobile money number').fill('0770000001');
    assert.ok(await page.getByLabel('MTN Mobile Money').isChecked());
    // The folded summary replaces a review screen.
    await page.getByText(/Order summary/).click();
    const summary = (await page.locator('[data-summary]').textContent())!;
    assert.match(summary, /10 km\s*UGX\u00a030,000/);
    assert.match(summary, /Service fee \(MTN Mobile Money\)\s*UGX\u00a01,050/);
    assert.match(summary, /Total\s*UGX\u00a031,050/);
    assert.match(summary, /Okello Brian/);
    await screenshot(page, 'paid-06-payment');
    await expectAccessible(page, 'payment');

    await page.getByRole('button', { name: 'Pay UGX 31,050' }).click();
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible());
    assert.ok(await page.getByText(/Payment of UGX\u00a031,050 received/).isVisible());
    assert.ok(await page.getByText('Okello Brian').isVisible());
    await screenshot(page, 'paid-08-confirmation');

    // The confirmation stays until the buyer leaves (no timer of the page's sends them on, nor a
    // refresh in its head); then on to the partner, with the session id in place of the placeholder.
    await page.clock.runFor(6000);
    assert.equal(await page.locator('meta[http-equiv="refresh" i]').count(), 0, 'no refresh');
    assert.ok(await page.getByRole('heading', { name: 'You are registered' }).isVisible());
    await page.getByRole('link', { name: /^Continue to / }).click();
    await page.waitForURL(`${partnerSite.origin}/thanks?session_id=${session.id}`, { timeout: 30_000 });
    assert.ok(partnerSite.visits.includes(`/thanks?session_id=${session.id}`));

    const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${session.id}`);
    assert.equal(read.json.data.status, 'complete');
    assert.equal(read.json.data.order.status, 'paid');
    assert.equal(read.json.data.client_reference_id, 'cart-42');
    const order = await apiCall(api, token, 'GET', `/v1/orders/${read.json.data.order.id}`);
    assert.equal(order.json.data.status, 'paid');
    assert.equal(order.json.data.total, 31050);
    assert.equal(order.json.data.buyer.name, 'Amina Nakato');
    assert.deepEqual(
      order.json.data.registrations.map((r: { participant_name: string; status: string }) => [
        r.participant_name,
        r.status,
      ]),
      [['Okello Brian', 'confirmed']],
    );

    // Coming back shows the confirmation again, without sending the buyer anywhere.
    await page.goto(session.url);
    await page.getByRole('heading', { name: 'You are registered' }).waitFor();
    assert.ok(await page.getByText(read.json.data.order.code).isVisible());
    await screenshot(page, 'paid-09-confirmation-again');
    await expectAccessible(page, 'confirmation');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('declined (0770000003), then paid with another number and network (0700000001, Airtel)', async () => {
    const session = await newSession();
    const { page, problems } = await openPage();
    await page.goto(session.url);
    await fillUpToPayment(page);
    await page.getByLabel('Mobile money number').fill('0770000003');
    await page.getByRole('button', { name: /^Pay UGX/ }).click();

    const declined = page.getByRole('heading', { name: 'The payment was declined' });
    await runPageClockUntil(page, 'declined', () => declined.isVisible());
    assert.ok(await page.getByText(/Your tickets are held for/).isVisible());
    await screenshot(page, 'declined-01-outcome');
    await expectAccessible(page, 'declined outcome');

    // The network follows the new number's prefix...
    await page.getByLabel('Mobile money number').fill('0700000001');
    assert.ok(await page.getByLabel(/Airtel Money/).isChecked());
    // ...and a buyer who overrides it with the wrong one is refused next to the number, by the server.
    await page.getByLabel(/MTN Mobile Money/).check();
    await page.getByRole('button', { name: 'Send the payment prompt' }).click();
    await page.getByText(/Error: This is an Airtel Money number/).waitFor();
    const phone = page.getByLabel('Mobile money number');
    assert.equal(await phone.getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'declined-02-retry-error');
    await expectAccessible(page, 'retry with an error');

    await page.getByLabel(/Airtel Money/).check();
    await page.getByRole('button', { name: 'Send the payment prompt' }).click();
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible());
    await page.getByRole('link', { name: /^Continue to / }).click();
    await page.waitForURL(`${partnerSite.origin}/thanks?session_id=${session.id}`, { timeout: 30_000 });

    const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${session.id}`);
    assert.equal(read.json.data.status, 'complete');
    const order = await apiCall(api, token, 'GET', `/v1/orders/${read.json.data.order.id}`);
    assert.equal(order.json.data.status, 'paid');
    assert.equal(order.json.data.registrations[0].status, 'confirmed');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a prompt nobody approves (0770000004) times out with a clear outcome and a retry form', async () => {
    const session = await newSession();
    const { page, problems } = await openPage();
    await page.goto(session.url);
    await fillUpToPayment(page);
    await page.getByLabel('Mobile money number').fill('0770000004');
    // A double click sends one order and one prompt.
    await page.getByRole('button', { name: /^Pay UGX/ }).dblclick();

    await page.getByRole('heading', { name: 'Approve the payment on your phone' }).waitFor();
    assert.ok(
      await page
        .locator('[data-wait]')
        .getByText(/0770 ••• 004/)
        .isVisible(),
    );
    await screenshot(page, 'timeout-01-wait');
    await expectAccessible(page, 'wait screen');
    // A reload of the wait screen creates nothing (counted below); on a busy machine it may
    // already find the prompt timed out.
    await page.reload();
    await page
      .getByRole('heading', { name: /^(Approve the payment on your phone|The payment prompt timed out)$/ })
      .waitFor();

    // The window ends by the service's clock: moved past it, rather than waited out.
    h.clock.advance(PROMPT_WINDOW_MS * h.config.payments.timeScale);
    const timedOut = page.getByRole('heading', { name: 'The payment prompt timed out' });
    await runPageClockUntil(page, 'timed out', () => timedOut.isVisible(), 40_000);
    assert.ok(await page.getByRole('button', { name: 'Send the payment prompt' }).isVisible());
    await screenshot(page, 'timeout-02-outcome');
    assert.equal(await ordersCount(session.id), 1, 'one order for the session');
    assert.equal(
      (
        await h.service.ctx.database.rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM payment_attempts a JOIN orders o ON o.id = a.order_id WHERE o.checkout_session_id = ${session.id}`,
        )
      )[0]!.n,
      1,
      'one prompt',
    );
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('the keyboard alone completes a registration; focus goes to each step heading; Back stays inside', async () => {
    const session = await newSession();
    const { page, problems } = await openPage();
    await page.goto(session.url);
    const quantity = page.locator(`select[name="qty.${paidTicket}"]`);
    for (let i = 0; i < 10 && !(await quantity.evaluate((e) => e === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    assert.ok(
      await quantity.evaluate((e) => e === document.activeElement),
      'the quantity is reachable by Tab',
    );
    await page.keyboard.press('Tab'); // the free ticket's quantity
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator(`select[name="qty.${freeTicket}"]`).inputValue(), '1');
    await page.keyboard.press('Tab'); // Continue: the participants are on the next step
    await page.keyboard.press('Enter');
    await page.locator('#h-details').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'h-details');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-buyer-name');
    // Enter in a field continues (and is stopped by the checks), never submits the order. The
    // free registration's phone may stay empty: the T-shirt is the first problem.
    await page.keyboard.press('Enter');
    await page.getByText('Error: T-shirt size is required').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-items-0-answers-tshirt');
    assert.equal(await ordersCount(session.id), 0);
    // The browser's Back returns to the tickets step, inside the checkout; Forward comes back.
    await page.goBack();
    await page.locator('section.step:not([hidden]) #h-tickets').waitFor();
    assert.equal(page.url(), session.url);
    await page.goForward();
    await page.locator('section.step:not([hidden]) #h-details').waitFor();

    await tabTo(page, '#f-runner_is_buyer');
    await page.keyboard.press('Tab'); // the runner's name is the buyer's: on to the T-shirt
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-items-0-answers-tshirt');
    await page.keyboard.press('ArrowDown');
    await tabTo(page, '#f-waiver_accepted');
    await page.keyboard.press('Space');
    await tabTo(page, 'section.step:not([hidden]) [data-primary]');
    assert.equal(
      await page.evaluate(() => document.activeElement?.textContent?.trim()),
      'Confirm registration',
    );
    await page.keyboard.press('Enter');
    const done = page.getByRole('heading', { name: 'You are registered' });
    await done.waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'h-done', 'focus on the result');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('fees and totals follow the chosen network', async () => {
    const dear = await makePartner(h, {
      returnUrlDomains: [partnerSite.origin],
      fees: { momo: { percent_bp: 350, fixed_minor: 0 }, airtel: { percent_bp: 500, fixed_minor: 100 } },
    });
    const event = await makeEvent(h, dear, {
      ticket_types: [{ name: 'Half', price_minor: 20000, capacity: 50 }],
    });
    const dearToken = await getToken(h, dear);
    const res = await apiCall(api, dearToken, 'POST', '/v1/checkout-sessions', {
      event_id: event.id,
      on_success_url: `${partnerSite.origin}/thanks`,
      on_cancel_url: `${partnerSite.origin}/race`,
    });
    const { page, problems } = await openPage();
    await page.goto(res.json.data.url);
    const price = page.locator('p.price').first();
    assert.match((await price.textContent())!, /UGX\u00a020,700\s*incl\. UGX\u00a0700 fee/);
    // One type on sale: the page opens on the details step, the quantity behind "Change tickets".
    await page.getByRole('button', { name: 'Change tickets' }).click();
    await page.locator('select[data-qty]').selectOption('2');
    await page.locator('section.step:not([hidden]) [data-total]').getByText('UGX\u00a041,400').waitFor();
    await next(page);
    await page.getByLabel('I am the runner').uncheck();
    await page.getByLabel('Full name').nth(0).fill('One');
    await page.getByLabel('Full name').nth(1).fill('Two');
    await page.getByLabel('Your name').fill('One');
    await page.getByLabel('E-mail').fill('one@example.org');
    await page.getByLabel('Phone number').fill('0752123456');
    await next(page);
    assert.ok(await page.getByLabel('Airtel Money').isChecked(), 'Airtel guessed from 075');
    await page.getByText(/Order summary/).click();
    const summary = page.locator('[data-summary]');
    assert.match((await summary.textContent())!, /Service fee \(Airtel Money\)\s*UGX\u00a02,200/);
    assert.match((await summary.textContent())!, /Total\s*UGX\u00a042,200/);
    assert.ok(await page.getByRole('button', { name: 'Pay UGX\u00a042,200' }).isVisible());
    await page.getByLabel('MTN Mobile Money').check();
    await page.getByLabel('Mobile money number').fill('0772123456');
    assert.match((await summary.textContent())!, /Total\s*UGX\u00a041,400/);
    assert.ok(await page.getByRole('button', { name: 'Pay UGX\u00a041,400' }).isVisible());
    assert.match((await price.textContent())!, /UGX\u00a020,700\s*incl\. UGX\u00a0700 fee/);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('a free ticket skips payment and confirms at once', async () => {
    const session = await newSession();
    const { page, problems } = await openPage();
    await page.goto(session.url);
    await fillUpToPayment(page, { free: true });
    // No payment step for a free order: the details step confirms it.
    assert.match(await heading(page), /Step 2 of 2\s*Your details/);
    assert.equal(
      (await page.locator('section.step:not([hidden]) [data-total]').textContent())!.trim(),
      'Free',
    );
    await screenshot(page, 'free-01-details');
    await page.getByRole('button', { name: 'Confirm registration' }).click();
    await page.getByRole('heading', { name: 'You are registered' }).waitFor();
    assert.ok(await page.getByText('Your registration is confirmed.').isVisible());
    await screenshot(page, 'free-02-confirmation');
    await page.getByRole('link', { name: /^Continue to / }).click();
    await page.waitForURL(`${partnerSite.origin}/thanks?session_id=${session.id}`, { timeout: 30_000 });
    const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${session.id}`);
    assert.equal(read.json.data.status, 'complete');
    assert.equal(read.json.data.order.status, 'paid');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('cancel sends the buyer to on_cancel_url as given', async () => {
    const session = await newSession();
    const { page, problems } = await openPage();
    await page.goto(session.url);
    await page.getByRole('button', { name: /Cancel and return to/ }).click();
    await page.waitForURL(`${partnerSite.origin}/race`);
    const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${session.id}`);
    assert.equal(read.json.data.status, 'open');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('an expired session says so and links back to on_cancel_url', async () => {
    const session = await newSession();
    h.clock.advance(DAY + 60_000);
    try {
      const { page, problems } = await openPage();
      const res = await page.goto(session.url);
      assert.equal(res?.status(), 410);
      await page.getByRole('heading', { name: 'This checkout has expired' }).waitFor();
      await screenshot(page, 'expired-01');
      await expectAccessible(page, 'expired');
      await page.getByRole('link', { name: /Return to/ }).click();
      await page.waitForURL(`${partnerSite.origin}/race`);
      assert.deepEqual(problems, []);
      await page.context().close();
    } finally {
      h.clock.advance(-(DAY + 60_000));
    }
  });
});

describe('hosted checkout without its script', { timeout: SUITE_TIMEOUT_MS }, () => {
  // The page script is blocked, as when it fails to load on a bad connection. (Switching
  // JavaScript off in the browser would also switch off axe-core, which runs in the page.)
  test('the plain forms take the buyer through errors, the three steps, payment and confirmation', async () => {
    const session = await newSession();
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.route(/\/assets\/checkout\.[^/]+\.js$/, (route) => route.abort());
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(session.url);
    await page.selectOption(`select[name="qty.${paidTicket}"]`, '1');
    await page.getByRole('button', { name: 'Continue' }).click();

    // The server shows the participant on the details step, then checks each step's fields.
    await page.getByRole('heading', { name: /Your details/ }).waitFor();
    await page.getByLabel('I am the runner').uncheck();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    assert.ok(await page.getByText('Error: Full name is required').isVisible());
    assert.equal(await page.getByLabel('Full name').getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'nojs-01-errors');
    await expectAccessible(page, 'server errors');

    await page.getByLabel('Full name').fill('Nambi Sarah');
    await page.getByLabel('T-shirt size').selectOption('L');
    await page.getByLabel('Date of birth').fill('1990-01-31');
    await page.getByLabel('Phone number').fill('0770000001');
    await page.getByLabel(/I accept the waiver/).check();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: /Payment/ }).waitFor();
    // The number and network start from the buyer's phone, set by the server.
    assert.equal(await page.getByLabel('Mobile money number').inputValue(), '0770000001');
    assert.ok(await page.getByLabel('MTN Mobile Money').isChecked());
    await page.getByText(/Order summary/).click();
    assert.ok(await page.getByText('Nambi Sarah (10 km)').isVisible());
    await screenshot(page, 'nojs-02-payment');
    await expectAccessible(page, 'server payment step');
    await page.getByRole('button', { name: 'Pay UGX 31,050' }).click();

    // Without the script the buyer (or the <noscript> refresh) reloads the wait screen until paid.
    await page.waitForURL(/\/pay$/);
    const deadline = Date.now() + 20_000;
    while (!(await page.getByRole('heading', { name: 'You are registered' }).isVisible())) {
      assert.ok(Date.now() < deadline, 'paid within 20 s');
      await page.waitForTimeout(300);
      await page.reload();
    }
    await page.getByRole('link', { name: /Continue to/ }).click();
    await page.waitForURL(`${partnerSite.origin}/thanks?session_id=${session.id}`);
    const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${session.id}`);
    assert.equal(read.json.data.status, 'complete');
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('hosted checkout in a frame (embedded session)', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('renders inside a page on its embed origin, and posts ready and success to that origin only', async () => {
    token = await getToken(h, partner);
    const res = await apiCall(api, token, 'POST', '/v1/checkout-sessions', {
      event_id: eventId,
      ui_mode: 'embedded',
      embed_origin: partnerSite.origin,
    });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    const session = res.json.data as { id: string; url: string };
    const { page, problems } = await openPage();
    await page.goto(`${partnerSite.origin}/embed?src=${encodeURIComponent(session.url)}`);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('heading', { name: /Tickets/ }).waitFor();
    const received = () =>
      page.evaluate(
        () => (window as unknown as { received: { origin: string; data: { type: string } }[] }).received,
      );
    await page.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
    assert.deepEqual((await received())[0]!.data, { type: 'service:ready' });

    await frame.locator(`select[name="qty.${freeTicket}"]`).selectOption('1');
    await frame.locator('section.step:not([hidden])').getByRole('button', { name: 'Continue' }).click();
    // The buyer runs: the participant takes the buyer's name from above.
    await frame.getByLabel('T-shirt size').selectOption('S');
    await frame.getByLabel('Your name').fill('Achieng Grace');
    await frame.getByLabel('E-mail').fill('grace@example.org');
    await frame.getByLabel('Phone number').fill('0752123456');
    await frame.getByLabel(/I accept the waiver/).check();
    await frame.getByRole('button', { name: 'Confirm registration' }).click();
    await frame.getByRole('heading', { name: 'You are registered' }).waitFor();
    await page.waitForFunction(() =>
      (window as unknown as { received: { data: { type: string } }[] }).received.some(
        (m) => m.data.type === 'service:success',
      ),
    );
    const success = (await received()).find((m) => m.data.type === 'service:success')!;
    const siteOrigin = new URL(session.url).origin;
    assert.equal(success.origin, siteOrigin);
    const read = await apiCall(api, token, 'GET', `/v1/checkout-sessions/${session.id}`);
    assert.deepEqual(success.data, {
      type: 'service:success',
      session_id: session.id,
      order_id: read.json.data.order.id,
      order_code: read.json.data.order.code,
    });
    // Never a redirect of the host page.
    assert.equal(page.url(), `${partnerSite.origin}/embed?src=${encodeURIComponent(session.url)}`);
    await screenshot(page, 'embedded-01-confirmation');
    clickRemovingFrame(frame.getByRole('button', { name: 'Done' }));
    await page.waitForFunction(() =>
      (window as unknown as { received: { data: { type: string } }[] }).received.some(
        (m) => m.data.type === 'service:close',
      ),
    );
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  test('Cancel posts service:cancel to the embed origin and never moves the host page', async () => {
    token = await getToken(h, partner);
    const res = await apiCall(api, token, 'POST', '/v1/checkout-sessions', {
      event_id: eventId,
      ui_mode: 'embedded',
      embed_origin: partnerSite.origin,
    });
    const session = res.json.data as { id: string; url: string };
    const host = `${partnerSite.origin}/embed?src=${encodeURIComponent(session.url)}`;
    const { page, problems } = await openPage();
    await page.goto(host);
    const frame = page.frameLocator('iframe');
    await frame.getByRole('button', { name: 'Cancel', exact: true }).click();
    await frame.getByRole('heading', { name: 'Checkout cancelled' }).waitFor();
    const types = await page.evaluate(() =>
      (window as unknown as { received: { origin: string; data: { type: string } }[] }).received.map(
        (m) => `${m.origin} ${m.data.type}`,
      ),
    );
    const site = new URL(session.url).origin;
    assert.ok(types.includes(`${site} service:cancel`), types.join(', '));
    assert.ok(
      types.every((t) => t.startsWith(`${site} `)),
      'every message comes from the checkout site',
    );
    assert.equal(page.url(), host);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
