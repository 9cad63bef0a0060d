// checkout.js in Chromium: the global, option checks, every script-side error code, the overlay
// (dialog semantics, focus, scroll, layout, Esc, close button, close()), one checkout at a time,
// throwing callbacks, and which messages are trusted. The partner page is the example partner site
// on its own origin; the checkout page is the service's SITE host on another.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CheckoutError } from '../../web/checkout-js/checkout.ts';
import { clickRemovingFrame } from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner } from '../helpers/harness.ts';
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

const DAY = 24 * 3600 * 1000;
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
const QUIET_MS = 400;

async function partnerPage(viewport?: { width: number; height: number }): Promise<Page> {
  const { page } = await w.newPage(viewport ? { viewport } : {});
  await page.goto(w.partnerSite.url);
  await page.waitForFunction(() => !!window.ServiceCheckout);
  return page;
}

async function withPage(fn: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) {
  const page = await partnerPage(viewport);
  try {
    await fn(page);
  } finally {
    await page.context().close();
  }
}

/** Waits for the first callback, which must be onError, and returns its error. */
async function firstError(page: Page): Promise<CheckoutError> {
  const [first] = await waitForEvents(page, 1);
  assert.equal(first![0], 'error', `expected onError first, got ${JSON.stringify(first)}`);
  return first![1] as CheckoutError;
}

const COULD_NOT_OPEN = 'The checkout could not open. Nothing was sent to your phone.';

/** The buyer-facing text of the open modal's status or alert. */
async function modalText(page: Page): Promise<string> {
  return page.locator('[role="dialog"] [role="alert"], [role="dialog"] [role="status"]').innerText();
}

