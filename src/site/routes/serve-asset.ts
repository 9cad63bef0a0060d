// GET /assets/<file>: the script, its source map and the stylesheet, by content hash, cached for a
// year, in the encoding the browser takes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/errors.ts';
import { ASSETS, chooseEncoding } from '../assets.ts';

export async function serveAsset(request: FastifyRequest, reply: FastifyReply) {
  const asset = ASSETS.get(`/assets/${(request.params as { file: string }).file}`);
  if (!asset) throw notFound('asset');
  const encoding = chooseEncoding(request.headers['accept-encoding']);
  reply
    .type(asset.contentType)
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Vary', 'Accept-Encoding');
  if (encoding) reply.header('Content-Encoding', encoding);
  return reply.send(encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : asset.body);
}
