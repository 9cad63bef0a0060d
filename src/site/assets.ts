// The checkout pages' two static assets, built once at start: the script (the source text of
// checkoutPageScript, so it needs no build step in development or production) and the
// stylesheet. Each is served under a content hash, cached for a year, gzip or brotli encoded.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { checkoutPageScript } from './client/checkout-page.client.ts';
import { CHECKOUT_CSS } from './client/checkout.css.ts';

export interface Asset {
  path: string;
  contentType: string;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

/**
 * Whitespace-only shrinking that cannot change meaning for code written as the script is (no
 * multi-line strings or template literals): indentation, blank lines and whole-line comments go.
 */
export function compactSource(source: string): string {
  return source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');
}

function makeAsset(name: string, extension: string, contentType: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return {
    path: `/assets/${name}.${hash}.${extension}`,
    contentType,
    body,
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  };
}

export const CHECKOUT_SCRIPT: Asset = makeAsset(
  'checkout',
  'js',
  'text/javascript; charset=utf-8',
  `"use strict";(${compactSource(checkoutPageScript.toString())})();\n`,
);

export const CHECKOUT_STYLES: Asset = makeAsset(
  'checkout',
  'css',
  'text/css; charset=utf-8',
  compactSource(CHECKOUT_CSS),
);

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  [CHECKOUT_SCRIPT, CHECKOUT_STYLES].map((a) => [a.path, a]),
);

/** The encoding to answer with, from Accept-Encoding: br, then gzip, else none. */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): 'br' | 'gzip' | null {
  const header = (
    Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '')
  ).toLowerCase();
  const accepts = (name: string) =>
    header.split(',').some((part) => {
      const [token, ...params] = part.trim().split(';');
      if (token?.trim() !== name) return false;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return q === undefined || Number(q.slice(2)) > 0;
    });
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return null;
}
