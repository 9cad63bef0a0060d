// The admin API's credential: `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time.
// The key comes from ADMIN_API_KEY, or is generated on first start and kept hashed in the database.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import {
  ApiError,
  getSetting,
  matchesHash,
  newSecret,
  safeEqual,
  setSetting,
  sha256Hex,
} from '../platform/index.ts';

const SETTING = 'admin_key_hash';

/** Creates and stores a new admin key when none is configured or stored; returns it (shown once). */
export async function ensureAdminKey(ctx: AppContext): Promise<string | null> {
  if (ctx.config.adminApiKey) return null;
  if (await getSetting(ctx.database, SETTING)) return null;
  const key = newSecret('adm');
  await setSetting(ctx.database, SETTING, sha256Hex(key));
  return key;
}

export async function requireAdmin(ctx: AppContext, request: FastifyRequest): Promise<void> {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  const presented = match?.[1] ?? '';
  let ok: boolean;
  if (ctx.config.adminApiKey) {
    ok = safeEqual(presented, ctx.config.adminApiKey);
  } else {
    const stored = await getSetting(ctx.database, SETTING);
    ok = stored !== undefined && matchesHash(presented, stored);
  }
  if (!ok) {
    throw new ApiError('unauthorized', 'Send the admin API key as "Authorization: Bearer <key>".', {
      headers: { 'WWW-Authenticate': 'Bearer realm="service-partner"' },
    });
  }
}
