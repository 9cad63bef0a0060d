// The app's stylesheet and copy script, made once at start and served under a content hash
// (platform/static-assets.ts), and the checkout's own assets for its preview.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { makeAsset, sendAsset } from '../platform/static-assets.ts';
import { APP_CSS } from './client/app.css.ts';
import { COPY_JS } from './client/copy.js.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP, CHECKOUT_STYLES } from '../site/assets.ts';
import { PageError } from './app-access.ts';

export const APP_STYLES = makeAsset({
  name: 'app',
  extension: 'css',
  contentType: 'text/css; charset=utf-8',
  text: APP_CSS.trim(),
});
export const APP_SCRIPT = makeAsset({
  name: 'app',
  extension: 'js',
  contentType: 'text/javascript; charset=utf-8',
  text: COPY_JS.trim(),
});

// The checkout's stylesheet and script too, for the checkout preview (routes/event-preview.ts):
// from this host they need no exception in its Content-Security-Policy.
const ASSETS = new Map(
  [APP_STYLES, APP_SCRIPT, CHECKOUT_STYLES, CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP].map((a) => [a.path, a]),
);

export async function serveAppAsset(request: FastifyRequest, reply: FastifyReply) {
  const asset = ASSETS.get(`/assets/${(request.params as { file: string }).file}`);
  if (!asset) throw new PageError('not_found', 'asset');
  return sendAsset(reply, asset, request.headers['accept-encoding']);
}
