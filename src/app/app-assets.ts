// The app's stylesheet and copy script, made once at start and served under a content hash
// (cached for a year, immutable), gzip-encoded when the browser takes it.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CSS } from './client/app.css.ts';
import { COPY_JS } from './client/copy.js.ts';
import { PageError } from './app-access.ts';

export interface AppAsset {
  path: string;
  contentType: string;
  body: Buffer;
  gzip: Buffer;
}

function makeAsset(name: string, extension: string, contentType: string, text: string): AppAsset {
  const body = Buffer.from(text.trim(), 'utf8');
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  return {
    path: `/assets/${name}.${hash}.${extension}`,
    contentType,
    body,
    gzip: gzipSync(body, { level: 9 }),
  };
}

export const APP_STYLES = makeAsset('app', 'css', 'text/css; charset=utf-8', APP_CSS);
export const APP_SCRIPT = makeAsset('app', 'js', 'text/javascript; charset=utf-8', COPY_JS);

const ASSETS = new Map([APP_STYLES, APP_SCRIPT].map((a) => [a.path, a]));

/** Whether the request's Accept-Encoding takes gzip (a q=0 refuses it). */
export function acceptsGzip(request: FastifyRequest): boolean {
  const header = String(request.headers['accept-encoding'] ?? '').toLowerCase();
  return header.split(',').some((part) => {
    const [token, ...params] = part.trim().split(';');
    if (token?.trim() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export async function serveAppAsset(request: FastifyRequest, reply: FastifyReply) {
  const asset = ASSETS.get(`/assets/${(request.params as { file: string }).file}`);
  if (!asset) throw new PageError('not_found', 'asset');
  const gzip = acceptsGzip(request);
  reply
    .type(asset.contentType)
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .header('Vary', 'Accept-Encoding');
  if (gzip) reply.header('Content-Encoding', 'gzip');
  return reply.send(gzip ? asset.gzip : asset.body);
}
