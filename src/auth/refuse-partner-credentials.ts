// SITE and APP hosts refuse partner credentials outright, valid or not, on every path before
// routing (SPEC.md 5.3): a partner token or key sent there is a mistake that must fail loudly.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../platform/errors.ts';
import { sendError, type Host } from '../platform/http.ts';
import { PUBLISHABLE_KEY_HEADER } from './authenticate.ts';
import { ACCESS_TOKEN_PREFIX, CLIENT_ID_PREFIX } from './tokens.ts';

export function carriesPartnerCredential(request: FastifyRequest): boolean {
  if (request.headers[PUBLISHABLE_KEY_HEADER] !== undefined) return true;
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return false;
  const bearer = /^Bearer +(\S+)/i.exec(authorization);
  if (bearer) return bearer[1]!.startsWith(ACCESS_TOKEN_PREFIX);
  const basic = /^Basic +([A-Za-z0-9+/=]+)/i.exec(authorization);
  if (basic) return Buffer.from(basic[1]!, 'base64').toString('utf8').startsWith(CLIENT_ID_PREFIX);
  return false;
}

export function refusePartnerCredentials(app: Host): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!carriesPartnerCredential(request)) return;
    return sendError(
      request,
      reply,
      new ApiError(
        'partner_credential_not_accepted',
        'Partner credentials are accepted only on the partner API host; do not send them here.',
      ),
    );
  });
}
