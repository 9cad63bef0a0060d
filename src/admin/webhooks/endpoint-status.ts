// POST /webhook-endpoints/:id/disable stops deliveries to the endpoint (reason manual);
// POST /webhook-endpoints/:id/enable resumes them. One route each, alike but for the status.
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import {
  endpointRefusalError,
  toWebhookEndpointOut,
  updateWebhookEndpoint,
  WebhookEndpointOut,
} from '../../webhooks/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, NoBody } from '../admin-schemas.ts';

const STATUS_ROUTES = [
  { path: 'disable', status: 'disabled', message: 'Webhook endpoint disabled' },
  { path: 'enable', status: 'enabled', message: 'Webhook endpoint enabled' },
] as const;

export function webhookEndpointStatusRoutes(actions: Host, ctx: AppContext): void {
  for (const { path, status, message } of STATUS_ROUTES) {
    actions.post(
      `/webhook-endpoints/:id/${path}`,
      {
        schema: {
          params: IdParams,
          body: NoBody,
          response: { 200: Envelope(WebhookEndpointOut, message), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        assertId(request.params.id, 'whe', 'webhook endpoint');
        const outcome = await updateWebhookEndpoint(ctx, {
          actor: operatorOf(request),
          endpointId: request.params.id,
          status,
        });
        if (!('done' in outcome)) throw endpointRefusalError(outcome);
        return envelope(200, message, toWebhookEndpointOut(outcome.done, ctx.clock.now()));
      },
    );
  }
}
