// The partner webhook API (docs/decisions/partner-webhook-endpoints.md): a partner registers and
// manages its own organization's receivers with a bearer token holding webhooks:write. List, create
// (the secret is shown once), read, change URL, event types or status, delete, send a test event,
// read the delivery log and send a delivery again.
// Another organization's endpoint is the same 404 as a missing one. Each change is in the
// organization's audit log, by the API client that made it.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ActingOn } from '../audit/index.ts';
import { guard } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import {
  Envelope,
  envelope,
  errorResponses,
  notFound,
  refusalError,
  send,
  type Host,
} from '../platform/index.ts';
import { createWebhookEndpoint } from './actions/create-webhook-endpoint.ts';
import { endpointRefusalError } from './actions/endpoint-checks.ts';
import { deleteWebhookEndpoint } from './actions/delete-webhook-endpoint.ts';
import { updateWebhookEndpoint } from './actions/update-webhook-endpoint.ts';
import {
  DeletedOut,
  disabledConflict,
  EndpointCreatedOut,
  EndpointCreateIn,
  EndpointPatchIn,
} from './endpoint-input.ts';
import { deliveryPage, DeliveryListOut, DeliveryQuery, retryEndpointDelivery } from './delivery-log.ts';
import { createTestDelivery, toDeliveryOut, WebhookDeliveryOut } from './webhook-deliveries.ts';
import {
  findWebhookEndpoint,
  listWebhookEndpoints,
  toWebhookEndpointOut,
  WebhookEndpointOut,
  type WebhookEndpointRow,
} from './webhook-endpoints.ts';

const TAG = 'Webhook endpoints';
const ENDPOINT_ID = /^whe_[A-Za-z0-9]{8,64}$/;
const Params = Type.Object({ endpointId: Type.String() });
const PatchIn = Type.Object(
  {
    ...EndpointPatchIn.properties,
    status: Type.Optional(
      Type.Enum(['enabled', 'disabled'], {
        description: 'disabled stops sending and cancels pending deliveries; enabled starts again',
      }),
    ),
  },
  { additionalProperties: false },
);
const ListOut = Type.Object({ webhook_endpoints: Type.Array(WebhookEndpointOut) });

/** The endpoint named in the path, if it belongs to the caller's organization. */
async function endpointOf(ctx: AppContext, request: FastifyRequest): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(ctx.database.db, endpointIdOf(request));
  if (!endpoint || endpoint.organizationId !== request.auth!.organizationId) {
    throw notFound('webhook endpoint');
  }
  return endpoint;
}

/** The API client as the actor of its organization's changes. */
function clientActing(request: FastifyRequest): ActingOn & { organizationId: string } {
  const auth = request.auth!;
  return {
    actor: { memberId: null, label: `API client ${auth.clientId}`, ip: request.ip },
    organizationId: auth.organizationId,
  };
}

/** The endpoint id of the path, or 404 before any query when it cannot be one. */
function endpointIdOf(request: FastifyRequest): string {
  const { endpointId } = request.params as { endpointId: string };
  if (!ENDPOINT_ID.test(endpointId)) throw notFound('webhook endpoint');
  return endpointId;
}

