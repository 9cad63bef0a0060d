// The check-in page's own files: its script (web/checkin/main.ts), the QR decoder for browsers
// without BarcodeDetector (web/checkin/scanner.ts: the barcode-detector polyfill over ZXing's
// WebAssembly, loaded only when the camera opens) and that WebAssembly file, all from this host,
// never a CDN; and the service worker that keeps the page and its files for a reload offline.
// Built with esbuild at start when web/ is there (as build-app-assets.ts does), else read from
// dist/checkin-assets/ (`npm run build:checkin-assets` writes them).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import { BROWSER_SCRIPT_BUILD, buildSync, projectRoot, writeBuilt } from '../embed/index.ts';
import { makeAsset, sendAsset, type Asset } from '../platform/index.ts';
import { PageError } from './app-access.ts';

const ASSET_PREFIX = '/check-in/assets/';

function paths(root = projectRoot()) {
  const out = join(root, 'dist', 'checkin-assets');
  return {
    main: join(root, 'web', 'checkin', 'main.ts'),
    scanner: join(root, 'web', 'checkin', 'scanner.ts'),
    mainOut: join(out, 'checkin.js'),
    scannerOut: join(out, 'checkin-scanner.js'),
  };
}

function bundle(entry: string): string {
  const result = buildSync({
    ...BROWSER_SCRIPT_BUILD,
    entryPoints: [entry],
    write: false,
    logLevel: 'silent',
    target: 'es2020',
  });
  return result.outputFiles[0]!.text;
}

function loadScripts(): { main: string; scanner: string } {
  const p = paths();
  if (existsSync(p.main) && existsSync(p.scanner)) {
    return { main: bundle(p.main), scanner: bundle(p.scanner) };
  }
  return { main: readFileSync(p.mainOut, 'utf8'), scanner: readFileSync(p.scannerOut, 'utf8') };
}

/** `npm run build:checkin-assets` (part of `npm run build`) writes them for a deployment without web/. */
export function writeCheckInAssets(): void {
  const p = paths();
  writeBuilt(p.mainOut, bundle(p.main));
  writeBuilt(p.scannerOut, bundle(p.scanner));
}

const scripts = loadScripts();
const wasmBody = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
const wasmHash = createHash('sha256').update(wasmBody).digest('base64url').slice(0, 12);

const asPath = (asset: Asset) => `${ASSET_PREFIX}${asset.path.slice('/assets/'.length)}`;

const MAIN = makeAsset({
  name: 'checkin',
  extension: 'js',
  contentType: 'text/javascript; charset=utf-8',
  text: scripts.main,
});
const SCANNER = makeAsset({
  name: 'checkin-scanner',
  extension: 'js',
  contentType: 'text/javascript; charset=utf-8',
  text: scripts.scanner,
});

export const CHECKIN_SCRIPT_PATH = asPath(MAIN);
export const CHECKIN_SCANNER_PATH = asPath(SCANNER);
export const CHECKIN_WASM_PATH = `${ASSET_PREFIX}zxing_reader.${wasmHash}.wasm`;

const SCRIPTS = new Map([
  [CHECKIN_SCRIPT_PATH, MAIN],
  [CHECKIN_SCANNER_PATH, SCANNER],
]);

export function checkInAsset(
  reply: FastifyReply,
  file: string,
  acceptEncoding: string | string[] | undefined,
) {
  const path = `${ASSET_PREFIX}${file}`;
  if (path === CHECKIN_WASM_PATH) {
    return reply
      .type('application/wasm')
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .send(wasmBody);
  }
  const asset = SCRIPTS.get(path);
  if (!asset) throw new PageError('not_found', 'asset');
  return sendAsset(reply, asset, acceptEncoding);
}

/**
 * The worker, served as /check-in/sw.js so that its scope is /check-in/: check-in pages network
 * first (the kept copy when offline), the files they load (the app's stylesheet, these assets)
 * from the cache once kept, as they never change under one name. Everything else (the roster, the
 * sync) goes to the network untouched: the page keeps those itself.
 */
export const CHECKIN_WORKER_JS = `'use strict';
const CACHE = 'check-in-v1';
const PAGE = /^\\/check-in\\/evt_[A-Za-z0-9]{8,64}$/;
const ASSET = /^\\/(check-in\\/)?assets\\//;
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (PAGE.test(url.pathname)) {
    event.respondWith((async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(event.request);
        if (response.ok) await cache.put(url.pathname, response.clone());
        return response;
      } catch (error) {
        const kept = await cache.match(url.pathname);
        if (kept) return kept;
        throw error;
      }
    })());
  } else if (ASSET.test(url.pathname)) {
    event.respondWith((async () => {
      const cache = await caches.open(CACHE);
      const kept = await cache.match(url.pathname);
      if (kept) return kept;
      const response = await fetch(event.request);
      if (response.ok) await cache.put(url.pathname, response.clone());
      return response;
    })());
  }
});
`;

if (import.meta.main) {
  writeCheckInAssets();
  process.stdout.write('check-in assets: dist/checkin-assets/checkin.js, checkin-scanner.js\n');
}
