// PATCH /webhook-endpoints/:id: changes the URL and/or the event types.
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import {
  EndpointPatchIn,
  endpointRefusalError,
  toWebhookEndpointOut,
  updateWebhookEndpoint,
  WebhookEndpointOut,
} from '../../webhooks/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';

export function updateWebhookEndpointRoute(admin: Host, ctx: AppContext): void {
  admin.patch(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        body: EndpointPatchIn,
        response: {
          200: Envelope(WebhookEndpointOut, 'Webhook endpoint updated'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'whe', 'webhook endpoint');
      const outcome = await updateWebhookEndpoint(ctx, {
        actor: operatorOf(request),
        endpointId: request.params.id,
        ...request.body,
      });
      if (!('done' in outcome)) throw endpointRefusalError(outcome);
      const now = ctx.clock.now();
      return envelope(200, 'Webhook endpoint updated', toWebhookEndpointOut(outcome.done, now));
    },
  );
}
