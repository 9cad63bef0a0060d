// SITE and APP hosts refuse partner credentials outright, valid or not, on every path before
// routing (docs/contract.md#authentication-and-scopes): a partner token or key sent there is a
// mistake that must fail loudly.
// What counts as one is decided by the API's own parser (credentials.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, sendError, type Host } from '../platform/index.ts';
import { carriesPartnerCredential, readRequestCredentials } from './credentials.ts';

export function refusePartnerCredentials(app: Host): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!carriesPartnerCredential(readRequestCredentials(request))) return;
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
