// embed_origin_mismatch: a session opened from a page that is not its embed origin is reported at
// once, not after the 25 s load time-out (docs/partners/embedded-checkout.md#errors). checkout.js asks
// the SITE host for the session's embed origin (a script, GET /checkout/<id>/embed.js) while the
// frame, refused by frame-ancestors, never loads.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { CheckoutError } from '../../web/checkout-js/checkout.ts';
import { embedEn } from '../../src/site/messages/embed.en.ts';
import { embedSw } from '../../src/site/messages/embed.sw.ts';
import {
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

/**
 * How long the test waits for the error: well under the 25 s load time-out, whose own code would
 * be load_timeout. The code is the proof of the early check; its 3 s is a speed, not asserted here,
 * where a busy machine may load the probe script slowly.
 */
const MISMATCH_WITHIN_MS = 15_000;

async function strangerPage(): Promise<Page> {
  w.stranger.pages.set('/shop', {
    html: `<!doctype html><title>another shop</title><script src="${w.site}/v1/checkout.js"></script>`,
  });
  const { page } = await w.newPage();
  await page.goto(`${w.stranger.url}/shop`);
  return page;
}

describe('embed_origin_mismatch', { skip: NO_BROWSER ?? false }, () => {
  // Inside the suite, so a run that filters every test out starts nothing.
  before(async () => {
    w = await startWorld();
  });
  after(async () => {
    await w?.close();
  });

  for (const [locale, words] of [
    ['en', embedEn],
    ['sw', embedSw],
  ] as const) {
    test(`a partner's session opened on a stranger's page is reported before the load time-out, naming both origins (${locale})`, async (t) => {
      const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
      const page = await strangerPage();
      try {
        const opened = Date.now();
        await openCheckout(page, { sessionId, locale });
        const [first, ...rest] = await waitForEvents(page, 1, MISMATCH_WITHIN_MS);
        t.diagnostic(`reported ${Date.now() - opened} ms after open()`);
        assert.deepEqual(rest, []);
        assert.equal(first![0], 'error');
        const error = first![1] as CheckoutError;
        assert.deepEqual([error.error_code, error.status], ['embed_origin_mismatch', 0]);
        assert.ok(error.message.includes(w.partnerSite.url), error.message);
        assert.ok(error.message.includes(w.stranger.url), error.message);
        // The buyer gets a plain sentence in their language, with no Try again: it would fail the same way.
        const alert = page.locator('[role="dialog"] [role="alert"]');
        assert.equal((await alert.innerText()).trim(), words.couldNotOpen);
        assert.equal(await alert.getByRole('button').count(), 0);
        assert.equal(await page.locator('[role="dialog"] iframe').count(), 0, 'the refused frame is gone');
        await page.keyboard.press('Escape');
        assert.deepEqual(
          (await events(page)).map((e) => e[0]),
          ['error', 'close'],
        );
        assert.equal(await dialogCount(page), 0);
      } finally {
        await page.context().close();
      }
    });
  }

  test('a session opened on its own embed origin loads without an error, under a strict CSP', async () => {
    // The example partner page's policy allows the site's scripts and frames, and connections
    // only to the API: what the guides ask for.
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    const { page, context } = await w.newPage();
    try {
      await page.goto(w.partnerSite.url);
      await page.waitForFunction(() => !!window.ServiceCheckout);
      const asked = page.waitForResponse(`${w.site}/checkout/${sessionId}/embed.js`);
      await openCheckout(page, { sessionId });
      assert.match(await (await asked).text(), new RegExp(`embedOrigin="${w.partnerSite.url}"`));
      await waitForReady(page);
      assert.deepEqual(await events(page), []);
      assert.equal(await page.locator('script[src*="/embed.js"]').count(), 0, 'the probe is gone');
    } finally {
      await context.close();
    }
  });

  test('is reported on a page whose CSP lets the site in only as checkout.js and the frame', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    w.stranger.pages.set('/strict', {
      headers: {
        'content-security-policy': `default-src 'none'; script-src ${w.site}; frame-src ${w.site}`,
      },
      html: `<!doctype html><title>strict</title><script src="${w.site}/v1/checkout.js"></script>`,
    });
    const { page, context } = await w.newPage();
    try {
      await page.goto(`${w.stranger.url}/strict`);
      await openCheckout(page, { sessionId });
      const [first] = await waitForEvents(page, 1, MISMATCH_WITHIN_MS);
      assert.equal((first![1] as CheckoutError).error_code, 'embed_origin_mismatch');
    } finally {
      await context.close();
    }
  });
});
