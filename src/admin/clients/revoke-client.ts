// POST /clients/:client_id/revoke: the client and all its tokens are cut off on their next request.
import { ClientOut, revokeApiClient, toClientOut } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404 } from './client-admin-checks.ts';
import { auditAsOperator } from '../admin-audit.ts';

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
      const now = ctx.clock.now();
      const row = await ctx.database.transaction(async (tx) => {
        const revoked = await revokeApiClient(tx, client.id, now);
        // revoking twice changes nothing the second time
        if (revoked && !client.revokedAt) {
          const change = { action: 'client.revoked', targetType: 'client', targetId: client.id } as const;
          await auditAsOperator(tx, request, client.organizationId, [change], now);
        }
        return revoked;
      });
      if (!row) throw notFound('client');
      return envelope(200, 'Client revoked', toClientOut(row));
    },
  );
}
