// The whole embedded checkout in Chromium, on two real origins: the example partner site opens
// checkout.js by publishable key and by a session its server created, the buyer pays in the
// framed hosted page with the simulator's number 01, onSuccess fires once, and the partner's
// server confirms the payment by reading the session. Also: Cancel and Done, a host page with a
// strict Content-Security-Policy, and the redirect integration of the same partner site. The pages
// that pay run on Playwright's clock, which the test moves past the wait screen's polls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { clickRemovingFrame, runPageClockUntil } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner } from '../helpers/harness.ts';
import {
  checkoutFrame,
  dialogCount,
  events,
  NO_BROWSER,
  openCheckout,
  payInFrame,
  startWorld,
  waitForReady,
  type World,
} from './browser-world.ts';

let w: World;

/** The example page's own log of callbacks (its #log list). */
async function pageLog(page: Page): Promise<string[]> {
  return page.locator('#log li').allInnerTexts();
}

async function readSession(sessionId: string) {
  const token = await getToken(w.h, w.partner);
  const res = await w.h.service.api.inject({
    url: `/v1/checkout-sessions/${sessionId}`,
    headers: bearer(token),
  });
  assert.equal(res.statusCode, 200);
  return res.json().data;
}

/** Records CSP violations from the first script on, whatever the page's own policy says. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.effectiveDirective} ${e.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
}

/** Pays in the open modal and waits for the example page to show the server's confirmation. */
async function payAndConfirm(page: Page): Promise<{ code: string; sessionId: string }> {
  await waitForReady(page);
  const frame = await checkoutFrame(page, w.site);
  const sessionId = frame.url().split('/checkout/')[1]!.split(/[/?#]/)[0]!;
  await payInFrame(frame);
  // Generous: on a machine busy with other test files the first payment of a browser is slow.
  const success = page.locator('#log li', { hasText: /^success / });
  await runPageClockUntil(page, 'onSuccess', () => success.isVisible(), 45_000).catch(
    async (error: Error) => {
      const shown = await frame
        .locator('body')
        .innerText()
        .catch(() => '(the frame is gone)');
      const session = await readSession(sessionId).catch((e: Error) => e.message);
      throw new Error(
        `${error.message}\nthe checkout shows: ${shown}\nthe page's log: ${await pageLog(page)}` +
          `\nthe session reads: ${JSON.stringify(session)}`,
      );
    },
  );
  const code = (await pageLog(page)).find((line) => line.startsWith('success '))!.slice('success '.length);
  await page.locator('#fulfilment', { hasText: 'Confirmed by our server' }).waitFor({ timeout: 20_000 });
  assert.equal(
    await page.locator('#fulfilment').innerText(),
    `Confirmed by our server: order ${code} is paid.`,
  );
  return { code, sessionId };
}

describe('embedded checkout, end to end', { skip: NO_BROWSER ?? false }, () => {
  // Inside the suite, so a run that filters every test out starts nothing.
  before(async () => {
    w = await startWorld();
  });
  after(async () => {
    await w?.close();
  });

  test('publishable-key flow: pays with number 01, onSuccess once, confirmed by the server, Done closes', async () => {
    const { page, context } = await w.newPage();
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    const violations = await watchViolations(page);
    const mainFrameNavigations: string[] = [];
    page.on(
      'framenavigated',
      (frame) => frame === page.mainFrame() && mainFrameNavigations.push(frame.url()),
    );
    await page.goto(w.partnerSite.url);
    await page.getByLabel('Name').fill('Prefilled Buyer');
    await page.getByLabel('E-mail').fill('prefilled@example.org');
    await page.getByLabel('Phone').fill('0772 555 666');
    await page.getByRole('button', { name: /publishable key/ }).click();
    assert.equal(await dialogCount(page), 1);

    const { code, sessionId } = await payAndConfirm(page);
    const frame = await checkoutFrame(page, w.site);

    const session = await readSession(sessionId);
    assert.equal(session.status, 'complete');
    assert.equal(session.ui_mode, 'embedded');
    assert.equal(session.embed_origin, w.partnerSite.url);
    assert.match(session.client_reference_id, /^cart_/, 'clientReferenceId passed through');
    assert.deepEqual([session.order.status, session.order.code], ['paid', code]);
    const order = (
      await w.h.service.api.inject({
        url: `/v1/orders/${session.order.id}`,
        headers: bearer(await getToken(w.h, w.partner)),
      })
    ).json().data;
    assert.deepEqual(order.buyer, {
      name: 'Prefilled Buyer',
      email: 'prefilled@example.org',
      phone: '256772555666',
    });
    // Fulfilled once, by whichever came first: the server's session read or the signed webhook.
    const fulfilment = w.partnerSite.fulfilments.get(session.order.id);
    assert.equal(fulfilment?.order_code, code);
    assert.ok(['session_read', 'webhook'].includes(fulfilment!.source));
    // The signed order.paid webhook reaches the partner's receiver and verifies.
    const deadline = Date.now() + 20_000;
    while (!w.partnerSite.webhooks.some((d) => d.type === 'order.paid' && d.order_id === session.order.id)) {
      assert.ok(
        Date.now() < deadline,
        `no verified order.paid webhook: ${JSON.stringify(w.partnerSite.webhooks)}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The modal stays on the confirmation; Done closes it.
    assert.equal(await dialogCount(page), 1);
    await frame.getByRole('heading', { name: 'You are registered' }).waitFor();
    clickRemovingFrame(frame.getByRole('button', { name: 'Done' }));
    await page.locator('#log li', { hasText: /^close$/ }).waitFor();
    assert.deepEqual(await pageLog(page), [`success ${code}`, 'close']);
    assert.equal(await dialogCount(page), 0);
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      'buy-with-key',
      'focus returned to the button that opened it',
    );
    assert.deepEqual(mainFrameNavigations, [`${w.partnerSite.url}/`], 'the host page never navigated');
    assert.deepEqual(await violations(), [], 'nothing the partner CSP had to block');
    assert.deepEqual(await context.cookies(w.site), [], 'the checkout sets no cookies');
    await context.close();
  });

  test('sessionId flow: a session made by the partner server, paid, confirmed by the server', async () => {
    const { page, context } = await w.newPage();
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    await page.goto(w.partnerSite.url);
    await page.getByRole('button', { name: /session our server created/ }).click();
    const { code, sessionId } = await payAndConfirm(page);
    const session = await readSession(sessionId);
    assert.deepEqual([session.status, session.order.status, session.order.code], ['complete', 'paid', code]);
    const frame = await checkoutFrame(page, w.site);
    clickRemovingFrame(frame.getByRole('button', { name: 'Done' }));
    await page.locator('#log li', { hasText: /^close$/ }).waitFor();
    assert.deepEqual(await pageLog(page), [`success ${code}`, 'close']);
    await context.close();
  });

  test('Cancel in the checkout fires onCancel, then onClose', async () => {
    const { page, context } = await w.newPage();
    await page.goto(w.partnerSite.url);
    await page.getByRole('button', { name: /session our server created/ }).click();
    await waitForReady(page);
    const frame = await checkoutFrame(page, w.site);
    await frame.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#log li', { hasText: /^close$/ }).waitFor();
    assert.deepEqual(await pageLog(page), ['cancel', 'close']);
    assert.equal(await dialogCount(page), 0);
    assert.equal(page.url(), `${w.partnerSite.url}/`);
    await context.close();
  });

  test('a host page whose CSP allows only what the contract lists still works', async () => {
    // A page on another origin, with an embedded session for that origin: sessionId flow, so the
    // policy needs only script-src and frame-src (child-src) for the site. No style-src at all.
    const origin = w.stranger.url;
    const partner = await makePartner(w.h, { allowedDomains: [origin] });
    const event = await makeEvent(w.h, partner);
    const res = await w.h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: bearer(await getToken(w.h, partner)),
      payload: { event_id: event.id, ui_mode: 'embedded', embed_origin: origin },
    });
    assert.equal(res.statusCode, 201);
    const sessionId = res.json().data.id as string;
    const nonce = 'c3RyaWN0LWNzcC10ZXN0';
    w.stranger.pages.set('/strict', {
      headers: {
        'content-security-policy': `default-src 'none'; script-src ${w.site} 'nonce-${nonce}'; frame-src ${w.site}; child-src ${w.site}`,
      },
      html: `<!doctype html><html><head><title>strict</title>
<script src="${w.site}/v1/checkout.js"></script></head><body><button id="open">Register</button>
<script nonce="${nonce}">
window.__events = [];
document.getElementById('open').addEventListener('click', function () {
  ServiceCheckout.open({
    sessionId: ${JSON.stringify(sessionId)},
    onSuccess: function (r) { window.__events.push(['success', r]); },
    onClose: function () { window.__events.push(['close']); },
    onError: function (e) { window.__events.push(['error', e]); }
  });
});
</script></body></html>`,
    });
    const { page, context } = await w.newPage();
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    const violations = await watchViolations(page);
    await page.goto(`${origin}/strict`);
    await page.getByRole('button', { name: 'Register' }).click();
    await waitForReady(page);
    const box = (await page.locator('[role="dialog"]').boundingBox())!;
    assert.deepEqual([box.width, box.height], [480, 800 - 48], 'styles applied under the policy');
    assert.equal(
      await page.evaluate(
        () => getComputedStyle(document.querySelector('[role="dialog"]')!.parentElement!).position,
      ),
      'fixed',
    );
    await payInFrame(await checkoutFrame(page, w.site));
    await runPageClockUntil(page, 'onSuccess', async () => (await events(page)).length >= 1, 20_000);
    const [first] = await events(page);
    assert.equal(first![0], 'success');
    assert.equal((first![1] as { session_id: string }).session_id, sessionId);
    assert.deepEqual(await violations(), []);
    await context.close();
  });

  test('redirect integration of the same partner: hosted page, back to /thanks, confirmed by the server', async () => {
    const { page, context } = await w.newPage();
    // Running with real time until the test moves it past the wait screen's polls.
    await page.clock.install();
    await page.goto(w.partnerSite.url);
    await page.getByRole('button', { name: /hosted checkout page/ }).click();
    await page.waitForURL(`${w.site}/checkout/**`);
    await payInFrame(page.mainFrame());
    const registered = page.getByRole('heading', { name: 'You are registered' });
    await runPageClockUntil(page, 'registered', () => registered.isVisible());
    await page.getByRole('link', { name: /^Continue to / }).click();
    await page.waitForURL(`${w.partnerSite.url}/thanks?session_id=**`, { timeout: 30_000 });
    assert.match(await page.locator('#confirmation').innerText(), /^Order [A-Z0-9]{8} is paid/);
    await context.close();
  });

  test('a page that is not the embed origin cannot show the checkout: the frame is refused', async () => {
    // Here, that the refusal is the browser enforcing frame-ancestors, not a page that merely did
    // not load. The page lets in checkout.js alone, so the script cannot learn the session's embed
    // origin and report embed_origin_mismatch first (embed-origin-mismatch.browser.test.ts); the
    // load_timeout that follows is proven in load-timeout.browser.test.ts.
    const sessionId = (
      await w.partnerSite.service.createEmbeddedSession({
        eventId: w.eventId,
        embedOrigin: w.partnerSite.url,
      })
    ).id;
    w.stranger.pages.set('/framer', {
      headers: { 'content-security-policy': `script-src ${w.site}/v1/checkout.js` },
      html: `<!doctype html><title>framer</title><script src="${w.site}/v1/checkout.js"></script>`,
    });
    const { page, context } = await w.newPage();
    const refused = page.waitForEvent('console', (m) => /frame-ancestors/.test(m.text()));
    await page.goto(`${w.stranger.url}/framer`);
    await openCheckout(page, { sessionId });
    await refused;
    await page.waitForTimeout(500);
    assert.equal(await page.locator('[role="dialog"] [role="status"]').count(), 1, 'still the spinner');
    assert.deepEqual(await events(page), []);
    await context.close();
  });
});
