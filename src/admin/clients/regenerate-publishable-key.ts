// POST /clients/:client_id/regenerate-publishable-key: a new publishable key; the old one stops working.
import { regeneratePublishableKey } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404, revokedConflict } from './client-admin-checks.ts';
import { PublishableKeyOut } from './client-admin.schema.ts';
import { auditedAsOperator, changeOf } from '../admin-audit.ts';

export function regeneratePublishableKeyRoute(admin: Host, ctx: AppContext): void {
  admin.post(
    '/clients/:client_id/regenerate-publishable-key',
    {
      schema: {
        params: ClientIdParams,
        body: NoBody,
        response: {
          200: Envelope(PublishableKeyOut, 'Publishable key regenerated'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      const client = await clientOr404(ctx, request.params.client_id);
      if (client.revokedAt) throw revokedConflict();
      const at = { organizationId: client.organizationId, now: ctx.clock.now() };
      const change = changeOf('client.publishable_key_regenerated', { type: 'client', id: client.id });
      const row = await auditedAsOperator(ctx, request, at, [change], (tx) =>
        regeneratePublishableKey(tx, client.id, at.now),
      );
      if (!row) throw revokedConflict();
      return envelope(200, 'Publishable key regenerated', {
        client_id: row.id,
        publishable_key: row.publishableKey,
      });
    },
  );
}
