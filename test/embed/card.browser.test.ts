// Cards in Chromium at 360 px, with the page script, against the simulator's card page: a top-level
// checkout goes to the card page and back to the confirmation after 3-D Secure; in checkout.js's
// modal "Continue in a new tab" opens the card page in a tab of its own, which ends on "you may
// close this tab" while the modal, still watching, shows the confirmation and onSuccess fires; a
// declined card shows the failure and the buyer pays by MTN instead. Screenshots of the payment
// step, the modal's card wait screen and the new tab's confirmation go to SHOTS_DIR when it is set.
// The pages run on Playwright's clock, which the test moves past the wait screens' polls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Frame, Page } from 'playwright-core';
import { organizations } from '../../src/organizations/organizations.schema.ts';
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
/** UGX 30,000 with the card's 3.8 % fee, and with MTN's 3.5 % */
const CARD_TOTAL = 'UGX\u00a031,140';
const MTN_TOTAL = 'UGX\u00a031,050';

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

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const before = page.viewportSize();
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}px.png` });
  }
  if (before) await page.setViewportSize(before);
}

/** The details step filled in `frame`, then on to the payment step, where card is chosen. */
async function chooseCard(page: Page, frame: Frame, shots?: string): Promise<void> {
  let step = frame.locator('section.step:not([hidden])');
  assert.match(await step.locator('h2').innerText(), /Your details/);
  await step.getByLabel('Your name').fill('Amina Nakato');
  await step.getByLabel('E-mail').fill('amina@example.org');
  await step.getByLabel('Phone number').fill('0772 123456');
  await step.getByRole('button', { name: 'Continue' }).click();
  step = frame.locator('section.step:not([hidden])');
  assert.match(await step.locator('h2').innerText(), /Payment/);
  const number = step.getByLabel('Mobile money number');
  assert.ok(await number.isVisible(), 'the number shows while MTN is chosen');
  await step.locator('label[for$="-card"]').click();
  // Card asks for no number: the field goes, and the total is the card's.
  await number.waitFor({ state: 'hidden' });
  await step.getByRole('button', { name: `Pay ${CARD_TOTAL}` }).waitFor();
  if (shots) await shoot(page, shots);
}

/** On the simulator's card page: the card, and the bank's one-time password when asked. */
async function payOnCardPage(page: Page, card: string, otp: boolean): Promise<void> {
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry (MM/YY)').fill('12/30');
  await page.getByLabel('CVV').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
  if (!otp) return;
  await page.getByLabel('One-time password').fill('12345');
  await page.getByRole('button', { name: 'Confirm' }).click();
}

async function readOrder(sessionId: string) {
  const headers = bearer(await getToken(w.h, partner));
  const session = await w.h.service.api.inject({ url: `/v1/checkout-sessions/${sessionId}`, headers });
  const orderId = session.json().data.order.id as string;
  return (await w.h.service.api.inject({ url: `/v1/orders/${orderId}`, headers })).json().data;
}

describe('cards on the hosted checkout in a browser', { skip: NO_BROWSER ?? false, timeout: 240_000 }, () => {
  before(async () => {
    w = await startWorld();
    partner = await makePartner(w.h, {
      allowedDomains: [w.stranger.url],
      returnUrlDomains: [w.stranger.url],
    });
    await w.h.service.ctx.database.db
      .update(organizations)
      .set({ optedInMethods: ['card'] })
      .where(eq(organizations.id, partner.organizationId));
    const event = await makeEvent(w.h, partner, {
      name: 'Kampala City 10K',
      venue: 'Kololo Airstrip',
      waiver_required: false,
      additional_questions: [],
      ticket_types: [{ name: '10 km', price_minor: 30_000, capacity: 100, distance_km: 10 }],
    });
    eventId = event.id;
    w.stranger.pages.set('/thanks', { html: '<!doctype html><title>Thanks</title><h1>Thanks</h1>' });
  });
  after(async () => {
    await w?.close();
  });

  test('redirect: card, the card page with 3-D Secure, back to the confirmation', async () => {
    const session = await newSession({
      on_success_url: `${w.stranger.url}/thanks`,
      on_cancel_url: `${w.stranger.url}/race`,
    });
    const { page, context } = await w.newPage({ viewport: PHONE });
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    await page.goto(session.url);
    await chooseCard(page, page.mainFrame(), 'card-payment-step');
    await page.getByRole('button', { name: `Pay ${CARD_TOTAL}` }).click();
    // A top-level navigation to the provider's page.
    await page.waitForURL(/\/flutterwave\/pay\//);
    await payOnCardPage(page, '5531886652142950', true);
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible());
    assert.ok(await page.getByText(`Payment of ${CARD_TOTAL} received`).isVisible());
    assert.equal(await page.locator('[data-close-tab]').count(), 0);
    const order = await readOrder(session.id);
    assert.deepEqual([order.status, order.payment_method, order.total], ['paid', 'card', 31_140]);
    await context.close();
  });

  test('modal: "Continue in a new tab", 3-D Secure there, "you may close this tab", onSuccess', async () => {
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
    await chooseCard(page, frame);
    await frame.getByRole('button', { name: `Pay ${CARD_TOTAL}` }).click();
    await frame.getByRole('heading', { name: 'Pay on the card page' }).waitFor();
    assert.ok(frame.url().startsWith(`${w.site}/checkout/`), 'the frame stays on the checkout');
    const link = frame.getByRole('link', { name: 'Continue in a new tab' });
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.equal(await link.getAttribute('rel'), 'noopener');
    assert.equal(await frame.getByText(/Resend prompt|PIN/).count(), 0);
    await shoot(page, 'card-modal-wait');
    // Esc while the card payment is open: the confirm speaks of the card page, not of a phone.
    await frame.getByRole('heading', { name: 'Pay on the card page' }).click();
    await page.keyboard.press('Escape');
    const confirm = frame.getByRole('dialog', { name: 'Close while your payment is waiting?' });
    await confirm.waitFor();
    assert.match(await confirm.innerText(), /Your card payment is not finished/);
    assert.doesNotMatch(await confirm.innerText(), /phone/);
    await confirm.getByRole('button', { name: 'Keep waiting' }).click();
    await confirm.waitFor({ state: 'hidden' });

    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.setViewportSize(PHONE);
    await tab.waitForURL(/\/flutterwave\/pay\//);
    await payOnCardPage(tab, '5531886652142950', true);
    const closeTab = tab.getByText('You may close this tab');
    await runPageClockUntil(tab, 'the tab done', () => closeTab.isVisible());
    assert.ok(await tab.getByRole('heading', { name: 'You are registered' }).isVisible());
    await shoot(tab, 'card-new-tab-done');

    // The modal kept watching: its confirmation, and onSuccess with the order.
    const registered = frame.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'the modal registered', () => registered.isVisible());
    const [first] = await waitForEvents(page, 1, 20_000);
    assert.equal(first![0], 'success');
    const result = first![1] as { session_id: string; order_id: string };
    assert.equal(result.session_id, session.id);
    const order = await readOrder(session.id);
    assert.equal(result.order_id, order.id);
    assert.deepEqual([order.status, order.payment_method], ['paid', 'card']);
    await context.close();
  });

  test('a declined card shows the failure, and the buyer pays by MTN instead', async () => {
    const session = await newSession({
      on_success_url: `${w.stranger.url}/thanks`,
      on_cancel_url: `${w.stranger.url}/race`,
    });
    const { page, context } = await w.newPage({ viewport: PHONE });
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    await page.goto(session.url);
    await chooseCard(page, page.mainFrame());
    await page.getByRole('button', { name: `Pay ${CARD_TOTAL}` }).click();
    await page.waitForURL(/\/flutterwave\/pay\//);
    await payOnCardPage(page, '4000000000000002', false);
    const declined = page.getByRole('heading', { name: 'The card was declined' });
    await runPageClockUntil(page, 'declined', () => declined.isVisible());
    assert.ok(await page.getByText('Your bank did not approve the payment.', { exact: false }).isVisible());
    await shoot(page, 'card-declined');
    // The retry form: MTN, and its number shows again.
    await page.locator('label[for="f-payment_method"]').click();
    const number = page.getByLabel('Mobile money number');
    await number.waitFor();
    await number.fill('0770000001');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible());
    assert.ok(await page.getByText(`Payment of ${MTN_TOTAL} received`).isVisible());
    const order = await readOrder(session.id);
    assert.deepEqual([order.status, order.payment_method, order.total], ['paid', 'momo', 31_050]);
    await context.close();
  });
});
