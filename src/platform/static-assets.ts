// Static assets of server-rendered pages (the checkout pages' and the organizer app's): made once,
// served under a content hash, cached for a year, in the encoding the browser takes.
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';

export interface Asset {
  path: string;
  contentType: string;
  body: Buffer;
  readonly gzip: Buffer;
  readonly brotli: Buffer;
}

export interface AssetSource {
  name: string;
  extension: string;
  contentType: string;
  text: string;
  /** 11 (smallest, slowest) for what every page loads; less for what only tools fetch */
  brotliQuality?: number;
}

export function makeAsset({ name, extension, contentType, text, brotliQuality = 11 }: AssetSource): Asset {
  const body = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  let gzip: Buffer | undefined;
  let brotli: Buffer | undefined;
  return {
    path: `/assets/${name}.${hash}.${extension}`,
    contentType,
    body,
    // Compressed when first asked for, once: a start (each CLI run, each test's service) skips it.
    get gzip() {
      return (gzip ??= gzipSync(body, { level: 9 }));
    },
    get brotli() {
      return (brotli ??= brotliCompressSync(body, {
        params: { [zlib.BROTLI_PARAM_QUALITY]: brotliQuality, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
      }));
    },
  };
}

/** Whether an Accept-Encoding header takes `name` (a q=0 refuses it). */
function acceptsEncoding(acceptEncoding: string | string[] | undefined, name: string): boolean {
  const header = (
    Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '')
  ).toLowerCase();
  return header.split(',').some((part) => {
    const [token, ...params] = part.trim().split(';');
    if (token?.trim() !== name) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The encoding to answer with, from Accept-Encoding: br, then gzip, else none. */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): 'br' | 'gzip' | null {
  if (acceptsEncoding(acceptEncoding, 'br')) return 'br';
  if (acceptsEncoding(acceptEncoding, 'gzip')) return 'gzip';
  return null;
}

/** Answers with an asset: immutable for a year, in the best encoding the request takes. */
export function sendAsset(reply: FastifyReply, asset: Asset, acceptEncoding: string | string[] | undefined) {
  const encoding = chooseEncoding(acceptEncoding);
  reply
    .type(asset.contentType)
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Vary', 'Accept-Encoding');
  if (encoding) reply.header('Content-Encoding', encoding);
  return reply.send(encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : asset.body);
}
