// The measuring of `npm run budget` (scripts/checkout-budget.ts): one unthrottled load each way
// counts the bytes of the load and reaches the usable moment. The figures themselves are judged by
// the script, never here (no timing assertions in tests).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { makeTypicalCheckout, measureCheckoutLoad, type LoadMeasure } from '../../scripts/checkout-budget.ts';
import type { Harness } from '../helpers/harness.ts';
import { launchBrowser, startListeningHarness } from '../e2e/browser-helpers.ts';

let h: Harness;
let browser: Browser;
let url: string;

before(async () => {
  ({ h } = await startListeningHarness());
  url = await makeTypicalCheckout(h.service, h.clock);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await h?.close();
});

const paths = (m: LoadMeasure) => m.resources.map((r) => new URL(r.url).pathname).sort();

test('a load with the script counts the page, stylesheet and script, and reaches the ready mark', async () => {
  const m = await measureCheckoutLoad(browser, { url, javaScript: true, throttle: false });
  assert.equal(m.ready, true, 'the page script marks html[data-ready]');
  assert.ok(m.bytes > 0);
  assert.equal(
    m.bytes,
    m.resources.reduce((sum, r) => sum + r.bytes, 0),
  );
  // In any order: sorted, the two assets' content hashes would decide it.
  const found = paths(m);
  assert.ok(
    found.some((path) => /^\/assets\/checkout\.[\w-]+\.css$/.test(path)),
    found.join(', '),
  );
  assert.ok(
    found.some((path) => /^\/assets\/checkout\.[\w-]+\.js$/.test(path)),
    found.join(', '),
  );
  assert.ok(found.includes(new URL(url).pathname), found.join(', '));
  assert.equal(m.resources.length, 3);
  assert.ok(m.usableMs > 0 && Number.isFinite(m.usableMs));
});

test('a load without the script fetches no script, and its first step is usable all the same', async () => {
  const m = await measureCheckoutLoad(browser, { url, javaScript: false, throttle: false });
  assert.equal(m.ready, false);
  assert.ok(m.bytes > 0);
  assert.equal(paths(m).length, 2);
  assert.ok(!paths(m).some((path) => path.endsWith('.js')), paths(m).join(', '));
  assert.ok(m.usableMs > 0 && Number.isFinite(m.usableMs));
});
