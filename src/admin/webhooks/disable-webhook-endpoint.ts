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
import { auditAsOperator } from '../admin-audit.ts';

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
      const row = await ctx.database.transaction(async (tx) => {
        const disabled = await disableWebhookEndpoint(tx, endpoint.id, 'manual', now);
        const change = {
          action: 'webhook_endpoint.disabled',
          targetType: 'webhook_endpoint',
          targetId: endpoint.id,
        } as const;
        if (endpoint.status === 'enabled')
          await auditAsOperator(tx, request, endpoint.organizationId, [change], now);
        return disabled;
      });
      if (!row) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook endpoint disabled', toWebhookEndpointOut(row, now));
    },
  );
}
