// PATCH /webhook-endpoints/:id: changes the URL and/or the event types.
import { errorResponses, IdParams } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import {
  toWebhookEndpointOut,
  updateWebhookEndpoint,
  WebhookEndpointOut,
} from '../../webhooks/webhook-endpoints.ts';
import { EndpointPatchIn, eventTypesOr400, urlOr400 } from '../../webhooks/endpoint-input.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { auditAsOperator } from '../admin-audit.ts';

export function updateWebhookEndpointRoute(admin: Host, ctx: AppContext): void {
  admin.patch(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        body: EndpointPatchIn,
        response: {
          200: Envelope(WebhookEndpointOut, 'Webhook endpoint updated'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      const eventTypes = eventTypesOr400(request.body.events);
      const url = await urlOr400(ctx, request.body.url);
      const now = ctx.clock.now();
      const row = await ctx.database.transaction(async (tx) => {
        const updated = await updateWebhookEndpoint(tx, endpoint.id, { url, eventTypes }, now);
        const change = {
          action: 'webhook_endpoint.updated',
          targetType: 'webhook_endpoint',
          targetId: endpoint.id,
          details: {
            ...(url !== undefined && { url }),
            ...(eventTypes !== undefined && { events: eventTypes }),
          },
        } as const;
        if (updated) await auditAsOperator(tx, request, endpoint.organizationId, [change], now);
        return updated;
      });
      if (!row) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook endpoint updated', toWebhookEndpointOut(row, now));
    },
  );
}
