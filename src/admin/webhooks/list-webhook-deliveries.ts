// GET /webhook-endpoints/:id/deliveries: the delivery log, newest first, each delivery with its
// attempts; a signed cursor pages through it, bound to the endpoint and the status filter.
import { IdParams, errorResponses } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { deliveryPage, DeliveryListOut, DeliveryQuery } from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';

export function listWebhookDeliveriesRoute(admin: Host, ctx: AppContext): void {
  admin.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        description: 'Newest first, each with its attempts. Pass next_cursor back unchanged as cursor.',
        params: IdParams,
        querystring: DeliveryQuery,
        response: {
          200: Envelope(DeliveryListOut, 'Deliveries retrieved'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      return envelope(200, 'Deliveries retrieved', await deliveryPage(ctx, endpoint, request.query));
    },
  );
}
