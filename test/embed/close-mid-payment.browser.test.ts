// The embedded modal never loses a paid order: while a payment prompt is out, closing
// asks first (a confirm inside the checkout page); a checkout closed anyway stays hidden and keeps
// watching, and when the payment completes onSuccess fires once and the buyer sees the order code
// on the confirmation, whose Done fires onClose again. Also: no prompt, no question; the partner's
// close() never asks; open() while a closed checkout is still watched; Back inside the frame.
//
// The payer approves when the test says (a simulator of the test's own, its number 09 pending
// until then, and a prompt window at full length); the service then learns of it at its job's
// next question, its clock moved there, and the checkout page at its next status poll, its clock
// moved too: the real polling, without its waits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import type { Frame, Page } from 'playwright-core';
import { nextPollDelayMs } from '../../src/payments/payment-schedule.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { clickRemovingFrame, screenshot } from '../e2e/browser-helpers.ts';
import { bearer, getToken } from '../helpers/harness.ts';
import {
  checkoutFrame,
  dialogCount,
  NO_BROWSER,
  payInFrame,
  startWorld,
  waitForReady,
  type World,
} from './browser-world.ts';

let w: World;
let sim: Simulator;

const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
/** Pending for ever unless approved (the simulator's test control). */
const APPROVED_BY_THE_TEST = '0770000009';
const CONFIRM = 'Close while your payment is waiting?';
const QUIET_MS = 500;
/** The wait screen's status poll (payment-wait.ts POLL_MS). */
const PAGE_POLL_MS = 2000;
/** The longest wait between two of the job's questions while the prompt is out. */
const LONGEST_JOB_POLL_MS = Math.max(...[0, 1, 2, 3, 4].map(nextPollDelayMs));

/**
 * From the checkout's first step to the wait screen (a prompt out on the slow number), until the
 * host page has heard that a prompt is out: the frame's service:state follows its wait screen, and
 * a close() before it ends the checkout instead of watching it. The only place that knows the
 * form: another change reshapes it, the `data-poll="1"` marker stays.
 */
async function reachWaitScreen(page: Page, frame: Frame): Promise<void> {
  await payInFrame(frame, { phone: APPROVED_BY_THE_TEST });
  await frame.locator('[data-poll="1"]').waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => (window as { promptOut?: boolean }).promptOut === true);
}

/** The example page's own log of callbacks (its #log list). */
async function pageLog(page: Page): Promise<string[]> {
  return page.locator('#log li').allInnerTexts();
}

async function openByKey(): Promise<{ page: Page; frame: Frame; sessionId: string }> {
  const { page } = await w.newPage({ viewport: { width: 360, height: 740 } });
  // The pages' own clock, running with real time until a test moves it (the checkout page's poll).
  await page.clock.install();
  // Heard in the same dispatch as checkout.js's own listener, which was added later.
  await page.addInitScript(() =>
    addEventListener('message', ({ data }: MessageEvent) => {
      if (data?.type === 'service:state') (window as { promptOut?: boolean }).promptOut = data.prompt;
    }),
  );
  await page.goto(w.partnerSite.url);
  await page.getByRole('button', { name: /publishable key/ }).click();
  await waitForReady(page);
  const frame = await checkoutFrame(page, w.site);
  return { page, frame, sessionId: sessionIdOf(frame) };
}

function sessionIdOf(frame: Frame): string {
  return frame.url().split('/checkout/')[1]!.split(/[/?#]/)[0]!;
}

async function readSession(sessionId: string) {
  const res = await w.h.service.api.inject({
    url: `/v1/checkout-sessions/${sessionId}`,
    headers: bearer(await getToken(w.h, w.partner)),
  });
  assert.equal(res.statusCode, 200);
  return res.json().data;
}

/**
 * The payer approves the session's prompt now; the service's job asks at its next question (its
 * clock moved there) and the checkout page polls next (its clock moved by one poll).
 */
async function approveAndPoll(page: Page, sessionId: string): Promise<void> {
  const orderId = (await readSession(sessionId)).order.id;
  const [attempt] = await w.h.service.ctx.database.db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId));
  assert.ok(sim.approve(attempt!.reference), 'the prompt was still out');
  w.h.clock.advance(LONGEST_JOB_POLL_MS);
  await w.h.service.jobs.runDue();
  await page.clock.runFor(PAGE_POLL_MS);
}

/** The overlay on screen (a closed checkout still watching stays in the DOM, hidden). */
async function modalShown(page: Page): Promise<boolean> {
  return page.locator('[role="dialog"]').isVisible();
}

/** Every axe finding, of any impact, in the checkout page with the confirm up. */
async function axeFindings(frame: Frame): Promise<string[]> {
  await frame.evaluate(AXE_SOURCE);
  return frame.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (c: unknown) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    const result = await axe.run({ resultTypes: ['violations'] } as unknown);
    return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
  });
}

