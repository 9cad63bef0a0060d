// The checkout pages' static assets, made once at start: the script (web/checkout-page, bundled
// by build-checkout-page.ts: from dist/ when built, else in memory), its source map and the
// stylesheet. Each is served under a content hash, cached for a year, gzip or brotli encoded.
import { loadCheckoutPageBundle } from './build-checkout-page.ts';
import { CHECKOUT_CSS } from './client/checkout.css.ts';
import { makeAsset, type Asset } from '../platform/index.ts';

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
