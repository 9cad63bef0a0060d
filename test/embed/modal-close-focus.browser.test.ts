// The modal at phone size (360x740) in Chromium: the locale option (the page and the modal's own
// words in Swahili), the × in the checkout page's header (at once with nothing typed, asking first
// with something typed, as Esc on the host page does), focus moved by script inside the frame of
// another site and the outcome said in a status region, and a paid flow with a quiet console.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { embedSw } from '../../src/site/messages/embed.sw.ts';
import { statusEn } from '../../src/site/messages/status.en.ts';
import { clickRemovingFrame, screenshot } from '../e2e/browser-helpers.ts';
import {
  checkoutFrame,
  createEmbeddedSession,
  dialogCount,
  events,
  NO_BROWSER,
  openCheckout,
  payInFrame,
  startWorld,
  waitForEvents,
  waitForReady,
  type World,
} from './browser-world.ts';

const PHONE = { width: 360, height: 740 };
/** Generous: on a machine busy with other test files a payment can be slow. */
const PAID_WITHIN_MS = 45_000;
let w: World;

declare global {
  interface Window {
    /** the last service:state the checkout page sent checkout.js */
    __state?: { prompt: boolean; typed: boolean };
  }
}

async function partnerPage(): Promise<Page> {
  const { page } = await w.newPage({ viewport: PHONE });
  await page.goto(w.partnerSite.url);
  await page.waitForFunction(() => !!window.ServiceCheckout);
  // What checkout.js is told, read beside it: so a test knows the page's word has arrived.
  await page.evaluate(() =>
    addEventListener('message', (event) => {
      if (event.data && event.data.type === 'service:state') window.__state = event.data;
    }),
  );
  return page;
}

/** Opens by publishable key and waits until the checkout page shows. */
async function openReady(page: Page, options: { prefill?: { buyer_name?: string } } = {}): Promise<Frame> {
  await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId, ...options });
  await waitForReady(page);
  return checkoutFrame(page, w.site);
}

/** Esc as the host page gets it: once the checkout is ready, focus (and a real key) is in the frame. */
async function hostEscape(page: Page): Promise<void> {
  await page.evaluate(() =>
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true })),
  );
}

async function focusedInFrame(frame: Frame): Promise<string> {
  return frame.evaluate(() => {
    const el = document.activeElement;
    return `${el?.tagName} ${el?.id} ${(el?.textContent ?? '').replace(/\s+/g, ' ').trim()}`;
  });
}

/** Chooses one 10 km ticket and, on the details step, names someone else as its runner. */
async function typeTickets(frame: Frame, name = 'Ann Runner'): Promise<void> {
  await frame.getByLabel('Quantity of 10 km').selectOption('1');
  await frame.locator('section.step:not([hidden])').getByRole('button', { name: 'Continue' }).click();
  const details = frame.locator('section.step[data-step="details"]:not([hidden])');
  await details.getByLabel('I am the runner').uncheck();
  await details.getByLabel('Full name').first().fill(name);
}

