// The checkout pages' static assets, made once at start: the script (web/checkout-page, bundled
// by build-checkout-page.ts: from dist/ when built, else in memory), its source map and the
// stylesheet. Each is served under a content hash, cached for a year, gzip or brotli encoded.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { loadCheckoutPageBundle } from './build-checkout-page.ts';
import { CHECKOUT_CSS } from './client/checkout.css.ts';

export interface Asset {
  path: string;
  contentType: string;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

interface AssetSource {
  name: string;
  extension: string;
  contentType: string;
  text: string;
  /** 11 (smallest, slowest) for what every page loads; less for what only tools fetch */
  brotliQuality?: number;
}

function makeAsset({ name, extension, contentType, text, brotliQuality = 11 }: AssetSource): Asset {
  const body = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return {
    path: `/assets/${name}.${hash}.${extension}`,
    contentType,
    body,
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: brotliQuality, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  };
}

const bundle = await loadCheckoutPageBundle();

/** Only developer tools fetch it; its URL is in the script's last line. */
export const CHECKOUT_SCRIPT_MAP: Asset = makeAsset({
  name: 'checkout',
  extension: 'js.map',
  contentType: 'application/json; charset=utf-8',
  text: bundle.map,
  brotliQuality: 5,
});

export const CHECKOUT_SCRIPT: Asset = makeAsset({
  name: 'checkout',
  extension: 'js',
  contentType: 'text/javascript; charset=utf-8',
  text: `${bundle.code}//# sourceMappingURL=${CHECKOUT_SCRIPT_MAP.path.slice('/assets/'.length)}\n`,
});

export const CHECKOUT_STYLES: Asset = makeAsset({
  name: 'checkout',
  extension: 'css',
  contentType: 'text/css; charset=utf-8',
  text: CHECKOUT_CSS.trim(),
});

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  [CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP, CHECKOUT_STYLES].map((a) => [a.path, a]),
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
