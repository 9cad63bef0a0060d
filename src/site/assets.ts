// The checkout pages' static assets, made once at start: the scripts (web/checkout-page, bundled
// by build-checkout-page.ts: from dist/ when built, else in memory: the form's, and the pages'
// after it), their source maps and the stylesheet, and the icon. Each is served under a content hash, cached for a year, gzip or brotli encoded.
import { loadCheckoutPageBundle, type PageScript } from './build-checkout-page.ts';
import { CHECKOUT_CSS } from './client/checkout.css.ts';
import { makeAsset, type Asset } from '../platform/index.ts';

/** A script and its map; only developer tools fetch the map, whose URL is in the script's last line. */
function scriptAssets(built: PageScript): [Asset, Asset] {
  const bundle = loadCheckoutPageBundle(undefined, built);
  // Both served as checkout.*.js ("checkout.pages.<hash>.js"): one pattern names the page scripts.
  const name = built.replace('-', '.');
  const map = makeAsset({
    name,
    extension: 'js.map',
    contentType: 'application/json; charset=utf-8',
    text: bundle.map,
    brotliQuality: 5,
  });
  const script = makeAsset({
    name,
    extension: 'js',
    contentType: 'text/javascript; charset=utf-8',
    text: `${bundle.code}//# sourceMappingURL=${map.path.slice('/assets/'.length)}\n`,
  });
  return [script, map];
}

/** The form's script. */
export const [CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP] = scriptAssets('checkout');
/** The script of the pages after the form: the wait screen, its outcomes, the confirmation. */
export const [PAGES_SCRIPT, PAGES_SCRIPT_MAP] = scriptAssets('checkout-pages');

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
  [CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP, PAGES_SCRIPT, PAGES_SCRIPT_MAP, CHECKOUT_STYLES, SITE_ICON].map(
    (a) => [a.path, a],
  ),
);
