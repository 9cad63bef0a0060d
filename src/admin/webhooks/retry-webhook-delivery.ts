// POST /webhook-endpoints/:id/deliveries/:delivery_id/retry: sends a delivery again now, with the
// same webhook-id, to an enabled endpoint.
import { assertId, errorResponses, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, notFound, send, type Host } from '../../platform/index.ts';
import {
  attemptsOf,
  disabledConflict,
  findDelivery,
  retryDelivery,
  toDeliveryOut,
  WebhookDeliveryOut,
} from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { DeliveryParams } from './webhook-admin.schema.ts';

export function retryWebhookDeliveryRoute(actions: Host, ctx: AppContext): void {
  const db = ctx.database.db;
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
      assertId(request.params.delivery_id, 'whd', 'delivery');
      const delivery = await findDelivery(db, endpoint, request.params.delivery_id);
      if (!delivery) throw notFound('delivery');
      if (endpoint.status !== 'enabled') throw disabledConflict();
      const queued = await ctx.database.transaction((tx) => retryDelivery(tx, delivery, ctx.clock.now()));
      const attempts = await attemptsOf(db, [queued.id]);
      return send(reply, 202, 'Delivery queued', toDeliveryOut(queued, attempts.get(queued.id) ?? []));
    },
  );
}
