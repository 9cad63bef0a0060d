// DELETE /webhook-endpoints/:id: removes the endpoint (an action: no body).
import { errorResponses, IdParams, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { deleteWebhookEndpoint } from '../../webhooks/webhook-endpoints.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { DeletedOut } from '../../webhooks/endpoint-input.ts';
import { auditAsOperator } from '../admin-audit.ts';

export function deleteWebhookEndpointRoute(actions: Host, ctx: AppContext): void {
  actions.delete(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        body: NoBody,
        response: {
          200: Envelope(DeletedOut, 'Webhook endpoint deleted'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      const now = ctx.clock.now();
      const deleted = await ctx.database.transaction(async (tx) => {
        const done = await deleteWebhookEndpoint(tx, endpoint.id);
        const change = {
          action: 'webhook_endpoint.deleted',
          targetType: 'webhook_endpoint',
          targetId: endpoint.id,
          details: { url: endpoint.url },
        } as const;
        if (done) await auditAsOperator(tx, request, endpoint.organizationId, [change], now);
        return done;
      });
      if (!deleted) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
    },
  );
}
