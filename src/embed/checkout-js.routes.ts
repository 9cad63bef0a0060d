// GET {site_url}/v1/checkout.js (docs/contract.md#loading-the-script, #hosts-and-versioning).
// The bytes are made once at start: the bundle with this deployment's SITE and API origins
// written in, which is how the script knows where it belongs and which API to call.
//
// Caching: the URL is versioned by its /v1 path but its content changes with each release, so
// browsers and CDNs keep it for five minutes and then revalidate with the ETag (a 304 costs no
// body). Partners always get fixes within minutes, never a stale copy for days. Brotli or gzip
// when the browser takes them: under half the bytes on a slow phone connection.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import { fillCheckoutJsOrigins, loadCheckoutJsBundle } from './build-checkout-js.ts';

export const CHECKOUT_JS_PATH = '/v1/checkout.js';
/** The contract's "under 6 KB" (docs/contract.md#limits): the served script's raw bytes stay under 6,144. */
export const CHECKOUT_JS_MAX_BYTES = 6144;
const CHECKOUT_JS_CACHE_CONTROL = 'public, max-age=300';

let bundle: { text: string; from: string } | undefined;

/** The served bytes for these origins (the bundle is loaded or built once per process). */
function checkoutJsFor(origins: { site: string; api: string }): Buffer {
  // A failed build throws before it is kept: the next host that starts tries again.
  bundle ??= loadCheckoutJsBundle();
  return Buffer.from(fillCheckoutJsOrigins(bundle.text, origins), 'utf8');
}

type Encoding = 'br' | 'gzip' | 'identity';

/** br, then gzip, when Accept-Encoding takes them (q above 0), else the plain bytes. */
function pickEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .toLowerCase()
      .split(',')
      .map((part) => part.trim().split(/\s*;\s*/))
      .filter(([, q]) => q === undefined || !/^q=0(\.0*)?$/.test(q))
      .map(([token]) => token),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return 'identity';
}

/** If-None-Match names one of our tags (any encoding of the same bytes), or `*`. */
function matchesEtag(ifNoneMatch: string | undefined, etags: string[]): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || etags.includes(tag));
}

export async function registerCheckoutJs(app: Host, ctx: AppContext): Promise<void> {
  const body = checkoutJsFor({ site: ctx.config.siteUrl.origin, api: ctx.config.apiUrl.origin });
  if (body.length >= CHECKOUT_JS_MAX_BYTES) {
    app.log.warn({ bytes: body.length }, 'checkout.js is over its 6 KB budget');
  }
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  // One strong tag per encoding, since each is a different byte sequence.
  const variants: Record<Encoding, { bytes: Buffer; etag: string }> = {
    identity: { bytes: body, etag: `"${hash}"` },
    gzip: { bytes: gzipSync(body, { level: 9 }), etag: `"${hash}-gzip"` },
    br: {
      bytes: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
      etag: `"${hash}-br"`,
    },
  };
  const etags = Object.values(variants).map((v) => v.etag);

  app.get(CHECKOUT_JS_PATH, { schema: { hide: true } }, async (request, reply) => {
    const encoding = pickEncoding(request.headers['accept-encoding']);
    const variant = variants[encoding];
    reply
      .header('Cache-Control', CHECKOUT_JS_CACHE_CONTROL)
      .header('ETag', variant.etag)
      .header('Vary', 'Accept-Encoding')
      .header('X-Content-Type-Options', 'nosniff')
      // Loadable by partner pages that require CORP (Cross-Origin-Embedder-Policy: require-corp).
      .header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (matchesEtag(request.headers['if-none-match'], etags)) return reply.code(304).send();
    if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
    return reply.type('application/javascript; charset=utf-8').send(variant.bytes);
  });
}
