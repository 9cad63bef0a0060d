// POST /clients/:client_id/revoke: the client and all its tokens are cut off on their next request.
import { ClientOut, revokeApiClient, toClientOut } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404 } from './client-admin-checks.ts';

export function revokeClientRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
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
      const row = await revokeApiClient(db, client.id, ctx.clock.now());
      if (!row) throw notFound('client');
      return envelope(200, 'Client revoked', toClientOut(row));
    },
  );
}
