// The modal never meets a dead end either (checkout.js over the example partner's page): a Pay the
// service sheds shows its message inside the frame, which keeps the form, and the modal stays open;
// a frame whose first load is shed shows the 503 page at once rather than a spinner until the load
// timeout; a session the service could not create, or could not be asked for, leaves the buyer a
// message in their language and "Try again". Each Try again works once the fault is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Frame, Locator, Page } from 'playwright-core';
import { SCREENSHOTS } from '../e2e/browser-helpers.ts';
import { shedRequests, SHEDDING_SETTINGS } from '../helpers/overload-fault.ts';
import { attemptsOf } from '../site/site-helpers.ts';
import {
  checkoutFrame,
  createEmbeddedSession,
  dialogCount,
  events,
  NO_BROWSER,
  openCheckout,
  startWorld,
  waitForEvents,
  waitForReady,
  type World,
} from './browser-world.ts';

let w: World;

const PHONE = { width: 360, height: 740 };

async function partnerPage(locale = 'en-GB'): Promise<Page> {
  const context = await w.browser.newContext({ viewport: PHONE, locale });
  const page = await context.newPage();
  // checkout.js comes from the SITE host: loaded before any fault.
  await page.goto(w.partnerSite.url);
  return page;
}

/** One 10 km ticket for someone else, up to the Pay button (not pressed). */
async function fillInFrame(frame: Frame): Promise<void> {
  const step = () => frame.locator('section.step:not([hidden])');
  await frame.getByLabel('Quantity of 10 km').selectOption('1');
  await step().getByRole('button', { name: 'Continue' }).click();
  await step().getByLabel('I am the runner').uncheck();
  await step().getByLabel('Full name').first().fill('Ann Runner');
  await step().getByLabel('Your name').fill('Ann Buyer');
  await step().getByLabel('E-mail').fill('ann@example.org');
  await step().getByLabel('Phone number').fill('0772123456');
  await step().getByRole('button', { name: 'Continue' }).click();
  await step().getByLabel('MTN Mobile Money').check();
  await step().getByLabel('Mobile money number').fill('0770000001');
}

