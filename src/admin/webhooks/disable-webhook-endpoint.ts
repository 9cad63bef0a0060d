// POST /webhook-endpoints/:id/disable: stops deliveries to the endpoint (reason manual).
import type { AppContext } from '../../context.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { refusalError } from '../../platform/outcome.ts';
import { Envelope } from '../../platform/schemas.ts';
import { updateWebhookEndpoint } from '../../webhooks/actions/update-webhook-endpoint.ts';
import { toWebhookEndpointOut, WebhookEndpointOut } from '../../webhooks/webhook-endpoints.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, NoBody } from '../admin-schemas.ts';

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
      assertId(request.params.id, 'whe', 'webhook endpoint');
      const outcome = await updateWebhookEndpoint(ctx, {
        actor: operatorOf(request),
        endpointId: request.params.id,
        status: 'disabled',
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'webhook endpoint');
      return envelope(200, 'Webhook endpoint disabled', toWebhookEndpointOut(outcome.done, ctx.clock.now()));
    },
  );
}
