// GET /webhook-endpoints/:id/deliveries/:delivery_id: one delivery with its attempts.
import { assertId, errorResponses } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { attemptsOf, findDelivery, toDeliveryOut, WebhookDeliveryOut } from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { DeliveryParams } from './webhook-admin.schema.ts';

export function getWebhookDeliveryRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/webhook-endpoints/:id/deliveries/:delivery_id',
    {
      schema: {
        params: DeliveryParams,
        response: { 200: Envelope(WebhookDeliveryOut, 'Delivery retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      assertId(request.params.delivery_id, 'whd', 'delivery');
      const delivery = await findDelivery(db, endpoint, request.params.delivery_id);
      if (!delivery) throw notFound('delivery');
      const attempts = await attemptsOf(db, [delivery.id]);
      return envelope(200, 'Delivery retrieved', toDeliveryOut(delivery, attempts.get(delivery.id) ?? []));
    },
  );
}
