// POST /webhook-endpoints/:id/disable: stops deliveries to the endpoint (reason manual).
import { errorResponses, IdParams, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import {
  disableWebhookEndpoint,
  toWebhookEndpointOut,
  WebhookEndpointOut,
} from '../../webhooks/webhook-endpoints.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { auditedAsOperator, changeOf } from '../admin-audit.ts';

export function disableWebhookEndpointRoute(actions: Host, ctx: AppContext): void {
  actions.post(
    '/webhook-endpoints/:id/disable',
    {
      schema: {
        params: IdParams,
        body: NoBody,
        response: {
          200: Envelope(WebhookEndpointOut, 'Webhook endpoint disabled'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      const now = ctx.clock.now();
      const target = { type: 'webhook_endpoint', id: endpoint.id } as const;
      const changes = endpoint.status === 'enabled' ? [changeOf('webhook_endpoint.disabled', target)] : [];
      const row = await auditedAsOperator(
        ctx,
        request,
        { organizationId: endpoint.organizationId, now },
        changes,
        (tx) => disableWebhookEndpoint(tx, endpoint.id, 'manual', now),
      );
      if (!row) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook endpoint disabled', toWebhookEndpointOut(row, now));
    },
  );
}
