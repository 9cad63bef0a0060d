// POST /clients/:client_id/revoke: the client and all its tokens are cut off on their next request.
import { ClientOut, revokeApiClient, toClientOut } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientIdOf, clientRefusal } from './client-admin-checks.ts';

export function revokeClientRoute(admin: Host, ctx: AppContext): void {
  admin.post(
    '/clients/:client_id/revoke',
    {
      schema: {
        params: ClientIdParams,
        body: NoBody,
        response: { 200: Envelope(ClientOut, 'Client revoked'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const outcome = await revokeApiClient(ctx, {
        actor: operatorOf(request),
        clientId: clientIdOf(request.params.client_id),
      });
      if (!('done' in outcome)) throw clientRefusal(outcome);
      const row = outcome.done;
      return envelope(200, 'Client revoked', toClientOut(row));
    },
  );
}
