// POST /clients/:client_id/revoke: the client and all its tokens are cut off on their next request.
import { ClientOut, revokeApiClient, toClientOut } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404 } from './client-admin-checks.ts';
import { auditedAsOperator, changeOf } from '../admin-audit.ts';

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
      const client = await clientOr404(ctx, request.params.client_id);
      const at = { organizationId: client.organizationId, now: ctx.clock.now() };
      // revoking twice changes nothing the second time
      const changes = client.revokedAt ? [] : [changeOf('client.revoked', { type: 'client', id: client.id })];
      const row = await auditedAsOperator(ctx, request, at, changes, (tx) =>
        revokeApiClient(tx, client.id, at.now),
      );
      if (!row) throw notFound('client');
      return envelope(200, 'Client revoked', toClientOut(row));
    },
  );
}
