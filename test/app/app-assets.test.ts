// The organizer app's script and stylesheet as built (web/app, src/app/build-app-assets.ts): what
// goes into them, how they are served, and the choice between the built files in dist/ and a
// build in memory.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../src/embed/build-checkout-js.ts';
import { APP_SCRIPT, APP_SCRIPT_MAP, APP_STYLES } from '../../src/app/app-assets.ts';
import { appAssetsPaths, bundleAppAssets, loadAppAssets } from '../../src/app/build-app-assets.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

const ROOT = projectRoot();

describe('app assets bundle', () => {
  test('is made from web/app and the price breakdown the pages say too', async () => {
    const { inputs } = bundleAppAssets();
    assert.deepEqual([...inputs].sort(), [
      'src/app/views/price-breakdown.ts',
      'src/events/fee-formula.ts',
      'web/app/app.css',
      'web/app/copy-buttons.ts',
      'web/app/main.ts',
      'web/app/price-breakdown.ts',
    ]);
  });

  test('the script is one strict IIFE that wires the copy buttons and names its source map', () => {
    const text = APP_SCRIPT.body.toString('utf8');
    assert.doesNotThrow(() => new Function(text));
    assert.match(text, /^"use strict";\(\(\)=>\{/);
    assert.match(text, /button\[data-copy\]/);
    assert.match(text, /copy-status/);
    assert.ok(text.endsWith(`//# sourceMappingURL=${APP_SCRIPT_MAP.path.slice('/assets/'.length)}\n`));
    const map = JSON.parse(APP_SCRIPT_MAP.body.toString('utf8')) as { sources: string[] };
    assert.ok(map.sources.some((source) => source.endsWith('web/app/copy-buttons.ts')));
  });

  test('the stylesheet is minified and keeps its rules', () => {
    const text = APP_STYLES.body.toString('utf8');
    assert.ok(!text.includes('\n  '), 'no indentation left');
    assert.ok(!text.includes('/*'), 'no comments left');
    assert.match(text, /:focus-visible\{outline:3px solid var\(--focus\)/);
    assert.match(text, /--accent: ?#1f4fbf/);
  });
});

describe('serving the app assets', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const asset of [APP_STYLES, APP_SCRIPT, APP_SCRIPT_MAP]) {
    test(`${asset.path} is served under its hash, cached for a year, in the encoding asked`, async () => {
      assert.match(asset.path, /^\/assets\/app\.[\w-]{12}\.(css|js|js\.map)$/);
      for (const [accept, body, encoding] of [
        ['br, gzip', asset.brotli, 'br'],
        ['gzip', asset.gzip, 'gzip'],
        ['', asset.body, undefined],
      ] as const) {
        const res = await h.service.app.inject({ url: asset.path, headers: { 'accept-encoding': accept } });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.equal(res.headers['content-type'], asset.contentType);
        assert.equal(res.headers['content-encoding'], encoding);
        assert.deepEqual(res.rawPayload, body);
      }
    });
  }

  test('an old or unknown hash is the 404 page', async () => {
    const res = await h.service.app.inject({ url: '/assets/app.AAAAAAAAAAAA.js' });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /<html/);
  });
});

describe('loading the app assets', () => {
  test('the built files are used while no source is newer; else they are built in memory', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'app-assets-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    const built = bundleAppAssets();
    for (const file of ['package.json', 'tsconfig.json', ...built.inputs]) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      cpSync(join(ROOT, file), join(root, file));
    }
    const paths = appAssetsPaths(root);
    mkdirSync(dirname(paths.script), { recursive: true });
    writeFileSync(paths.script, '/* prebuilt */');
    writeFileSync(paths.map, '{"version":3}');
    writeFileSync(paths.css, '/* prebuilt css */');
    writeFileSync(paths.inputs, JSON.stringify(built.inputs));
    const setTime = (file: string, offsetMs: number) => {
      const at = new Date(Date.now() + offsetMs);
      utimesSync(file, at, at);
    };
    for (const file of [paths.script, paths.map, paths.css]) setTime(file, 3600_000);

    const fresh = loadAppAssets(root);
    assert.equal(fresh.from, 'built');
    assert.equal(fresh.script, '/* prebuilt */');
    assert.equal(fresh.css, '/* prebuilt css */');

    // The stylesheet changed after the build: the old one must not be served.
    setTime(join(root, 'web/app/app.css'), 7200_000);
    const rebuilt = loadAppAssets(root);
    assert.equal(rebuilt.from, 'memory');
    assert.equal(rebuilt.css, built.css);
    assert.equal(rebuilt.script, built.script);

    // A deployment without the sources uses what was built, however old.
    rmSync(join(root, 'web'), { recursive: true });
    assert.equal(loadAppAssets(root).from, 'built');
    rmSync(paths.css);
    assert.throws(() => loadAppAssets(root), /neither .* nor their sources/);
  });
});
