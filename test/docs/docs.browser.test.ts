// The docs in Chromium: the API reference renders the operations from /v1/openapi.json with
// Redoc's bundle from this host, and no request leaves loopback; the guide pages pass axe at
// phone and desktop widths and fit a 320 px screen. Screenshots land in test-results/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { Harness } from '../helpers/harness.ts';
import { mkdirSync } from 'node:fs';
import {
  expectAccessible,
  launchBrowser,
  screenshot,
  SCREENSHOTS,
  watchProblems,
} from '../e2e/browser-helpers.ts';
import { startDocsHarness } from './docs-helpers.ts';

const WIDTHS = [360, 1280];
const SUITE_TIMEOUT_MS = 240_000;

let h: Harness;
let api: string;
let browser: Browser;

before(
  async () => {
    ({ h, api } = await startDocsHarness());
    browser = await launchBrowser();
  },
  { timeout: 120_000 },
);

after(async () => {
  await browser?.close();
  await h?.close();
});

/** A page that records every request it makes, and the page errors and CSP refusals it reports. */
async function open(width: number): Promise<{ page: Page; requests: string[]; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  return { page, requests, problems: watchProblems(page) };
}

function offLoopback(requests: string[]): string[] {
  return requests.filter((url) => {
    if (url.startsWith('data:') || url.startsWith('blob:')) return false;
    const host = new URL(url).hostname;
    return host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]';
  });
}

describe('docs in Chromium', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const width of WIDTHS) {
    test(`the API reference renders the operations at ${width} px, from loopback only`, async () => {
      const { page, requests, problems } = await open(width);
      await page.goto(`${api}/docs/reference`);
      await page
        .getByText('Create a checkout session')
        .first()
        .waitFor({ state: 'attached', timeout: 60_000 });
      await page.getByText('Register a webhook endpoint').first().waitFor({ state: 'attached' });
      assert.deepEqual(offLoopback(requests), [], 'requests that left loopback');
      assert.ok(
        requests.some((url) => url.endsWith('/v1/openapi.json')),
        requests.join('\n'),
      );
      assert.deepEqual(problems, []);
      // The first screen only: the whole reference is some 15,000 px long.
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}docs-reference-${width}.png` });
      await page.close();
    });

    test(`the guide pages pass axe and fit the screen at ${width} px`, async () => {
      const { page, requests, problems } = await open(width);
      for (const path of ['/docs', '/docs/quick-start', '/docs/webhooks', '/docs/errors', '/docs/nope']) {
        await page.goto(`${api}${path}`);
        await expectAccessible(page, `${path} at ${width} px`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow} px wider than the screen`);
      }
      assert.deepEqual(offLoopback(requests), []);
      assert.deepEqual(problems, []);
      await page.goto(`${api}/docs/quick-start`);
      await screenshot(page, `docs-quick-start-${width}`);
      await page.goto(`${api}/docs/errors`);
      await screenshot(page, `docs-errors-${width}`);
      await page.close();
    });
  }

  test('the guides are usable by keyboard: skip link first, then the nav', async () => {
    const { page } = await open(360);
    await page.goto(`${api}/docs/quick-start`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => location.hash), '#content');
    await page.close();
  });
});
