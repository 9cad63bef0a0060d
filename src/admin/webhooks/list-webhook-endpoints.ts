// GET /organizations/:id/webhook-endpoints: the organization's endpoints, enabled or not.
import { Type } from 'typebox';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { listWebhookEndpoints, toWebhookEndpointOut, WebhookEndpointOut } from '../../webhooks/index.ts';

export function listWebhookEndpointsRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/organizations/:id/webhook-endpoints',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(
            Type.Object({ webhook_endpoints: Type.Array(WebhookEndpointOut) }),
            'Webhook endpoints retrieved',
          ),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const now = ctx.clock.now();
      const rows = await listWebhookEndpoints(db, org.id);
      return envelope(200, 'Webhook endpoints retrieved', {
        webhook_endpoints: rows.map((row) => toWebhookEndpointOut(row, now)),
      });
    },
  );
}
