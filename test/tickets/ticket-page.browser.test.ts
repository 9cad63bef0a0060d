// The ticket page in Chromium, opened from the link in the confirmation mail: its QR code, read
// back from the rendered pixels with jsQR, carries the page's own address; it is accessible (axe)
// and fits 360 px and a desktop; it prints on one A6 page without its button; and once opened it
// still shows after the phone goes offline (the service worker's copy).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import jsQRModule from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import type { Harness } from '../helpers/harness.ts';
import {
  expectAccessible,
  launchBrowser,
  screenshot,
  SCREENSHOTS,
  startListeningHarness,
  watchProblems,
} from '../e2e/browser-helpers.ts';
import { bibs } from '../../src/startlists/startlists.schema.ts';
import { ticketsOfOrder } from '../../src/tickets/index.ts';
import { makeShop } from '../webhooks/webhook-helpers.ts';
import { confirmationMail, freeOrderOf, ticketLinks } from './ticket-helpers.ts';

// jsqr is CommonJS whose types declare an ES default export: Node hands over the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** A stuck browser fails the suite instead of stalling the run. */
const SUITE_TIMEOUT_MS = 240_000;

let h: Harness;
let browser: Browser;
/** the ticket links of the mail, first runner first */
let links: string[];

before(
  async () => {
    ({ h } = await startListeningHarness({ RUN_JOBS: 'false' }));
    browser = await launchBrowser();
    const shop = await makeShop(h);
    const order = await freeOrderOf(h, shop, ['Nakato Amina Wanjiru-Kyomuhendo', 'Okello Brian']);
    const mail = await confirmationMail(h, order.order_code);
    links = ticketLinks(mail.text);
    assert.equal(links.length, 2, mail.text);
    const [first] = await ticketsOfOrder(h.service.ctx.database.db, order.id);
    await h.service.ctx.database.db.insert(bibs).values({
      registrationId: first!.registrationId,
      eventId: shop.eventId,
      ticketTypeId: shop.freeTicket,
      number: 1042,
      assignedAt: h.clock.now(),
    });
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await h?.close();
});

/** The QR code as the page renders it: a screenshot of its element, decoded by jsQR. */
async function readQr(page: Page): Promise<string | null> {
  const png = (await page.locator('[data-qr]').screenshot()).toString('base64');
  // The PNG's pixels through the page's own canvas (the CSP allows data: images).
  const pixels = await page.evaluate(async (data) => {
    const img = new Image();
    img.src = `data:image/png;base64,${data}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d')!;
    context.drawImage(img, 0, 0);
    const image = context.getImageData(0, 0, canvas.width, canvas.height);
    return { width: image.width, height: image.height, data: Array.from(image.data) };
  }, png);
  return jsQR(new Uint8ClampedArray(pixels.data), pixels.width, pixels.height)?.data ?? null;
}

async function noSideScroll(page: Page, width: number) {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrollWidth <= width, `page is ${scrollWidth} px wide at ${width}`);
}

describe('the ticket page in a browser', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('at 360 px: the QR code gives the link back, axe finds nothing, and it shows offline', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      const link = links[0]!;
      const res = await page.goto(link);
      assert.equal(res?.status(), 200);
      await page.getByRole('heading', { name: 'Race ticket' }).waitFor();
      assert.equal(await readQr(page), link, 'the QR code carries the page address');
      assert.match(await page.locator('[data-bib]').innerText(), /^1042$/);
      assert.ok(await page.getByRole('button', { name: 'Print ticket' }).isVisible());
      await noSideScroll(page, 360);
      await expectAccessible(page, 'ticket page at 360 px');
      await screenshot(page, 'ticket-page-360');

      // The worker keeps the page it was registered from; then the phone goes offline.
      await page.waitForFunction(
        async (url) => Boolean(navigator.serviceWorker.controller && (await caches.match(url))),
        link,
        { timeout: 20_000 },
      );
      await context.setOffline(true);
      const offline = await page.evaluate(() =>
        fetch('/tickets/sw.js', { cache: 'no-store' }).then(
          () => 'reached',
          () => 'offline',
        ),
      );
      assert.equal(offline, 'offline', 'the network is really gone');
      const again = await page.reload();
      assert.equal(again?.status(), 200);
      assert.ok(again?.fromServiceWorker(), 'answered by the service worker');
      await page.getByRole('heading', { name: 'Race ticket' }).waitFor();
      assert.match(await page.locator('.runner').innerText(), /Nakato Amina Wanjiru-Kyomuhendo/);
      assert.equal(await readQr(page), link);
      await screenshot(page, 'ticket-page-offline');
      // A ticket never opened before is not there offline: no stale page stands in for it.
      const other = await page.goto(links[1]!).catch(() => null);
      assert.ok(!other || other.status() !== 200);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test('on a desktop and in print: one A6 page, the QR large and no button', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      const link = links[1]!;
      await page.goto(link);
      await page.getByRole('heading', { name: 'Race ticket' }).waitFor();
      assert.equal(await readQr(page), link);
      assert.match(await page.locator('[data-bib]').innerText(), /Not given yet/);
      await expectAccessible(page, 'ticket page on a desktop');
      await screenshot(page, 'ticket-page-desktop');

      await page.emulateMedia({ media: 'print' });
      assert.equal(await page.locator('[data-print]').isVisible(), false, 'no button on paper');
      const qrWidth = await page.locator('[data-qr]').evaluate((e) => e.getBoundingClientRect().width);
      assert.ok(qrWidth >= 180, `the QR code prints ${qrWidth} px (5 cm) wide`);
      assert.equal(await readQr(page), link, 'the printed QR code reads too');
      await screenshot(page, 'ticket-page-print');
      const pdf = await page.pdf({ format: 'A6', printBackground: true });
      writeFileSync(`${SCREENSHOTS}ticket-page-a6.pdf`, pdf);
      const pages = pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? [];
      // As the A6 sheet shows it (105 x 148 mm at 96 px an inch), for a person to look at.
      await page.setViewportSize({ width: 397, height: 559 });
      await screenshot(page, 'ticket-page-print-a6');
      assert.equal(pages.length, 1, 'prints on one A6 page');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
