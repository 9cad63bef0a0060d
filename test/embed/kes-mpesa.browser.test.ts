// A KES event in Chromium, with the page script: M-Pesa alone on the payment step (no choice, the
// number asked as a Safaricom one), prices in shillings, a Ugandan number refused in the browser
// in Kenya's words, and a payment from the simulator's 0711000001 reaching the paid confirmation,
// in redirect mode and in checkout.js's modal, at 360 px. Screenshots of the payment step at
// 360 and 1280 px go to SHOTS_DIR when it is set. The pages run on Playwright's clock, which the
// test moves past the wait screen's polls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import { runPageClockUntil } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner, type TestPartner } from '../helpers/harness.ts';
import {
  checkoutFrame,
  NO_BROWSER,
  startWorld,
  waitForEvents,
  waitForReady,
  type World,
} from './browser-world.ts';

const SHOTS = process.env.SHOTS_DIR;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
const TOTAL = 'KES\u00a01,553.00';

let w: World;
let partner: TestPartner;
let eventId: string;

async function newSession(body: Record<string, unknown>): Promise<{ id: string; url: string }> {
  const res = await w.h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: bearer(await getToken(w.h, partner)),
    payload: { event_id: eventId, ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

async function shoot(page: Page, name: string, viewport: { width: number; height: number }): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const before = page.viewportSize();
  await page.setViewportSize(viewport);
  await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}px.png` });
  if (before) await page.setViewportSize(before);
}

/**
 * Goes through the form in `frame` to the payment step and checks it, tries a Ugandan number, then
 * pays from 0711000001. `shots` names the payment step's screenshots.
 */
async function payWithMpesa(page: Page, frame: Frame, shots: string): Promise<void> {
  let step = frame.locator('section.step:not([hidden])');
  await frame.getByLabel('Quantity of 10 km').selectOption('1');
  assert.match(await frame.locator('[data-total]').first().innerText(), new RegExp(TOTAL));
  await step.getByRole('button', { name: 'Continue' }).click();
  step = frame.locator('section.step:not([hidden])');
  assert.match(await step.locator('h2').innerText(), /Your details/);
  assert.equal(
    await step.locator('#hint-f-buyer-phone').innerText(),
    'A Kenyan mobile number, such as 0712 345678',
  );
  await step.getByLabel('I am the runner').uncheck();
  await step.getByLabel('Full name').first().fill('Wanjiru Kamau');
  await step.getByLabel('Your name').fill('Achieng Otieno');
  await step.getByLabel('E-mail').fill('achieng@example.org');
  await step.getByLabel('Phone number').fill('0712 345678');
  await step.getByRole('button', { name: 'Continue' }).click();

  step = frame.locator('section.step:not([hidden])');
  assert.match(await step.locator('h2').innerText(), /Payment/);
  // One method: shown as chosen, nothing to pick, and nothing of Uganda's networks.
  assert.equal(await step.locator('input[type=radio]').count(), 0);
  assert.equal(await step.locator('[data-only-method]').innerText(), 'M-PESA\nM-Pesa');
  assert.doesNotMatch(await frame.locator('body').innerText(), /MTN|Airtel/);
  const number = step.getByLabel('Mobile money number');
  assert.equal(await number.inputValue(), '0712 345678', 'the buyer’s own number to start with');
  assert.equal(await number.getAttribute('placeholder'), '0712 345678');
  const pay = step.getByRole('button', { name: `Pay ${TOTAL}` });
  // The step as the buyer first sees it, before any mistake.
  await shoot(page, `${shots}-payment`, PHONE);
  await shoot(page, `${shots}-payment`, DESKTOP);
  // The page script reads the number as Kenyan, as the server does.
  await number.fill('+256 772 123456');
  await pay.click();
  await step.getByText('Error: Enter a Kenyan mobile number such as 0712 345678').waitFor();
  await number.fill('0772 123456');
  await pay.click();
  await step
    .getByText('Error: This number cannot receive mobile money: enter a Safaricom number such as 0712 345678')
    .waitFor();
  await number.fill('0711000001');
  await step.getByText(/Order summary/).click();
  const summary = await step.locator('[data-summary]').innerText();
  assert.match(summary, /Service fee \(M-Pesa\)\s*KES\u00a053\.00/);
  assert.match(summary, new RegExp(`Total\\s*${TOTAL}`));
  await pay.click();
}

describe('a KES event paid with M-Pesa in a browser', { skip: NO_BROWSER ?? false, timeout: 240_000 }, () => {
  before(async () => {
    // A 15 s prompt window: an approval at once must not time out on a busy machine.
    w = await startWorld({ env: { PAYMENT_TIME_SCALE: '0.05' } });
    partner = await makePartner(w.h, {
      allowedDomains: [w.stranger.url],
      returnUrlDomains: [w.stranger.url],
    });
    const event = await makeEvent(w.h, partner, {
      name: 'Nairobi City 10K',
      venue: 'Uhuru Park, Nairobi',
      currency: 'KES',
      timezone: 'Africa/Nairobi',
      ticket_types: [
        { name: '10 km', price_minor: 150_000, capacity: 100, distance_km: 10 },
        { name: '5 km fun run', price_minor: 0, capacity: 5, distance_km: 5 },
      ],
    });
    eventId = event.id;
    w.stranger.pages.set('/thanks', { html: '<!doctype html><title>Thanks</title><h1>Thanks</h1>' });
  });
  after(async () => {
    await w?.close();
  });

  test('redirect: pays from 0711000001 and lands on the paid confirmation', async () => {
    const session = await newSession({
      on_success_url: `${w.stranger.url}/thanks`,
      on_cancel_url: `${w.stranger.url}/race`,
    });
    const { page, context } = await w.newPage({ viewport: PHONE });
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    await page.goto(session.url);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no sideways scroll');
    await payWithMpesa(page, page.mainFrame(), 'kes-redirect');
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible(), 45_000);
    assert.ok(await page.getByText(`Payment of ${TOTAL} received`).isVisible());
    const order = await readOrder(session.id);
    assert.deepEqual([order.status, order.payment_method, order.total], ['paid', 'mpesa', 155_300]);
    await context.close();
  });

  test('modal (checkout.js): pays from 0711000001, the paid confirmation, onSuccess', async () => {
    const session = await newSession({ ui_mode: 'embedded', embed_origin: w.stranger.url });
    w.stranger.pages.set('/race', {
      html: `<!doctype html><html lang="en"><head><title>Race</title>
<script src="${w.site}/v1/checkout.js"></script></head><body><button id="open">Register</button>
<script>
window.__events = [];
document.getElementById('open').addEventListener('click', function () {
  ServiceCheckout.open({
    sessionId: ${JSON.stringify(session.id)},
    onSuccess: function (r) { window.__events.push(['success', r]); },
    onError: function (e) { window.__events.push(['error', e]); }
  });
});
</script></body></html>`,
    });
    const { page, context } = await w.newPage({ viewport: PHONE });
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    await page.goto(`${w.stranger.url}/race`);
    await page.getByRole('button', { name: 'Register' }).click();
    await waitForReady(page);
    const frame = await checkoutFrame(page, w.site);
    await payWithMpesa(page, frame, 'kes-modal');
    const registered = frame.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible(), 45_000);
    assert.ok(await frame.getByText(`Payment of ${TOTAL} received`).isVisible());
    const [first] = await waitForEvents(page, 1, 20_000);
    assert.equal(first![0], 'success');
    assert.equal((first![1] as { session_id: string }).session_id, session.id);
    const order = await readOrder(session.id);
    assert.deepEqual([order.status, order.payment_method, order.total], ['paid', 'mpesa', 155_300]);
    await context.close();
  });
});

async function readOrder(sessionId: string) {
  const headers = bearer(await getToken(w.h, partner));
  const session = await w.h.service.api.inject({ url: `/v1/checkout-sessions/${sessionId}`, headers });
  const orderId = session.json().data.order.id as string;
  return (await w.h.service.api.inject({ url: `/v1/orders/${orderId}`, headers })).json().data;
}