/** The text of the focused element inside the checkout page. */
async function focusedInFrame(frame: Frame): Promise<string> {
  return frame.evaluate(() => {
    const el = document.activeElement;
    return el && el.closest('dialog') ? `dialog: ${el.textContent}` : `page: ${el?.tagName}`;
  });
}

describe('embedded checkout closed mid-payment', { skip: NO_BROWSER ?? false }, () => {
  before(async () => {
    sim = await startSimulator({ timeScale: 1 });
    w = await startWorld({ env: { SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '1' } });
  });
  after(async () => {
    await w?.close();
    await sim?.close();
  });

  test('asks before closing while a prompt is out; closed anyway, it still shows the paid order and fires onSuccess once', async () => {
    const started = new Date().toISOString();
    const { page, frame, sessionId } = await openByKey();
    await reachWaitScreen(page, frame);
    const confirm = frame.getByRole('dialog', { name: CONFIRM });

    // Esc on the wait screen: the confirm, with Keep waiting focused.
    await frame.locator('h2').first().click();
    await page.keyboard.press('Escape');
    await confirm.waitFor();
    assert.match(
      await confirm.innerText(),
      /A payment prompt is on your phone\. If you approve it, you will still be charged/,
    );
    assert.equal(await focusedInFrame(frame), 'dialog: Keep waiting');
    assert.deepEqual(await axeFindings(frame), [], 'axe on the confirm');
    await screenshot(page, 'embedded-close-confirm-360');

    // Keyboard only: Tab and Shift+Tab stay on its two buttons; Esc on it is Keep waiting.
    const seen = new Set<string>();
    for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      const focused = await focusedInFrame(frame);
      assert.match(focused, /^dialog: (Keep waiting|Close)$/, `${key} left the confirm`);
      seen.add(focused);
    }
    assert.equal(seen.size, 2, 'both buttons reachable');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    await page.waitForTimeout(QUIET_MS);
    assert.ok(await modalShown(page), 'Esc on the confirm kept the checkout');
    assert.deepEqual(await pageLog(page), []);

    // Esc again, then Keep waiting by click: still open, nothing fired.
    await frame.locator('h2').first().click();
    await page.keyboard.press('Escape');
    await confirm.getByRole('button', { name: 'Keep waiting' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.ok(await modalShown(page));
    assert.deepEqual(await pageLog(page), []);

    // The × in the page's header asks the same question; Close closes: onClose once, page as it was.
    await frame.getByRole('button', { name: 'Close checkout' }).click();
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Close' }).click();
    await page.locator('#log li', { hasText: /^close$/ }).waitFor();
    assert.equal(await modalShown(page), false);
    assert.equal(await page.evaluate(() => document.documentElement.style.overflow), '');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'buy-with-key');
    assert.deepEqual(await pageLog(page), ['close']);

    // The approval comes in after the close: onSuccess once, and the modal is back on the confirmation.
    await approveAndPoll(page, sessionId);
    await page.locator('#log li', { hasText: /^success / }).waitFor({ timeout: 20_000 });
    const code = (await pageLog(page))[1]!.slice('success '.length);
    assert.ok(await modalShown(page), 'the modal shows again');
    await frame.getByRole('heading', { name: 'You are registered' }).waitFor();
    assert.equal(await frame.locator('.code').innerText(), code, 'the buyer sees the order code');
    await page.locator('#fulfilment', { hasText: 'Confirmed by our server' }).waitFor({ timeout: 20_000 });
    await screenshot(page, 'embedded-paid-after-close-360');
    await page.waitForTimeout(QUIET_MS);
    assert.deepEqual(await pageLog(page), ['close', `success ${code}`], 'onSuccess exactly once');

    // The server: the session complete, its order paid, and no other order of the event paid.
    const session = await readSession(sessionId);
    assert.deepEqual([session.status, session.order.status, session.order.code], ['complete', 'paid', code]);
    const paid = await w.h.service.api.inject({
      url: `/v1/orders?event_id=${w.eventId}&status=paid&created_after=${encodeURIComponent(started)}`,
      headers: bearer(await getToken(w.h, w.partner)),
    });
    assert.equal(paid.statusCode, 200);
    assert.deepEqual(
      paid.json().data.orders.map((o: { id: string }) => o.id),
      [session.order.id],
    );

    // Done is one more dismissal: onClose again, and the overlay is gone for good.
    clickRemovingFrame(frame.getByRole('button', { name: 'Done' }));
    await page
      .locator('#log li', { hasText: /^close$/ })
      .nth(1)
      .waitFor();
    assert.deepEqual(await pageLog(page), ['close', `success ${code}`, 'close']);
    assert.equal(await dialogCount(page), 0);
    await page.context().close();
  });

  test('with no prompt out, Esc in the page, Esc on the modal and × close at once, without asking', async () => {
    const { page, frame } = await openByKey();
    await frame.locator('h2').first().click();
    // Esc goes to the frame, which its own key removes: input sent to a frame going away can wait
    // for it for ever, and keyboard calls have no time-out. So they are not awaited; the waits on
    // the page's log and overlay (with time-outs) decide.
    const escape = (direction: 'down' | 'up') => void page.keyboard[direction]('Escape').catch(() => {});
    escape('down');
    await page.locator('#log li', { hasText: /^close$/ }).waitFor();
    escape('up');
    assert.equal(await dialogCount(page), 0, 'gone at once, not hidden');
    for (const how of ['Escape', 'Close checkout']) {
      await page.getByRole('button', { name: /publishable key/ }).click();
      await waitForReady(page);
      // Esc in the checkout page, which has focus.
      if (how === 'Escape') escape('down');
      else
        clickRemovingFrame(
          (await checkoutFrame(page, w.site)).getByRole('button', { name: 'Close checkout' }),
        );
      await page.waitForFunction(() => !document.querySelector('[role="dialog"]'));
      if (how === 'Escape') escape('up');
    }
    assert.deepEqual(await pageLog(page), ['close', 'close', 'close']);
    await page.context().close();
  });

  test("the partner's close() mid-payment does not ask; a new checkout opens meanwhile; the paid one shows after it", async () => {
    const { page, frame, sessionId } = await openByKey();
    await reachWaitScreen(page, frame);
    await page.evaluate(() => window.ServiceCheckout!.close());
    await page.locator('#log li', { hasText: /^close$/ }).waitFor();
    // The frame may already be gone with the modal: then it asked nothing either.
    const confirms = await frame
      .getByRole('dialog', { name: CONFIRM })
      .count()
      .catch((error: unknown) => {
        if (frame.isDetached()) return 0;
        throw error;
      });
    assert.equal(confirms, 0, 'no confirm');
    assert.equal(await modalShown(page), false);

    // open() works while the closed checkout is watched: a second checkout, on another session.
    await page.getByRole('button', { name: /session our server created/ }).click();
    // Not waitForReady: it looks at the first overlay in the page, the hidden one.
    await page.locator('[role="dialog"]:visible iframe[style*="visibility: visible"]').waitFor();
    assert.equal(await page.locator('[role="dialog"]:visible').count(), 1, 'one checkout on screen');
    const second = page.frames().find((f) => f !== frame && f.url().startsWith(`${w.site}/checkout/`))!;
    assert.notEqual(sessionIdOf(second), sessionIdOf(frame));

    // The first order is paid while the second checkout is open: onSuccess at once, and the
    // confirmation waits until the buyer closes the second one (no prompt there: at once).
    await approveAndPoll(page, sessionId);
    await page.locator('#log li', { hasText: /^success / }).waitFor({ timeout: 20_000 });
    await page.waitForTimeout(QUIET_MS);
    assert.equal(await page.locator('[role="dialog"]:visible').count(), 1);
    assert.ok(
      await second
        .getByRole('heading', { name: /Tickets/ })
        .first()
        .isVisible(),
    );
    clickRemovingFrame(second.getByRole('button', { name: 'Close checkout' }));
    await frame.getByRole('heading', { name: 'You are registered' }).waitFor();
    assert.ok(await frame.getByRole('button', { name: 'Done' }).isVisible(), 'the first one is back');
    const code = (await pageLog(page))[1]!.slice('success '.length);
    clickRemovingFrame(frame.getByRole('button', { name: 'Done' }));
    await page.waitForFunction(() => !document.querySelector('[role="dialog"]'));
    assert.deepEqual(await pageLog(page), ['close', `success ${code}`, 'close', 'close']);
    await page.context().close();
  });

  test('Back inside the checkout moves within the frame: checkout.js adds no history entry and stays open', async () => {
    const { page } = await w.newPage();
    await page.goto(w.partnerSite.url);
    const before = await page.evaluate(() => history.length);
    await page.getByRole('button', { name: /publishable key/ }).click();
    await waitForReady(page);
    const frame = await checkoutFrame(page, w.site);
    assert.equal(await page.evaluate(() => history.length), before, 'opening added no entry');
    // What the checkout page does to make Back move between its steps (another change): a
    // history entry of its own, and a popstate when Back returns to the step before.
    await frame.evaluate(() => {
      (window as unknown as { __pops: number }).__pops = 0;
      addEventListener('popstate', () => (window as unknown as { __pops: number }).__pops++);
      history.pushState({ step: 2 }, '', location.href);
    });
    assert.equal(await page.evaluate(() => history.length), before + 1, 'only the frame added one');
    await page.evaluate(() => history.back());
    await frame.waitForFunction(() => (window as unknown as { __pops: number }).__pops === 1);
    assert.equal(page.url(), `${w.partnerSite.url}/`, 'the partner page stayed');
    assert.ok(await modalShown(page), 'the checkout stayed open');
    assert.deepEqual(await pageLog(page), []);
    await page.context().close();
  });
});
