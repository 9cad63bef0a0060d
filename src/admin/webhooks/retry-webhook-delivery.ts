// POST /webhook-endpoints/:id/deliveries/:delivery_id/retry: sends a delivery again now, with the
// same webhook-id, to an enabled endpoint.
import { errorResponses, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, send, type Host } from '../../platform/index.ts';
import { retryEndpointDelivery, WebhookDeliveryOut } from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { DeliveryParams } from './webhook-admin.schema.ts';

export function retryWebhookDeliveryRoute(actions: Host, ctx: AppContext): void {
  actions.post(
    '/webhook-endpoints/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        description: 'Sends the delivery again now, with the same webhook-id.',
        params: DeliveryParams,
        body: NoBody,
        response: {
          202: Envelope(WebhookDeliveryOut, 'Delivery queued'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      const queued = await retryEndpointDelivery(ctx, endpoint, request.params.delivery_id);
      return send(reply, 202, 'Delivery queued', queued);
    },
  );
}
