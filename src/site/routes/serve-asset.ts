// GET /assets/<file>: the script, its source map and the stylesheet, by content hash, cached for a
// year, in the encoding the browser takes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound, sendAsset } from '../../platform/index.ts';
import { ASSETS } from '../assets.ts';

export async function serveAsset(request: FastifyRequest, reply: FastifyReply) {
  const asset = ASSETS.get(`/assets/${(request.params as { file: string }).file}`);
  if (!asset) throw notFound('asset');
  return sendAsset(reply, asset, request.headers['accept-encoding']);
}
