// GET {site_url}/v1/checkout.js: the served bytes, their size budget, headers, caching, and the
// origins written in at serve time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import {
  API_ORIGIN_TOKEN,
  CHECKOUT_JS_VERSION,
  bundleCheckoutJs,
  fillCheckoutJsOrigins,
  loadCheckoutJsBundle,
  projectRoot,
  SITE_ORIGIN_TOKEN,
} from '../../src/embed/build-checkout-js.ts';
import { CHECKOUT_JS_MAX_BYTES } from '../../src/embed/checkout-js.routes.ts';
import { embedEn } from '../../src/site/messages/embed.en.ts';
import { embedSw } from '../../src/site/messages/embed.sw.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';

const SITE = 'https://checkout.service-partner.example';
const API = 'https://api.service-partner.example';

let h: Harness;
before(async () => {
  h = await startHarness({
    env: { SITE_URL: SITE, API_URL: API, APP_URL: 'https://app.service-partner.example' },
  });
});
after(() => h.close());

const get = (headers: Record<string, string> = {}) =>
  h.service.site.inject({ method: 'GET', url: '/v1/checkout.js', headers });

describe('serving checkout.js', () => {
  test('is served from the SITE host as JavaScript, under 6 KB as served', async () => {
    const res = await get();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin');
    assert.match(String(res.headers['x-request-id']), /^req_/);
    const bytes = res.rawPayload.length;
    assert.ok(bytes < CHECKOUT_JS_MAX_BYTES, `checkout.js is ${bytes} bytes, over the budget`);
    assert.equal(CHECKOUT_JS_MAX_BYTES, 6144);
    assert.equal(Number(res.headers['content-length']), bytes);
    console.log(`# checkout.js served size: ${bytes} bytes`);
  });

  test('has the SITE and API origins written in and no placeholder left', async () => {
    const body = (await get()).body;
    assert.ok(body.includes(`"${SITE}"`), 'knows the site it must be loaded from');
    assert.ok(body.includes(`"${API}"`), 'knows the API');
    assert.ok(!body.includes(SITE_ORIGIN_TOKEN) && !body.includes(API_ORIGIN_TOKEN));
    assert.ok(!body.includes('%SERVICE_'));
  });

  test('is cached for five minutes and revalidated with its ETag', async () => {
    const first = await get();
    assert.equal(first.headers['cache-control'], 'public, max-age=300');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]{22}"$/);
    const again = await get({ 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    assert.equal(again.headers['cache-control'], 'public, max-age=300');
    assert.equal((await get({ 'if-none-match': `W/${etag}, "other"` })).statusCode, 304);
    assert.equal((await get({ 'if-none-match': '"stale"' })).statusCode, 200);
  });

  test('is brotli or gzip encoded when the browser takes it, with its own ETag per encoding', async () => {
    const plain = await get();
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['br;q=0, gzip;q=0.5', 'gzip', gunzipSync],
    ] as const) {
      const res = await get({ 'accept-encoding': accept });
      assert.equal(res.headers['content-encoding'], encoding, accept);
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.ok(res.rawPayload.length < plain.rawPayload.length / 1.5, `${encoding} is smaller`);
      assert.equal(decode(res.rawPayload).toString('utf8'), plain.body);
      assert.equal(res.headers.etag, String(plain.headers.etag).replace(/"$/, `-${encoding}"`));
      // a cached copy in any encoding revalidates
      assert.equal((await get({ 'if-none-match': String(res.headers.etag) })).statusCode, 304);
    }
    assert.equal((await get({ 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);
    assert.equal((await get({ 'accept-encoding': 'br;q=0' })).headers['content-encoding'], undefined);
  });

  test('answers HEAD with the headers and no body', async () => {
    const res = await h.service.site.inject({ method: 'HEAD', url: '/v1/checkout.js' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.equal(res.body, '');
  });

  test('is not on the API or APP hosts', async () => {
    assert.equal((await h.service.api.inject({ url: '/v1/checkout.js' })).statusCode, 404);
    assert.equal((await h.service.app.inject({ url: '/v1/checkout.js' })).statusCode, 404);
  });

  test('refuses a partner credential sent with the request, like every SITE path', async () => {
    const partner = await makePartner(h);
    const res = await get({ 'x-service-publishable-key': partner.publishableKey });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error_code, 'partner_credential_not_accepted');
  });

  test('names its version in its first line, and the changelog has an entry for it', async () => {
    const body = (await get()).body;
    assert.equal(body.split('\n')[0], `/* ServiceCheckout checkout.js ${CHECKOUT_JS_VERSION} */`);
    const changelog = readFileSync(join(projectRoot(), 'docs', 'checkout-js-changelog.md'), 'utf8');
    const versions = [...changelog.matchAll(/^## (\d+\.\d+\.\d+)\b/gm)].map((m) => m[1]);
    assert.equal(versions[0], CHECKOUT_JS_VERSION, 'the newest changelog entry is the served version');
  });
});

describe('building checkout.js', () => {
  test('the bundle has no dependencies and defines one global', async () => {
    const bundle = bundleCheckoutJs();
    assert.ok(!/\brequire\(|\bimport\b/.test(bundle.replace(/^\/\*.*\*\/\n/, '')), 'self-contained');
    const globals = [...bundle.matchAll(/window\.([A-Za-z_$][\w$]*)\s*=/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(globals)], ['ServiceCheckout']);
  });

  test("the modal's words come from the page's catalog, both languages, keys shortened", async () => {
    const bundle = bundleCheckoutJs();
    for (const words of [embedEn, embedSw]) {
      for (const [key, text] of Object.entries(words)) {
        assert.ok(bundle.includes(JSON.stringify(text).slice(1, -1)), `${key}: ${text}`);
        assert.ok(!bundle.includes(key), `the key ${key} is shortened`);
      }
    }
  });

  test('refuses origins that could break out of a string literal', () => {
    assert.throws(() => fillCheckoutJsOrigins('x', { site: 'https://a.example"+alert(1)+"', api: API }));
    assert.throws(() => fillCheckoutJsOrigins('x', { site: SITE, api: 'https://b.example/`${x}`' }));
    assert.equal(
      fillCheckoutJsOrigins(`"${SITE_ORIGIN_TOKEN}/v1" "${API_ORIGIN_TOKEN}"`, {
        site: 'http://[::1]:4001',
        api: 'http://127.0.0.1:4000',
      }),
      '"http://[::1]:4001/v1" "http://127.0.0.1:4000"',
    );
  });

  test('a built file is served when fresh, and rebuilt in memory when older than the sources', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'checkout-js-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    writeFileSync(join(root, 'package.json'), '{}');
    cpSync(join(projectRoot(), 'web', 'checkout-js'), join(root, 'web', 'checkout-js'), { recursive: true });
    for (const words of ['embed.en.ts', 'embed.sw.ts']) {
      cpSync(
        join(projectRoot(), 'src', 'site', 'messages', words),
        join(root, 'src', 'site', 'messages', words),
      );
    }
    mkdirSync(join(root, 'dist', 'checkout-js'), { recursive: true });
    const built = join(root, 'dist', 'checkout-js', 'checkout.js');
    writeFileSync(built, '/* prebuilt */');
    const future = new Date(Date.now() + 3600_000);
    utimesSync(built, future, future);
    assert.deepEqual(loadCheckoutJsBundle(root), { text: '/* prebuilt */', from: 'built' });
    const past = new Date(Date.now() - 3600_000);
    utimesSync(built, past, past);
    const rebuilt = loadCheckoutJsBundle(root);
    assert.equal(rebuilt.from, 'memory');
    assert.ok(rebuilt.text.includes(SITE_ORIGIN_TOKEN));
  });
});
