// The app's stylesheet and script (web/app, built by build-app-assets.ts: from dist/ when built,
// else in memory), made once at start and served under a content hash (platform/static-assets.ts),
// and the checkout's own assets for its preview.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { makeAsset, sendAsset, type Asset } from '../platform/index.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP, CHECKOUT_STYLES, SITE_ICON } from '../site/index.ts';
import { PageError } from './app-access.ts';
import { loadAppAssets } from './build-app-assets.ts';
import { paramsOf } from './app-input.ts';

const bundle = loadAppAssets();

const AssetParams = Type.Object({ file: Type.String({ maxLength: 200 }) });

export const APP_STYLES: Asset = makeAsset({
  name: 'app',
  extension: 'css',
  contentType: 'text/css; charset=utf-8',
  text: bundle.css,
});

/** Only developer tools fetch it; its URL is in the script's last line. */
export const APP_SCRIPT_MAP: Asset = makeAsset({
  name: 'app',
  extension: 'js.map',
  contentType: 'application/json; charset=utf-8',
  text: bundle.map,
  brotliQuality: 5,
});

export const APP_SCRIPT: Asset = makeAsset({
  name: 'app',
  extension: 'js',
  contentType: 'text/javascript; charset=utf-8',
  text: `${bundle.script}//# sourceMappingURL=${APP_SCRIPT_MAP.path.slice('/assets/'.length)}\n`,
});

// The checkout's stylesheet and script too, for the checkout preview (routes/event-preview.ts):
// from this host they need no exception in its Content-Security-Policy. The icon is the app's too.
const ASSETS = new Map(
  [
    APP_STYLES,
    APP_SCRIPT,
    APP_SCRIPT_MAP,
    CHECKOUT_STYLES,
    CHECKOUT_SCRIPT,
    CHECKOUT_SCRIPT_MAP,
    SITE_ICON,
  ].map((a) => [a.path, a]),
);

export async function serveAppAsset(request: FastifyRequest, reply: FastifyReply) {
  const asset = ASSETS.get(`/assets/${paramsOf(request, AssetParams).file}`);
  if (!asset) throw new PageError('not_found', 'asset');
  return sendAsset(reply, asset, request.headers['accept-encoding']);
}
