// load_timeout: the checkout frame never says service:ready within 25 seconds
// (docs/contract.md#script-error-codes). Both causes the contract names, side by side: a page
// whose origin is not the session's embed origin (the checkout's frame-ancestors refuses it) and
// whose Content-Security-Policy allows checkout.js alone, so that the script cannot ask the site
// whose session it is (else: embed_origin_mismatch at once, embed-origin-mismatch.browser.test.ts);
// and a page whose own policy has no frame-src for the site. The 25 s pass on the pages' own
// clocks, once each frame has been refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { bearer, getToken, makeEvent, makePartner } from '../helpers/harness.ts';
import { dialogCount, events, NO_BROWSER, openCheckout, startWorld, type World } from './browser-world.ts';

let w: World;

const LOAD_TIMEOUT_MS = 25_000;

async function timeOut(page: Page, sessionId: string) {
  // The page's clock (installed before it loaded), moved on rather than waited out.
  const pageNow = () => page.evaluate(() => Date.now());
  const started = await pageNow();
  await openCheckout(page, { sessionId });
  // The frame is refused for real first: its error page has loaded in its place.
  const frame = await (await page.locator('[role="dialog"] iframe').elementHandle())!.contentFrame();
  await frame!.waitForLoadState('load');
  await page.clock.runFor(LOAD_TIMEOUT_MS - 3000);
  assert.deepEqual(await events(page), [], 'nothing before the 25 s are up');
  assert.equal(
    await page.locator('[role="dialog"] [role="status"]').count(),
    1,
    'the spinner is still there',
  );
  await page.clock.runFor(3000);
  await page.waitForFunction(() => (window.__events ?? []).length > 0, undefined, { timeout: 10_000 });
  const elapsed = (await pageNow()) - started;
  const seen = await events(page);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]![0], 'error');
  const error = seen[0]![1] as { error_code: string; status: number; message: string };
  assert.deepEqual([error.error_code, error.status], ['load_timeout', 0]);
  assert.ok(elapsed >= LOAD_TIMEOUT_MS - 500 && elapsed < LOAD_TIMEOUT_MS + 5000, `after ${elapsed} ms`);
  // A frame that never loaded may load the next time: the buyer is offered it (checkout-unavailable).
  assert.equal(
    (await page.locator('[role="dialog"] [role="alert"]').innerText()).replace(/\s+/g, ' '),
    'The checkout could not open. Nothing was sent to your phone. Try again',
  );
  await page.keyboard.press('Escape');
  assert.deepEqual(
    (await events(page)).map((e) => e[0]),
    ['error', 'close'],
  );
  assert.equal(await dialogCount(page), 0);
}

describe('load_timeout', { skip: NO_BROWSER ?? false }, () => {
  // Inside the suite, so a run that filters every test out starts nothing.
  before(async () => {
    w = await startWorld();
  });
  after(async () => {
    await w?.close();
  });

  test('after 25 s when the page is not the embed origin, or its CSP has no frame-src for the site', async () => {
    // 1. The session belongs to the partner's origin; the page opening it is somewhere else, and
    // lets in only checkout.js itself from the site (a source with a path matches that file alone).
    const partnerSession = (
      await w.partnerSite.service.createEmbeddedSession({
        eventId: w.eventId,
        embedOrigin: w.partnerSite.url,
      })
    ).id;
    w.stranger.pages.set('/elsewhere', {
      headers: {
        'content-security-policy': `default-src 'none'; script-src ${w.site}/v1/checkout.js; frame-src ${w.site}`,
      },
      html: `<!doctype html><title>elsewhere</title><script src="${w.site}/v1/checkout.js"></script>`,
    });
    // 2. The session is for this page's origin, but the page's policy does not allow framing the site.
    const own = await makePartner(w.h, { allowedDomains: [w.stranger.url] });
    const event = await makeEvent(w.h, own);
    const res = await w.h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: bearer(await getToken(w.h, own)),
      payload: { event_id: event.id, ui_mode: 'embedded', embed_origin: w.stranger.url },
    });
    const ownSession = res.json().data.id as string;
    w.stranger.pages.set('/no-frame-src', {
      headers: { 'content-security-policy': `default-src 'none'; script-src ${w.site}` },
      html: `<!doctype html><title>no frame-src</title><script src="${w.site}/v1/checkout.js"></script>`,
    });

    const [a, b] = [await w.newPage(), await w.newPage()];
    await Promise.all([a.page.clock.install(), b.page.clock.install()]);
    await a.page.goto(`${w.stranger.url}/elsewhere`);
    await b.page.goto(`${w.stranger.url}/no-frame-src`);
    await Promise.all([timeOut(a.page, partnerSession), timeOut(b.page, ownSession)]);
    await a.context.close();
    await b.context.close();
  });
});