describe('checkout.js in Chromium', { skip: NO_BROWSER ?? false }, () => {
  // Inside the suite, so a run that filters every test out starts nothing.
  before(async () => {
    w = await startWorld();
  });
  after(async () => {
    await w?.close();
  });

  test('defines exactly one global, ServiceCheckout, with open and close', async () => {
    w.stranger.pages.set('/blank', { html: '<!doctype html><title>blank</title><p>blank</p>' });
    const { page, context } = await w.newPage();
    await page.goto(`${w.stranger.url}/blank`);
    const before = await page.evaluate(() => Object.getOwnPropertyNames(window));
    await page.addScriptTag({ url: `${w.site}/v1/checkout.js` });
    const after = await page.evaluate(() => Object.getOwnPropertyNames(window));
    assert.deepEqual(
      after.filter((name) => !before.includes(name)),
      ['ServiceCheckout'],
    );
    const api = await page.evaluate(() => ({
      keys: Object.keys(window.ServiceCheckout!).sort(),
      frozen: Object.isFrozen(window.ServiceCheckout),
    }));
    assert.deepEqual(api, { keys: ['close', 'open'], frozen: true });
    await context.close();
    // and what the listener sends, uncompressed, stays under the 6 KB budget
    const served = await fetch(`${w.site}/v1/checkout.js`, { headers: { 'accept-encoding': 'identity' } });
    const bytes = (await served.arrayBuffer()).byteLength;
    assert.equal(Number(served.headers.get('content-length')), bytes);
    assert.ok(bytes < 6144, `${bytes} bytes`);
  });

  test('invalid_options: neither sessionId nor publishableKey and eventId; nothing opens', async () => {
    await withPage(async (page) => {
      const cases = [
        {},
        { publishableKey: w.partner.publishableKey },
        { eventId: w.eventId },
        { publishableKey: '', eventId: w.eventId },
        { publishableKey: w.partner.publishableKey, eventId: 42 as unknown as string },
      ];
      for (const options of cases) await openCheckout(page, options);
      // A callback that is not a function is a mistake too.
      await page.evaluate((key) => {
        window.ServiceCheckout!.open({
          publishableKey: key,
          eventId: 'evt_x',
          onSuccess: 'yes' as never,
          onError: (error) => window.__events.push(['error', error]),
        });
        window.ServiceCheckout!.open(undefined as never); // no options at all: nothing, no exception
      }, w.partner.publishableKey);
      const seen = await events(page);
      assert.equal(seen.length, cases.length + 1);
      for (const [kind, error] of seen) {
        assert.equal(kind, 'error');
        assert.equal((error as { error_code: string }).error_code, 'invalid_options');
        assert.equal((error as { status: number }).status, 0);
        assert.ok((error as { message: string }).message.length > 0);
      }
      assert.equal(await dialogCount(page), 0);
    });
  });

  test('invalid_session: a sessionId that is not a session id; nothing opens', async () => {
    await withPage(async (page) => {
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      for (const sessionId of [
        'abc',
        'cs_short',
        'ord_AAAAAAAAAAAAAAAAAAAAAAAA',
        'cs_AAAA/../../x',
        ' cs_AAAAAAAAAAAAAAAAAAAAAAAA',
      ]) {
        await openCheckout(page, { sessionId });
      }
      await openCheckout(page, { sessionId: 12345 as unknown as string });
      const seen = await events(page);
      assert.equal(seen.length, 6);
      for (const entry of seen) {
        assert.deepEqual(
          [entry[0], (entry[1] as { error_code: string }).error_code],
          ['error', 'invalid_session'],
        );
        assert.equal((entry[1] as { status: number }).status, 0);
      }
      assert.equal(await dialogCount(page), 0);
      assert.deepEqual(
        requests.filter((url) => url.includes('/checkout/')),
        [],
      );
    });
  });

  test('invalid_session: the API answered without a session id', async () => {
    await withPage(async (page) => {
      await page.route(`${w.api}/v1/checkout-sessions`, (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({
              status: 201,
              contentType: 'application/json',
              headers: { 'access-control-allow-origin': w.partnerSite.url },
              body: JSON.stringify({
                code: 201,
                message: 'Checkout session created',
                data: { id: 'evt_123' },
              }),
            })
          : route.continue(),
      );
      await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
      const error = await firstError(page);
      assert.equal(error.error_code, 'invalid_session');
      assert.equal(error.status, 201);
      assert.equal(await dialogCount(page), 1, 'the overlay stays with the message until closed');
    });
  });

  test('misconfigured: a self-hosted copy or an inlined bundle reports it and opens nothing', async () => {
    const served = await (await fetch(`${w.site}/v1/checkout.js`)).text();
    const sessionId = `cs_${'A'.repeat(24)}`;
    w.stranger.pages.set('/copy/checkout.js', {
      html: served,
      type: 'application/javascript; charset=utf-8',
    });
    w.stranger.pages.set('/copy', {
      html: '<!doctype html><title>self-hosted</title><script src="/copy/checkout.js"></script>',
    });
    w.stranger.pages.set('/inline', {
      html: `<!doctype html><title>bundled</title><script>${served}</script>`,
    });
    for (const path of ['/copy', '/inline']) {
      const { page, context } = await w.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(`${w.stranger.url}${path}`);
      await openCheckout(page, { sessionId });
      await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
      const seen = await events(page);
      assert.equal(seen.length, 2, path);
      for (const [kind, error] of seen) {
        assert.equal(kind, 'error');
        assert.equal((error as { error_code: string }).error_code, 'misconfigured', path);
        assert.match((error as { message: string }).message, new RegExp(`${w.site}/v1/checkout.js`));
      }
      assert.equal(await dialogCount(page), 0);
      assert.deepEqual(
        requests.filter((url) => url.startsWith(w.api) || url.includes('/checkout/cs_')),
        [],
        'no API call, no frame',
      );
      await context.close();
    }
  });

  test('network_error with status 0 when the session request gets no response', async () => {
    await withPage(async (page) => {
      await page.route(`${w.api}/v1/checkout-sessions`, (route) => route.abort('connectionrefused'));
      await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
      const error = await firstError(page);
      assert.deepEqual([error.error_code, error.status], ['network_error', 0]);
      // The buyer's words, and a way on: nothing reached their phone, and the next try may work.
      assert.equal((await modalText(page)).replace(/\s+/g, ' '), `${COULD_NOT_OPEN} Try again`);
      await page.evaluate(() => window.ServiceCheckout!.close());
      assert.deepEqual(
        (await events(page)).map((e) => e[0]),
        ['error', 'close'],
      );
      assert.equal(await dialogCount(page), 0);
    });
  });

  test('http_<status> for a failure without an error_code (a proxy error page)', async () => {
    await withPage(async (page) => {
      await page.route(`${w.api}/v1/checkout-sessions`, (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({
              status: 502,
              contentType: 'text/html',
              headers: { 'access-control-allow-origin': w.partnerSite.url },
              body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
            })
          : route.continue(),
      );
      await openCheckout(page, { publishableKey: w.partner.publishableKey, eventId: w.eventId });
      const error = await firstError(page);
      assert.deepEqual([error.error_code, error.status], ['http_502', 502]);
    });
  });

  test('API errors reach onError with their error_code and HTTP status; the buyer sees a plain sentence', async () => {
    const now = w.h.clock.now().getTime();
    const closedEvent = await makeEvent(w.h, w.partner, {
      reg_opens_at: new Date(now + 2 * DAY).toISOString(),
    });
    // Another partner allowlists a different origin: the partner page's origin is then known to
    // CORS (so the browser can read the answer) but not allowed for this key.
    const elsewhere = await makePartner(w.h, { allowedDomains: [w.stranger.url] });
    const unpaid = await makePartner(w.h, { allowedDomains: [w.partnerSite.url], paymentsEnabled: false });
    const unpaidEvent = await makeEvent(w.h, unpaid);
    const busy = await makePartner(w.h, { allowedDomains: [w.partnerSite.url] });
    const busyEvent = await makeEvent(w.h, busy);
    const cases: {
      name: string;
      options: object;
      code: string;
      status: number;
      before?: () => Promise<void>;
    }[] = [
      {
        name: 'wrong key',
        options: { publishableKey: `pk_${'x'.repeat(24)}`, eventId: w.eventId },
        code: 'invalid_key',
        status: 401,
      },
      {
        name: 'origin not allowed for this key',
        options: { publishableKey: elsewhere.publishableKey, eventId: w.eventId },
        code: 'origin_not_allowed',
        status: 403,
      },
      {
        name: 'unknown event',
        options: { publishableKey: w.partner.publishableKey, eventId: 'evt_doesNotExist0000000000' },
        code: 'not_found',
        status: 404,
      },
      {
        name: 'registration not open',
        options: { publishableKey: w.partner.publishableKey, eventId: closedEvent.id },
        code: 'sale_closed',
        status: 409,
      },
      {
        name: 'organization without payments',
        options: { publishableKey: unpaid.publishableKey, eventId: unpaidEvent.id },
        code: 'payments_disabled',
        status: 403,
      },
      {
        name: 'bad prefill',
        options: {
          publishableKey: w.partner.publishableKey,
          eventId: w.eventId,
          prefill: { buyer_email: 'nope' },
        },
        code: 'validation_failed',
        status: 400,
      },
      {
        name: 'too many requests',
        options: { publishableKey: busy.publishableKey, eventId: busyEvent.id },
        code: 'rate_limited',
        status: 429,
        // Spend this key's allowance from the address the browser calls from (the world refills
        // a key's allowance at one request per 10 s, so it stays spent while the browser asks).
        before: async () => {
          let status = 0;
          while (status !== 429) {
            const res = await w.h.service.api.inject({
              method: 'GET',
              url: '/v1/events',
              headers: { 'x-service-publishable-key': busy.publishableKey, origin: w.partnerSite.url },
              remoteAddress: '127.0.0.1',
            });
            status = res.statusCode;
          }
        },
      },
    ];
    for (const c of cases) {
      await withPage(async (page) => {
        await c.before?.();
        await openCheckout(page, c.options);
        assert.equal(await dialogCount(page), 1, `${c.name}: the overlay opens at once`);
        const error = await firstError(page);
        assert.deepEqual([error.error_code, error.status], [c.code, c.status], c.name);
        assert.ok(error.message.length > 0);
        // A busy service (429) may answer the next try: the buyer is offered it. The message is the
        // partner's (onError), never shown to the buyer.
        const shown = c.status === 429 ? `${COULD_NOT_OPEN} Try again` : COULD_NOT_OPEN;
        const text = (await modalText(page)).replace(/\s+/g, ' ');
        assert.equal(text, shown, `${c.name}: the buyer's words`);
        assert.ok(!text.includes(error.message), `${c.name}: not the developer's message`);
        await page.keyboard.press('Escape');
        assert.deepEqual(
          (await events(page)).map((e) => e[0]),
          ['error', 'close'],
          c.name,
        );
        assert.equal(await dialogCount(page), 0);
      });
    }
  });

  test('the overlay appears at once with a spinner: a labelled modal dialog around an unsandboxed iframe', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      const seen = await page.evaluate((id) => {
        window.ServiceCheckout!.open({ sessionId: id });
        const dialog = document.querySelector('[role="dialog"]')!;
        const frame = dialog.querySelector('iframe')!;
        return {
          ariaModal: dialog.getAttribute('aria-modal'),
          label: dialog.getAttribute('aria-label'),
          spinner: dialog.querySelector('[role="status"]')?.textContent,
          sandboxed: frame.hasAttribute('sandbox'),
          allow: frame.getAttribute('allow'),
          title: frame.title,
          src: frame.src,
          focused: document.activeElement?.getAttribute('aria-label'),
        };
      }, sessionId);
      assert.deepEqual(seen, {
        ariaModal: 'true',
        label: 'Checkout',
        spinner: 'Loading checkout\u2026',
        sandboxed: false,
        allow: 'payment',
        title: 'Checkout',
        src: `${w.site}/checkout/${sessionId}`,
        focused: 'Close checkout',
      });
      // With a publishable key the overlay shows before the session exists.
      await page.evaluate(() => window.ServiceCheckout!.close());
      const early = await page.evaluate(
        ([key, eventId]) => {
          window.ServiceCheckout!.open({ publishableKey: key, eventId });
          return document.querySelectorAll('[role="dialog"] [role="status"]').length;
        },
        [w.partner.publishableKey, w.eventId],
      );
      assert.equal(early, 1);
      await waitForReady(page);
      assert.equal(
        await page.locator('[role="dialog"] [role="status"]').count(),
        0,
        'service:ready removed the spinner',
      );
    });
  });

  test('the open overlay, spinner and error states, has no serious or critical axe finding', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      // Through the DevTools protocol: the partner page's CSP would refuse an added <script>.
      await page.evaluate(AXE_SOURCE);
      const audit = () =>
        page.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: {
                run: (c: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string }[] }>;
              };
            }
          ).axe;
          const result = await axe.run(
            { include: [['[role="dialog"]']] },
            { iframes: false, resultTypes: ['violations'] },
          );
          return result.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => v.id);
        });
      await openCheckout(page, { sessionId });
      assert.deepEqual(await audit(), [], 'spinner');
      await waitForReady(page);
      assert.deepEqual(await audit(), [], 'checkout shown');
      await page.evaluate(() => window.ServiceCheckout!.close());
      await openCheckout(page, { publishableKey: `pk_${'x'.repeat(24)}`, eventId: w.eventId });
      await page.waitForSelector('[role="dialog"] [role="alert"]');
      assert.deepEqual(await audit(), [], 'error message');
    });
  });

  test('one checkout at a time: open() while one is open does nothing', async () => {
    const [first, second] = [
      await createEmbeddedSession(w, w.partnerSite.url),
      await createEmbeddedSession(w, w.partnerSite.url),
    ];
    await withPage(async (page) => {
      await openCheckout(page, { sessionId: first });
      await openCheckout(page, { sessionId: second });
      await openCheckout(page, {});
      await page.waitForTimeout(QUIET_MS);
      assert.equal(await dialogCount(page), 1);
      assert.equal(
        await page.locator('[role="dialog"] iframe').getAttribute('src'),
        `${w.site}/checkout/${first}`,
      );
      assert.deepEqual(await events(page), [], 'not even an error for the ignored calls');
    });
  });

  test('close() closes and fires onClose once; with nothing open it does nothing', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      await page.evaluate(() => {
        window.__events = [];
        window.ServiceCheckout!.close();
      });
      await openCheckout(page, { sessionId });
      await waitForReady(page);
      await page.evaluate(() => {
        window.ServiceCheckout!.close();
        window.ServiceCheckout!.close();
      });
      assert.deepEqual(await events(page), [['close']]);
      assert.equal(await dialogCount(page), 0);
      // and a new checkout can open afterwards
      await openCheckout(page, { sessionId });
      assert.equal(await dialogCount(page), 1);
    });
  });

  test("Esc and the modal's × while loading, and the page's × once ready, dismiss, each firing onClose", async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      await openCheckout(page, { sessionId });
      await page.keyboard.press('Escape');
      assert.deepEqual(await events(page), [['close']]);
      assert.equal(await dialogCount(page), 0);
      // The page held back, so the modal's own × is still there (it goes once the page is ready).
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const page$ = /\/checkout\/cs_[A-Za-z0-9]+$/;
      await page.route(page$, async (route) => {
        await held;
        await route.continue().catch(() => {});
      });
      await openCheckout(page, { sessionId });
      await page.getByRole('button', { name: 'Close checkout' }).click();
      release();
      await page.unroute(page$);
      assert.deepEqual(await events(page), [['close'], ['close']]);
      assert.equal(await dialogCount(page), 0);
      await openCheckout(page, { sessionId });
      await waitForReady(page);
      assert.equal(await page.getByRole('button', { name: 'Close checkout' }).count(), 0, 'no bar');
      clickRemovingFrame((await checkoutFrame(page, w.site)).getByRole('button', { name: 'Close checkout' }));
      assert.deepEqual(await waitForEvents(page, 3), [['close'], ['close'], ['close']]);
      assert.equal(await dialogCount(page), 0);
    });
  });

  test('focus stays inside the dialog and returns to where it was on close', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      await page.evaluate((id) => {
        const opener = document.getElementById('buy-with-key')!;
        opener.focus();
        window.ServiceCheckout!.open({ sessionId: id });
      }, sessionId);
      await waitForReady(page);
      // The checkout frame runs in another process (another site), so focus crossing its edge
      // settles a moment after the key press: wait for it to land, and fail if it lands outside.
      const inside = () =>
        page
          .waitForFunction(
            () => document.querySelector('[role="dialog"]')!.contains(document.activeElement),
            undefined,
            {
              timeout: 2000,
            },
          )
          .then(
            () => true,
            () => false,
          );
      for (const key of ['Tab', 'Shift+Tab']) {
        for (let i = 0; i < 25; i++) {
          await page.keyboard.press(key);
          assert.ok(await inside(), `${key} #${i + 1} left the dialog`);
        }
      }
      // A page element that takes focus by script is sent back too.
      await page.evaluate(() => document.getElementById('buyer-name')!.focus());
      assert.ok(await inside());
      await (await checkoutFrame(page, w.site)).getByRole('button', { name: 'Close checkout' }).focus();
      // Key down only, up after: a key-up sent to a frame that is going away can wait for ever.
      await page.keyboard.down('Escape');
      await page.waitForFunction(() => document.activeElement?.id === 'buy-with-key');
      await page.keyboard.up('Escape');
    });
  });

  test('page scroll is blocked while open and restored after', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      await page.evaluate(() => {
        document.body.style.minHeight = '400vh';
        window.scrollTo(0, 300);
      });
      await openCheckout(page, { sessionId });
      await waitForReady(page);
      assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).overflow), 'hidden');
      await page.mouse.move(20, 20);
      await page.mouse.wheel(0, 800);
      await page.keyboard.press('End');
      await page.waitForTimeout(QUIET_MS);
      assert.equal(await page.evaluate(() => window.scrollY), 300);
      await page.evaluate(() => window.ServiceCheckout!.close());
      assert.equal(await page.evaluate(() => document.documentElement.style.overflow), '');
      await page.mouse.wheel(0, 800);
      await page.waitForFunction(() => window.scrollY > 300);
    });
  });

  test('full viewport on a small screen, a centred panel on a large one', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(
      async (page) => {
        await openCheckout(page, { sessionId });
        const box = await page.locator('[role="dialog"]').boundingBox();
        assert.deepEqual(box, { x: 0, y: 0, width: 375, height: 700 });
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.waitForFunction(
          () => document.querySelector('[role="dialog"]')!.getBoundingClientRect().width === 480,
        );
        const large = (await page.locator('[role="dialog"]').boundingBox())!;
        assert.equal(large.width, 480);
        assert.equal(large.height, 760);
        assert.equal(large.x, (1280 - 480) / 2);
        assert.equal(large.y, (900 - 760) / 2);
      },
      { width: 375, height: 700 },
    );
  });

  test('a callback that throws does not break the modal; the error surfaces asynchronously', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.evaluate(
        ([id, key]) => {
          window.__events = [];
          window.ServiceCheckout!.open({
            sessionId: 'nope',
            onError: () => {
              throw new Error('partner onError bug');
            },
          });
          window.ServiceCheckout!.open({
            sessionId: id,
            onClose: () => {
              window.__events.push(['close']);
              throw new Error('partner onClose bug');
            },
          });
          window.ServiceCheckout!.close();
          window.ServiceCheckout!.open({ publishableKey: key, eventId: 'evt_missing000000000000000' });
        },
        [sessionId, w.partner.publishableKey],
      );
      await page.waitForFunction(() => document.querySelector('[role="dialog"] [role="alert"]'));
      assert.deepEqual(await events(page), [['close']]);
      assert.equal(await dialogCount(page), 1, 'the next checkout opened normally');
      await page.waitForTimeout(100);
      assert.deepEqual(pageErrors.sort(), ['partner onClose bug', 'partner onError bug']);
    });
  });

  test('messages are trusted only from its own iframe on the site it was loaded from', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      await openCheckout(page, { sessionId });
      await waitForReady(page);
      const forged = [
        { type: 'service:success', session_id: sessionId, order_id: 'ord_forged', order_code: 'FORGED00' },
        { type: 'service:cancel' },
        { type: 'service:close' },
      ];
      // 1. The host page itself (another origin) posting to its own window.
      await page.evaluate((messages) => messages.forEach((m) => window.postMessage(m, '*')), forged);
      // 2. Another frame of the very same site origin (not the checkout frame).
      await page.evaluate((site) => {
        const other = document.createElement('iframe');
        other.src = `${site}/v1/checkout.js`;
        other.id = 'other-site-frame';
        document.body.appendChild(other);
      }, w.site);
      const otherFrame = await (await page.waitForSelector('#other-site-frame')).contentFrame();
      await otherFrame!.waitForLoadState();
      assert.equal(await otherFrame!.evaluate(() => location.origin), w.site);
      await otherFrame!.evaluate((messages) => messages.forEach((m) => parent.postMessage(m, '*')), forged);
      // 3. A window of another origin that holds a reference to the page (a popup).
      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        page.evaluate((url) => void window.open(url), `${w.stranger.url}/blank`),
      ]);
      await popup.waitForLoadState();
      await popup.evaluate((messages) => messages.forEach((m) => window.opener.postMessage(m, '*')), forged);
      await page.waitForTimeout(QUIET_MS);
      assert.deepEqual(await events(page), [], 'every forged message was ignored');
      assert.equal(await dialogCount(page), 1);

      // The same message from the checkout frame itself is accepted.
      const frame = await checkoutFrame(page, w.site);
      await frame.evaluate(() => parent.postMessage({ type: 'service:close' }, '*'));
      await waitForEvents(page, 1);
      assert.deepEqual(await events(page), [['close']]);
    });
  });

  test('from its own frame: success fires onSuccess once and stays open; cancel fires onCancel then onClose', async () => {
    const sessionId = await createEmbeddedSession(w, w.partnerSite.url);
    await withPage(async (page) => {
      await openCheckout(page, { sessionId });
      await waitForReady(page);
      const frame = await checkoutFrame(page, w.site);
      const success = {
        type: 'service:success',
        session_id: sessionId,
        order_id: 'ord_1',
        order_code: 'ABCD2345',
      };
      await frame.evaluate((m) => {
        parent.postMessage(m, '*');
        parent.postMessage(m, '*');
      }, success);
      await waitForEvents(page, 1);
      await page.waitForTimeout(QUIET_MS);
      assert.deepEqual(await events(page), [
        ['success', { session_id: sessionId, order_id: 'ord_1', order_code: 'ABCD2345' }],
      ]);
      assert.equal(await dialogCount(page), 1, 'stays open on the confirmation');
      await frame.evaluate(() => parent.postMessage({ type: 'service:cancel' }, '*'));
      await waitForEvents(page, 3);
      assert.deepEqual(
        (await events(page)).map((e) => e[0]),
        ['success', 'cancel', 'close'],
      );
      assert.equal(await dialogCount(page), 0);
    });
  });
});
