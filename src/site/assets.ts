// The checkout pages' static assets, made once at start: the script (web/checkout-page, bundled
// by build-checkout-page.ts: from dist/ when built, else in memory), its source map and the
// stylesheet, and the icon. Each is served under a content hash, cached for a year, gzip or brotli encoded.
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

/** The tab's icon: a ticket on the checkout's blue (SVG, so one small file serves every size). */
export const SITE_ICON: Asset = makeAsset({
  name: 'icon',
  extension: 'svg',
  contentType: 'image/svg+xml',
  text:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/>' +
    '<path d="M6 10h20v4a2 2 0 0 0 0 4v4H6v-4a2 2 0 0 0 0-4z" fill="#fff"/>' +
    '<path d="M20 11v10" stroke="#1d4ed8" stroke-width="1.5" stroke-dasharray="2 1.5"/></svg>',
});

export const ASSETS: ReadonlyMap<string, Asset> = new Map(
  [CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP, CHECKOUT_STYLES, SITE_ICON].map((a) => [a.path, a]),
);
