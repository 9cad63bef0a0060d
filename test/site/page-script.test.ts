// The hosted checkout's page script as built (web/checkout-page, src/site/build-checkout-page.ts):
// what goes into the bundle, a source map that leads back to the right source lines, and the
// choice between the built files in dist/ and a build in memory.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { projectRoot } from '../../src/embed/build-checkout-js.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP } from '../../src/site/assets.ts';
import {
  bundleCheckoutPage,
  checkoutPagePaths,
  loadCheckoutPageBundle,
} from '../../src/site/build-checkout-page.ts';

const ROOT = projectRoot();
/** Server modules the browser may share: pure rules with no imports of server code. */
// No catalog: the script's words come with the page (its JSON block), only fill() is bundled; no
// payment method catalogue either: the event's own methods come with the page too.
const SHARED = [
  'src/orders/contact.ts',
  'src/platform/currency.ts',
  'src/site/event-methods.ts',
  'src/site/format.ts',
  'src/site/payment-phone.ts',
  'src/site/messages/fill.ts',
];

describe('page script bundle', () => {
  test('holds only the page modules and the pure rules it shares with the server', async () => {
    const { inputs } = bundleCheckoutPage();
    const outside = inputs.filter(
      (input) => !input.startsWith('web/checkout-page/') && !SHARED.includes(input),
    );
    assert.deepEqual(outside, []);
    for (const shared of SHARED) assert.ok(inputs.includes(shared), `${shared} is bundled`);
  });

  test("the form's script holds none of the pages after it; theirs holds none of the form", async () => {
    const form = bundleCheckoutPage().inputs;
    const pages = bundleCheckoutPage(undefined, 'checkout-pages').inputs;
    for (const file of ['payment-wait.ts', 'confirmation.ts']) {
      assert.ok(!form.includes(`web/checkout-page/${file}`), file);
      assert.ok(pages.includes(`web/checkout-page/${file}`), file);
    }
    for (const file of ['form-steps.ts', 'step-checks.ts', 'summary.ts']) {
      assert.ok(form.includes(`web/checkout-page/${file}`), file);
      assert.ok(!pages.includes(`web/checkout-page/${file}`), file);
    }
    assert.ok(!pages.some((input) => input.startsWith('src/payments/')), pages.join(' '));
  });

  test('is one strict IIFE that ends with the URL of its source map', () => {
    const text = CHECKOUT_SCRIPT.body.toString('utf8');
    assert.doesNotThrow(() => new Function(text));
    assert.match(text, /^"use strict";\(\(\)=>\{/);
    const mapName = CHECKOUT_SCRIPT_MAP.path.slice('/assets/'.length);
    assert.ok(text.endsWith(`})();\n//# sourceMappingURL=${mapName}\n`), text.slice(-120));
  });

  test('the source map leads each part of the script back to its source line', () => {
    const payload = JSON.parse(CHECKOUT_SCRIPT_MAP.body.toString('utf8'));
    const map = new SourceMap(payload);
    const sourceDir = dirname(checkoutPagePaths(ROOT).code);
    // The sources in the map are the files on disk, so the browser's tools show the real code.
    (payload.sources as string[]).forEach((source, i) =>
      assert.equal(payload.sourcesContent[i], readFileSync(resolve(sourceDir, source), 'utf8'), source),
    );
    const code = CHECKOUT_SCRIPT.body.toString('utf8');
    const needles: [string, string][] = [
      ['service:ready', 'web/checkout-page/embed-messages.ts'],
      ['chooseAtLeastOne', 'web/checkout-page/step-checks.ts'],
      ['acceptWaiver', 'web/checkout-page/step-checks.ts'],
      ['confirmRegistration', 'web/checkout-page/form-steps.ts'],
      ['serviceFee', 'web/checkout-page/summary.ts'],
      ['checkout-messages', 'web/checkout-page/messages.ts'],
      ['guessedNetwork', 'web/checkout-page/payment-step.ts'],
      ['checkout-offer', 'web/checkout-page/page-methods.ts'],
      ['/^7\\d{8}$/', 'src/orders/contact.ts'],
    ];
    for (const [needle, file] of needles) {
      const at = code.indexOf(needle);
      assert.ok(at >= 0, needle);
      const before = code.slice(0, at).split('\n');
      const entry = map.findEntry(before.length - 1, before.at(-1)!.length);
      assert.ok('originalSource' in entry, `${needle} is mapped`);
      const source = resolve(sourceDir, entry.originalSource);
      assert.equal(source, join(ROOT, file), needle);
      const line = readFileSync(source, 'utf8').split('\n')[entry.originalLine]!;
      assert.ok(line.includes(needle), `${needle} maps to ${file}:${entry.originalLine + 1}: ${line.trim()}`);
    }
  });
});

describe('loading the page script', () => {
  test('the built files are used while no source is newer; else the script is built in memory', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'checkout-page-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const { inputs } = bundleCheckoutPage();
    for (const file of ['package.json', 'tsconfig.json', ...inputs]) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      cpSync(join(ROOT, file), join(root, file));
    }
    const paths = checkoutPagePaths(root);
    mkdirSync(dirname(paths.code), { recursive: true });
    writeFileSync(paths.code, '/* prebuilt */');
    writeFileSync(paths.map, '{"version":3}');
    writeFileSync(paths.inputs, JSON.stringify(inputs));
    const setTime = (file: string, offsetMs: number) => {
      const at = new Date(Date.now() + offsetMs);
      utimesSync(file, at, at);
    };
    for (const file of [paths.code, paths.map]) setTime(file, 3600_000);

    const fresh = loadCheckoutPageBundle(root);
    assert.equal(fresh.from, 'built');
    assert.equal(fresh.code, '/* prebuilt */');
    assert.equal(fresh.map, '{"version":3}');

    // A shared rule changed after the build: the bundle must not keep the old one.
    setTime(join(root, 'src/orders/contact.ts'), 7200_000);
    const rebuilt = loadCheckoutPageBundle(root);
    assert.equal(rebuilt.from, 'memory');
    assert.equal(rebuilt.code, bundleCheckoutPage().code);

    // A deployment without the sources uses what was built, however old.
    rmSync(join(root, 'web'), { recursive: true });
    assert.equal(loadCheckoutPageBundle(root).from, 'built');
    rmSync(paths.code);
    assert.throws(() => loadCheckoutPageBundle(root), /neither .* nor its sources/);
  });
});