describe('the modal at phone size: locale, close, focus', { skip: NO_BROWSER ?? false }, () => {
  before(async () => {
    w = await startWorld();
  });
  after(async () => {
    await w?.close();
  });

  test("locale 'sw': the modal's own words and the checkout page in Swahili, by key and by session", async () => {
    const page = await partnerPage();
    const modal = await page.evaluate(
      ([key, eventId]) => {
        window.__events = [];
        window.ServiceCheckout!.open({
          publishableKey: key!,
          eventId: eventId!,
          locale: 'sw',
          onClose: () => window.__events.push(['close']),
        });
        const dialog = document.querySelector('[role="dialog"]')!;
        return {
          label: dialog.getAttribute('aria-label'),
          title: dialog.querySelector('iframe')!.title,
          status: dialog.querySelector('[role="status"]')!.textContent,
          close: dialog.querySelector('button')!.getAttribute('aria-label'),
        };
      },
      [w.partner.publishableKey, w.eventId],
    );
    assert.deepEqual(modal, {
      label: embedSw.checkoutLabel,
      title: embedSw.checkoutLabel,
      status: embedSw.loadingCheckout,
      close: embedSw.closeCheckout,
    });
    await waitForReady(page);
    let frame = await checkoutFrame(page, w.site);
    assert.equal(await frame.evaluate(() => document.documentElement.lang), 'sw');
    await frame
      .getByRole('heading', { name: /Tiketi/ })
      .first()
      .waitFor();
    await screenshot(page, 'embedded-sw-tickets-360', { fullPage: false });
    clickRemovingFrame(frame.getByRole('button', { name: embedSw.closeCheckout }));
    assert.deepEqual(await waitForEvents(page, 1), [['close']]);

    // A session made by the partner's server: the option goes to the page as ?lang=sw.
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await openCheckout(page, { sessionId, locale: 'sw' });
    await waitForReady(page);
    frame = await checkoutFrame(page, w.site);
    assert.equal(frame.url(), `${w.site}/checkout/${sessionId}?lang=sw`);
    assert.equal(await frame.evaluate(() => document.documentElement.lang), 'sw');
    assert.ok(await frame.getByRole('button', { name: embedSw.closeCheckout }).isVisible());
    await page.context().close();
  });

  test("locale other than 'en' or 'sw': invalid_options, nothing opens", async () => {
    const page = await partnerPage();
    for (const locale of ['fr', 'SW', '']) {
      await openCheckout(page, {
        publishableKey: w.partner.publishableKey,
        eventId: w.eventId,
        locale: locale as 'sw',
      });
    }
    const seen = await events(page);
    assert.deepEqual(
      seen.map(([kind, error]) => [kind, (error as { error_code: string }).error_code]),
      [
        ['error', 'invalid_options'],
        ['error', 'invalid_options'],
        ['error', 'invalid_options'],
      ],
    );
    assert.equal(await dialogCount(page), 0);
    await page.context().close();
  });

  test('the × in the page header, 44 px at the top right, closes at once with nothing typed (prefilled values do not count)', async () => {
    const page = await partnerPage();
    const frame = await openReady(page, { prefill: { buyer_name: 'Pre Filled' } });
    const close = frame.getByRole('button', { name: 'Close checkout' });
    const box = (await close.boundingBox())!;
    assert.deepEqual([box.x + box.width, box.y, box.width, box.height], [PHONE.width, 0, 44, 44]);
    assert.equal(await page.getByRole('button', { name: 'Close checkout' }).count(), 0, 'no bar');
    await screenshot(page, 'embedded-header-close-360', { fullPage: false });
    await close.click();
    assert.deepEqual(await waitForEvents(page, 1), [['close']]);
    assert.equal(await dialogCount(page), 0);
    await page.context().close();
  });

  test('with something typed, the × and Esc (in the frame and on the host page) ask first: Keep going keeps it, Close closes', async () => {
    const page = await partnerPage();
    const frame = await openReady(page);
    await typeTickets(frame);
    await page.waitForFunction(() => window.__state?.typed === true);
    const confirm = frame.getByRole('dialog', { name: 'Close the checkout?' });

    await frame.getByRole('button', { name: 'Close checkout' }).click();
    await confirm.waitFor();
    assert.match(await confirm.innerText(), /What you entered will be lost\./);
    assert.match(await focusedInFrame(frame), /^BUTTON {2}Keep going$/);
    await confirm.getByRole('button', { name: 'Keep going' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal(await frame.getByLabel('Full name').first().inputValue(), 'Ann Runner');

    // Esc inside the frame asks; Esc on the confirm keeps going.
    await frame.locator('section.step:not([hidden]) h2').click();
    await page.keyboard.press('Escape');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    assert.deepEqual(await events(page), []);
    assert.equal(await dialogCount(page), 1);

    // Esc on the host page: checkout.js asks the page, which asks the buyer.
    await hostEscape(page);
    await confirm.waitFor();
    assert.deepEqual(await events(page), []);
    await confirm.getByRole('button', { name: 'Close', exact: true }).click();
    assert.deepEqual(await waitForEvents(page, 1), [['close']]);
    assert.equal(await dialogCount(page), 0);

    // Nothing typed: Esc on the host page closes at once.
    await openReady(page);
    await page.waitForFunction(() => window.__state?.typed === false);
    await hostEscape(page);
    assert.deepEqual(await waitForEvents(page, 2), [['close'], ['close']]);
    await page.context().close();
  });

  test('focus by script: the frame when ready, each new step’s heading, the confirmation’s heading; the outcome in a status region; no console warnings', async () => {
    const page = await partnerPage();
    const said: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning' || message.type() === 'error') said.push(message.text());
    });
    page.on('pageerror', (error) => said.push(error.message));
    const frame = await openReady(page);
    await page.waitForFunction(() => document.activeElement?.tagName === 'IFRAME');

    await frame.getByLabel('Quantity of 10 km').selectOption('1');
    await frame.getByRole('button', { name: 'Continue' }).first().click();
    await frame.waitForFunction(() => document.activeElement?.tagName === 'H2');
    assert.match(await focusedInFrame(frame), /^H2 h-details Step 2 of \d+ ?Your details$/);

    await payInFrame(frame);
    const [paid] = await waitForEvents(page, 1, PAID_WITHIN_MS);
    assert.equal(paid![0], 'success');
    await frame.waitForFunction(() => document.activeElement?.id === 'h-done');
    const status = frame.locator('[data-success] [role="status"]');
    await status.getByText(/^Payment of .+ received\.$/).waitFor();
    assert.equal(await frame.locator('[autofocus]').count(), 0, 'no autofocus in the frame');
    clickRemovingFrame(frame.getByRole('button', { name: 'Done' }));
    assert.deepEqual((await waitForEvents(page, 2))[1], ['close']);
    assert.deepEqual(said, []);
    await page.context().close();
  });

  test('a declined payment: the wait screen’s heading has focus and its status region says why', async () => {
    const page = await partnerPage();
    const frame = await openReady(page);
    await payInFrame(frame, { phone: '0770000003' });
    const declined = statusEn.outcomes.payment_declined;
    await frame.getByRole('heading', { name: declined.title }).waitFor({ timeout: PAID_WITHIN_MS });
    await frame.waitForFunction(() => document.activeElement?.id === 'h-wait');
    await frame.locator('[data-wait] [role="status"]').getByText(declined.text).waitFor();
    await page.context().close();
  });
});
