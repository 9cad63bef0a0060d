// The partner webhook API (docs/decisions/partner-webhook-endpoints.md): a partner registers and
// manages its own organization's receivers with a bearer token holding webhooks:write. List, create
// (the secret is shown once), read, change URL, event types or status, delete, send a test event.
// Another organization's endpoint is the same 404 as a missing one. Each change is in the
// organization's audit log, by the API client that made it.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { recordAudit, type AuditAction } from '../audit/audit-log.ts';
import { guard } from '../auth/authenticate.ts';
import type { AppContext } from '../context.ts';
import type { Executor } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import { envelope, send, type Host } from '../platform/http.ts';
import { Envelope, errorResponses } from '../platform/schemas.ts';
import {
  DeletedOut,
  disabledConflict,
  EndpointCreatedOut,
  EndpointCreateIn,
  EndpointPatchIn,
  eventTypesOr400,
  urlOr400,
} from './endpoint-input.ts';
import { createTestDelivery, toDeliveryOut, WebhookDeliveryOut } from './webhook-deliveries.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  findWebhookEndpoint,
  listWebhookEndpoints,
  toWebhookEndpointOut,
  updateWebhookEndpoint,
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
  const { endpointId } = request.params as { endpointId: string };
  const endpoint = ENDPOINT_ID.test(endpointId)
    ? await findWebhookEndpoint(ctx.database.db, endpointId)
    : undefined;
  if (!endpoint || endpoint.organizationId !== request.auth!.organizationId) {
    throw notFound('webhook endpoint');
  }
  return endpoint;
}

function audit(
  db: Executor,
  request: FastifyRequest,
  endpointId: string,
  action: AuditAction,
  details: Record<string, unknown>,
  now: Date,
) {
  const auth = request.auth!;
  const actor = { memberId: null, label: `API client ${auth.clientId}`, ip: request.ip };
  const entry = { organizationId: auth.organizationId, actor, action, details };
  return recordAudit(db, { ...entry, targetType: 'webhook_endpoint', targetId: endpointId }, now);
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
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const organizationId = request.auth!.organizationId;
      const eventTypes = eventTypesOr400(request.body.events) ?? ['order.paid'];
      const url = (await urlOr400(ctx, request.body.url))!;
      const now = ctx.clock.now();
      const { endpoint, secret } = await ctx.database.transaction(async (tx) => {
        const created = await createWebhookEndpoint(tx, { organizationId, url, eventTypes, now });
        const details = { url, events: eventTypes };
        await audit(tx, request, created.endpoint.id, 'webhook_endpoint.created', details, now);
        return created;
      });
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
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOf(ctx, request);
      const eventTypes = eventTypesOr400(request.body.events);
      const url = await urlOr400(ctx, request.body.url);
      const { status } = request.body;
      const now = ctx.clock.now();
      const row = await ctx.database.transaction(async (tx) => {
        if (url !== undefined || eventTypes !== undefined) {
          await updateWebhookEndpoint(tx, endpoint.id, { url, eventTypes }, now);
          const details = {
            ...(url !== undefined && { url }),
            ...(eventTypes !== undefined && { events: eventTypes }),
          };
          await audit(tx, request, endpoint.id, 'webhook_endpoint.updated', details, now);
        }
        if (status === 'disabled' && endpoint.status === 'enabled') {
          await disableWebhookEndpoint(tx, endpoint.id, 'manual', now);
          await audit(tx, request, endpoint.id, 'webhook_endpoint.disabled', { reason: 'manual' }, now);
        } else if (status === 'enabled' && endpoint.status === 'disabled') {
          await enableWebhookEndpoint(tx, endpoint.id, now);
          const details = { previous_reason: endpoint.disabledReason };
          await audit(tx, request, endpoint.id, 'webhook_endpoint.enabled', details, now);
        }
        return findWebhookEndpoint(tx, endpoint.id);
      });
      if (!row) throw notFound('webhook endpoint');
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
      const endpoint = await endpointOf(ctx, request);
      const now = ctx.clock.now();
      const deleted = await ctx.database.transaction(async (tx) => {
        const done = await deleteWebhookEndpoint(tx, endpoint.id);
        if (done)
          await audit(tx, request, endpoint.id, 'webhook_endpoint.deleted', { url: endpoint.url }, now);
        return done;
      });
      if (!deleted) throw notFound('webhook endpoint');
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
}
