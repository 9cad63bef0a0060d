// DELETE /webhook-endpoints/:id: removes the endpoint (an action: no body).
import { errorResponses, IdParams, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { deleteWebhookEndpoint } from '../../webhooks/webhook-endpoints.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { DeletedOut } from '../../webhooks/endpoint-input.ts';
import { auditedAsOperator, changeOf } from '../admin-audit.ts';

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
      const at = { organizationId: endpoint.organizationId, now: ctx.clock.now() };
      const target = { type: 'webhook_endpoint', id: endpoint.id } as const;
      const change = changeOf('webhook_endpoint.deleted', target, { url: endpoint.url });
      const deleted = await auditedAsOperator(ctx, request, at, [change], (tx) =>
        deleteWebhookEndpoint(tx, endpoint.id),
      );
      if (!deleted) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
    },
  );
}
