// GET /webhook-endpoints/:id: one endpoint, without its secret.
import { errorResponses, IdParams } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { toWebhookEndpointOut, WebhookEndpointOut } from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';

export function getWebhookEndpointRoute(admin: Host, ctx: AppContext): void {
  admin.get(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(WebhookEndpointOut, 'Webhook endpoint retrieved'),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      return envelope(200, 'Webhook endpoint retrieved', toWebhookEndpointOut(endpoint, ctx.clock.now()));
    },
  );
}
