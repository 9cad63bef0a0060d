// POST /organizations/:id/webhook-endpoints: registers a receiver URL for some event types (default
// order.paid); the answer carries the signing secret, shown this once.
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/organizations.ts';
import { notFound } from '../../platform/errors.ts';
import { send, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { createWebhookEndpoint, toWebhookEndpointOut } from '../../webhooks/webhook-endpoints.ts';
import {
  EndpointCreatedOut,
  EndpointCreateIn,
  eventTypesOr400,
  urlOr400,
} from '../../webhooks/endpoint-input.ts';
import { auditAsOperator } from '../admin-audit.ts';

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
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const eventTypes = eventTypesOr400(request.body.events) ?? ['order.paid'];
      const url = (await urlOr400(ctx, request.body.url))!;
      const now = ctx.clock.now();
      const { endpoint, secret } = await ctx.database.transaction(async (tx) => {
        const created = await createWebhookEndpoint(tx, { organizationId: org.id, url, eventTypes, now });
        const change = {
          action: 'webhook_endpoint.created',
          targetType: 'webhook_endpoint',
          targetId: created.endpoint.id,
          details: { url, events: eventTypes },
        } as const;
        await auditAsOperator(tx, request, org.id, [change], now);
        return created;
      });
      return send(reply, 201, 'Webhook endpoint created', { ...toWebhookEndpointOut(endpoint, now), secret });
    },
  );
}
