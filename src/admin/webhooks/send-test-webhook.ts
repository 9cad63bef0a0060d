// POST /webhook-endpoints/:id/test: queues a signed `test` event for an enabled endpoint.
import { errorResponses, IdParams, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, send, type Host } from '../../platform/index.ts';
import {
  createTestDelivery,
  disabledConflict,
  toDeliveryOut,
  WebhookDeliveryOut,
} from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';

export function sendTestWebhookRoute(actions: Host, ctx: AppContext): void {
  actions.post(
    '/webhook-endpoints/:id/test',
    {
      schema: {
        description: 'Queues a signed `test` event for this endpoint; follow it in the delivery log.',
        params: IdParams,
        body: NoBody,
        response: {
          202: Envelope(WebhookDeliveryOut, 'Test event queued'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      if (endpoint.status !== 'enabled') throw disabledConflict();
      const delivery = await ctx.database.transaction((tx) =>
        createTestDelivery(tx, endpoint, ctx.clock.now()),
      );
      return send(reply, 202, 'Test event queued', toDeliveryOut(delivery, []));
    },
  );
}
