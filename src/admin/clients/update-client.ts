// PATCH /clients/:client_id: the client's name, display name (null removes it), scopes and origin
// allowlists.
import { ClientOut, toClientOut, updateApiClient } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses } from '../admin-schemas.ts';
import { checkClientLists } from '../../auth/client-lists.ts';
import { clientOr404 } from './client-admin-checks.ts';
import { ClientPatchIn } from './client-admin.schema.ts';
import { auditAsOperator, clientChanges } from '../admin-audit.ts';

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
      const client = await clientOr404(ctx, request.params.client_id);
      const lists = checkClientLists(request.body);
      const now = ctx.clock.now();
      const row = await ctx.database.transaction(async (tx) => {
        const updated = await updateApiClient(
          tx,
          client.id,
          {
            name: request.body.name,
            displayName: lists.displayName,
            scopes: lists.scopes,
            allowedDomains: lists.allowedDomains,
            returnUrlDomains: lists.returnUrlDomains,
          },
          now,
        );
        if (updated)
          await auditAsOperator(tx, request, client.organizationId, clientChanges(client, updated), now);
        return updated;
      });
      if (!row) throw notFound('client');
      return envelope(200, 'Client updated', toClientOut(row));
    },
  );
}