/** The modal as the buyer sees it, once the frame in it (if any) has painted. */
async function screenshot(page: Page, name: string): Promise<void> {
  const frame = page.frames().find((f) => f.url().startsWith(`${w.site}/checkout/`));
  const painted = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  await (frame ?? page).evaluate(painted);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png` });
}

/** The modal's button is big enough to tap. */
async function expectTappable(button: Locator): Promise<void> {
  const box = (await button.boundingBox())!;
  assert.ok(box.height >= 44, `${box.height} px tall`);
}

function sessionIdOf(frame: Frame): string {
  return frame.url().split('/checkout/')[1]!.split(/[/?#]/)[0]!;
}

describe('the modal through a 503 or a lost connection', { skip: NO_BROWSER ?? false }, () => {
  before(async () => {
    w = await startWorld({ env: SHEDDING_SETTINGS });
  });
  after(async () => {
    await w?.close();
  });

  test('Pay while the checkout sheds: the message inside the frame, the form kept, the modal open; Try again pays', async () => {
    const page = await partnerPage();
    await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
    await waitForReady(page);
    const frame = await checkoutFrame(page, w.site);
    await fillInFrame(frame);
    const shedding = await shedRequests(w.h, w.site);
    try {
      await frame.locator('section.step:not([hidden]) [data-primary]').click();
      const note = frame.locator('[data-unavailable-note]');
      await note.waitFor();
      assert.ok((await note.innerText()).includes('No payment prompt was sent to your phone'));
      assert.equal(await frame.getByLabel('Mobile money number').inputValue(), '0770000001');
      assert.equal(await frame.locator('[name="buyer.name"]').inputValue(), 'Ann Buyer');
      assert.equal(await dialogCount(page), 1, 'the modal stays');
      assert.ok(await page.locator('[role="dialog"]').isVisible());
      await screenshot(page, 'unavailable-modal-in-place-en-360');
    } finally {
      await shedding.release();
    }
    assert.deepEqual(await events(page), [], 'no callback: nothing closed, nothing failed for the partner');
    await frame.locator('[data-unavailable-note]').getByRole('button', { name: 'Try again' }).click();
    const [success] = await waitForEvents(page, 1, 30_000);
    assert.equal(success![0], 'success');
    assert.equal(await attemptsOf(w.h, sessionIdOf(frame)), 1);
    await page.context().close();
  });

  test('the frame’s first load shed: the 503 page shows in the frame at once, in Swahili, and Try again opens the checkout', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    const page = await partnerPage('sw');
    const shedding = await shedRequests(w.h, w.site);
    try {
      await openCheckout(page, { sessionId });
      // Well inside the 25 s load timeout: the page said service:ready.
      await waitForReady(page, 10_000);
      const frame = await checkoutFrame(page, w.site);
      const text = await frame.locator('[data-unavailable]').innerText();
      assert.ok(text.includes('Hakuna kilichotumwa kwenye simu yako.'), text);
      await screenshot(page, 'unavailable-modal-page-sw-360');
    } finally {
      await shedding.release();
    }
    const frame = await checkoutFrame(page, w.site);
    await frame.getByRole('link', { name: 'Jaribu tena' }).click();
    await frame.locator('form[data-checkout]').waitFor();
    assert.deepEqual(await events(page), []);
    assert.equal(await dialogCount(page), 1);
    await page.context().close();
  });

  test('the session could not be created while the service sheds: a message in Swahili and Try again, which opens the checkout', async () => {
    const page = await partnerPage('sw');
    const shedding = await shedRequests(w.h, w.site);
    try {
      await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
      const [error] = await waitForEvents(page, 1);
      assert.equal(error![0], 'error');
      // A shed preflight carries no CORS headers: the browser reports no answer at all.
      const { error_code, status } = error![1] as { error_code: string; status: number };
      assert.ok(
        (error_code === 'service_unavailable' && status === 503) ||
          (error_code === 'network_error' && status === 0),
        `${error_code} ${status}`,
      );
      const alert = page.locator('[role="dialog"] [role="alert"]');
      assert.equal(
        (await alert.innerText()).replace(/\s+/g, ' '),
        'Malipo hayakufunguka. Hakuna kilichotumwa kwenye simu yako. Jaribu tena',
      );
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Jaribu tena');
      await expectTappable(page.getByRole('button', { name: 'Jaribu tena' }));
      await screenshot(page, 'unavailable-modal-start-sw-360');
    } finally {
      await shedding.release();
    }
    await page.getByRole('button', { name: 'Jaribu tena' }).click();
    await waitForReady(page);
    await (await checkoutFrame(page, w.site)).locator('form[data-checkout]').waitFor();
    assert.equal(await dialogCount(page), 1, 'one modal, not two');
    assert.deepEqual(
      (await events(page)).map((e) => e[0]),
      ['error'],
      'no close: the buyer never left',
    );
    // Esc in the checkout page, which has focus. Key down only, up after: the frame is removed in
    // between, and a key-up sent to a frame that is going away can wait for it forever.
    await page.keyboard.down('Escape');
    assert.deepEqual(
      (await waitForEvents(page, 2)).map((e) => e[0]),
      ['error', 'close'],
    );
    await page.keyboard.up('Escape');
    assert.equal(await page.evaluate(() => document.documentElement.style.overflow), '', 'scroll given back');
    await page.context().close();
  });

  test('the session request gets no answer (no network): Try again, once it is back, opens the checkout', async () => {
    const page = await partnerPage();
    await page.route(`${w.api}/v1/checkout-sessions`, (route) => route.abort('internetdisconnected'));
    await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
    const [error] = await waitForEvents(page, 1);
    assert.equal((error![1] as { error_code: string }).error_code, 'network_error');
    assert.equal(
      (await page.locator('[role="dialog"] [role="alert"]').innerText()).replace(/\s+/g, ' '),
      'The checkout could not open. Nothing was sent to your phone. Try again',
    );
    await page.unroute(`${w.api}/v1/checkout-sessions`);
    await page.getByRole('button', { name: 'Try again' }).click();
    await waitForReady(page);
    await (await checkoutFrame(page, w.site)).locator('form[data-checkout]').waitFor();
    await page.context().close();
  });
});
