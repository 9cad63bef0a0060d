// DELETE /webhook-endpoints/:id: removes the endpoint (an action: no body).
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, refusalError, type Host } from '../../platform/index.ts';
import { DeletedOut, deleteWebhookEndpoint } from '../../webhooks/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, NoBody } from '../admin-schemas.ts';

export function deleteWebhookEndpointRoute(actions: Host, ctx: AppContext): void {
  actions.delete(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        body: NoBody,
        response: {
          200: Envelope(DeletedOut, 'Webhook endpoint deleted'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'whe', 'webhook endpoint');
      const outcome = await deleteWebhookEndpoint(ctx, {
        actor: operatorOf(request),
        endpointId: request.params.id,
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'webhook endpoint');
      const endpoint = outcome.done;
      return envelope(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
    },
  );
}
