// PATCH /clients/:client_id: the client's name, display name (null removes it), scopes and origin
// allowlists.
import { ClientOut, toClientOut, updateApiClient } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { ClientIdParams, errorResponses } from '../admin-schemas.ts';
import { clientIdOf, clientRefusal } from './client-admin-checks.ts';
import { ClientPatchIn } from './client-admin.schema.ts';

export function updateClientRoute(admin: Host, ctx: AppContext): void {
  admin.patch(
    '/clients/:client_id',
    {
      schema: {
        params: ClientIdParams,
        body: ClientPatchIn,
        response: { 200: Envelope(ClientOut, 'Client updated'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const outcome = await updateApiClient(ctx, {
        actor: operatorOf(request),
        clientId: clientIdOf(request.params.client_id),
        ...request.body,
      });
      if (!('done' in outcome)) throw clientRefusal(outcome);
      const row = outcome.done;
      return envelope(200, 'Client updated', toClientOut(row));
    },
  );
}