export async function registerWebhookRoutes(app: Host, ctx: AppContext) {
  const security = [{ bearer: [] as string[] }];
  const access = guard(ctx, { scope: 'webhooks:write' });

  app.get(
    '/v1/webhook-endpoints',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: "List your organization's webhook endpoints",
        description: 'Oldest first. Secrets are never shown after creation or rotation.',
        security,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Envelope(ListOut, 'Webhook endpoints retrieved'),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const rows = await listWebhookEndpoints(ctx.database.db, request.auth!.organizationId);
      const now = ctx.clock.now();
      return envelope(200, 'Webhook endpoints retrieved', {
        webhook_endpoints: rows.map((row) => toWebhookEndpointOut(row, now)),
      });
    },
  );

  app.post(
    '/v1/webhook-endpoints',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Register a webhook endpoint',
        description:
          'The answer carries the signing secret (whsec_...), shown this once: store it and verify each delivery with it (Standard Webhooks).',
        security,
        body: EndpointCreateIn,
        response: {
          201: Envelope(EndpointCreatedOut, 'Webhook endpoint created', 201),
          ...errorResponses(400, 401, 403, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const outcome = await createWebhookEndpoint(ctx, {
        ...clientActing(request),
        url: request.body.url,
        events: request.body.events,
      });
      if (!('done' in outcome)) throw endpointRefusalError(outcome);
      const { endpoint, secret } = outcome.done;
      const now = ctx.clock.now();
      return send(reply, 201, 'Webhook endpoint created', { ...toWebhookEndpointOut(endpoint, now), secret });
    },
  );

  app.get(
    '/v1/webhook-endpoints/:endpointId',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Get a webhook endpoint',
        security,
        params: Params,
        response: {
          200: Envelope(WebhookEndpointOut, 'Webhook endpoint retrieved'),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOf(ctx, request);
      return envelope(200, 'Webhook endpoint retrieved', toWebhookEndpointOut(endpoint, ctx.clock.now()));
    },
  );

  app.patch(
    '/v1/webhook-endpoints/:endpointId',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Change a webhook endpoint',
        description:
          'Any of url, events and status; the fields left out keep their values (events has no default here: it is order.paid only at creation).',
        security,
        params: Params,
        body: PatchIn,
        response: {
          200: Envelope(WebhookEndpointOut, 'Webhook endpoint updated'),
          ...errorResponses(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request) => {
      const outcome = await updateWebhookEndpoint(ctx, {
        ...clientActing(request),
        endpointId: endpointIdOf(request),
        ...request.body,
      });
      if (!('done' in outcome)) throw endpointRefusalError(outcome);
      const row = outcome.done;
      const now = ctx.clock.now();
      return envelope(200, 'Webhook endpoint updated', toWebhookEndpointOut(row, now));
    },
  );

  app.delete(
    '/v1/webhook-endpoints/:endpointId',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Delete a webhook endpoint',
        description: 'Deletes it with its delivery log; nothing more is sent to it.',
        security,
        params: Params,
        response: {
          200: Envelope(DeletedOut, 'Webhook endpoint deleted'),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const outcome = await deleteWebhookEndpoint(ctx, {
        ...clientActing(request),
        endpointId: endpointIdOf(request),
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'webhook endpoint');
      const endpoint = outcome.done;
      return envelope(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
    },
  );

  app.post(
    '/v1/webhook-endpoints/:endpointId/test',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Send a test event',
        description:
          'Queues a signed `test` event (data: {endpoint_id, message}) for this endpoint, whatever events it subscribes to; it is sent within seconds, with the usual retries.',
        security,
        params: Params,
        response: {
          202: Envelope(WebhookDeliveryOut, 'Test event queued', 202),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await endpointOf(ctx, request);
      if (endpoint.status !== 'enabled') throw disabledConflict();
      const delivery = await ctx.database.transaction((tx) =>
        createTestDelivery(tx, endpoint, ctx.clock.now()),
      );
      return send(reply, 202, 'Test event queued', toDeliveryOut(delivery, []));
    },
  );

  app.get(
    '/v1/webhook-endpoints/:endpointId/deliveries',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: "List an endpoint's deliveries",
        description:
          'Newest first, each with its attempts (HTTP status, latency, the start of the reply). Pass next_cursor back unchanged as cursor, with the same status filter.',
        security,
        params: Params,
        querystring: DeliveryQuery,
        response: {
          200: Envelope(DeliveryListOut, 'Deliveries retrieved'),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOf(ctx, request);
      return envelope(200, 'Deliveries retrieved', await deliveryPage(ctx, endpoint, request.query));
    },
  );

  app.post(
    '/v1/webhook-endpoints/:endpointId/deliveries/:deliveryId/retry',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Send a delivery again',
        description:
          'Queues the delivery to be sent now, with the same webhook-id (receivers that record webhook-ids see it as the same event); the endpoint must be enabled.',
        security,
        params: Type.Object({ endpointId: Type.String(), deliveryId: Type.String() }),
        response: {
          202: Envelope(WebhookDeliveryOut, 'Delivery queued', 202),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await endpointOf(ctx, request);
      const queued = await retryEndpointDelivery(ctx, endpoint, request.params.deliveryId);
      return send(reply, 202, 'Delivery queued', queued);
    },
  );
}
