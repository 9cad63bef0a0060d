// POST /organizations/:id/webhook-endpoints: registers a receiver URL for some event types (default
// order.paid); the answer carries the signing secret, shown this once.
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, notFound, send, type Host } from '../../platform/index.ts';
import {
  createWebhookEndpoint,
  endpointRefusalError,
  EndpointCreatedOut,
  EndpointCreateIn,
  toWebhookEndpointOut,
} from '../../webhooks/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';

export function createWebhookEndpointRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.post(
    '/organizations/:id/webhook-endpoints',
    {
      schema: {
        params: IdParams,
        body: EndpointCreateIn,
        response: {
          201: Envelope(EndpointCreatedOut, 'Webhook endpoint created'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const outcome = await createWebhookEndpoint(ctx, {
        actor: operatorOf(request),
        organizationId: org.id,
        url: request.body.url,
        events: request.body.events,
      });
      if (!('done' in outcome)) throw endpointRefusalError(outcome, 'organization');
      const { endpoint, secret } = outcome.done;
      const now = ctx.clock.now();
      return send(reply, 201, 'Webhook endpoint created', { ...toWebhookEndpointOut(endpoint, now), secret });
    },
  );
}
