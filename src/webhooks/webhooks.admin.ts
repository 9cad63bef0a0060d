// Admin routes for webhook endpoints (DESIGN.md section 5), relative to /admin/v1 with the admin
// key already required by the caller's scope: create (the secret is shown once), list, read,
// change URL and event types, disable, enable, rotate the secret, delete, send a test event, and
// the delivery log with replay.
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { assertId, errorResponses, IdParams, NoBody } from '../admin/admin-schemas.ts';
import type { AppContext } from '../context.ts';
import { findOrganization } from '../organizations/organizations.ts';
import { decodeCursor, encodeCursor } from '../platform/cursor.ts';
import { ApiError, notFound, validationError, type FieldError } from '../platform/errors.ts';
import { envelope, send, type Host } from '../platform/http.ts';
import { Envelope, Timestamp } from '../platform/schemas.ts';
import { MAX_URL_LENGTH } from './address-policy.ts';
import {
  attemptsOf,
  createTestDelivery,
  DELIVERY_STATUSES,
  findDelivery,
  listDeliveries,
  retryDelivery,
  toDeliveryOut,
  type DeliveryStatus,
} from './webhook-deliveries.ts';
import {
  checkEndpointUrl,
  checkEventTypes,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  findWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  toWebhookEndpointOut,
  updateWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointRow,
} from './webhook-endpoints.ts';
import { webhookRuntime } from './webhook-runtime.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const UrlIn = Type.String({
  maxLength: MAX_URL_LENGTH,
  description: 'https URL of the receiver (http and private addresses only with WEBHOOK_ALLOW_PRIVATE_URLS)',
});
const EventsIn = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: 20,
  description: `Event types to receive; any of: ${WEBHOOK_EVENT_TYPES.join(', ')}. Default: order.paid`,
});

const EndpointCreateIn = Type.Object(
  { url: UrlIn, events: Type.Optional(EventsIn) },
  { additionalProperties: false },
);
const EndpointPatchIn = Type.Object(
  { url: Type.Optional(UrlIn), events: Type.Optional(EventsIn) },
  { additionalProperties: false },
);

const endpointFields = {
  id: Type.String(),
  organization_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Enum(['enabled', 'disabled']),
  disabled_reason: Type.Union([Type.Enum(['manual', 'gone', 'failing']), Type.Null()], {
    description:
      'manual: disabled through the API; gone: the receiver answered 410; failing: every attempt failed for 5 days',
  }),
  disabled_at: Nullable(Timestamp),
  failing_since: Nullable(Timestamp),
  secret_rotated_at: Nullable(Timestamp),
  previous_secret_expires_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** Never carries a secret. */
const EndpointOut = Type.Object(endpointFields);
const EndpointCreatedOut = Type.Object({
  ...endpointFields,
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
});
const SecretOut = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
  previous_secret_expires_at: Timestamp,
});
const DeletedOut = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

const AttemptOut = Type.Object({
  attempted_at: Timestamp,
  status: Nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(Type.String()),
});
const DeliveryOut = Type.Object({
  id: Type.String(),
  endpoint_id: Type.String(),
  webhook_id: Type.String({ description: 'msg_...: the webhook-id header, the same on every attempt' }),
  event_type: Type.String(),
  status: Type.Enum(DELIVERY_STATUSES),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(Timestamp),
  last_attempt_at: Nullable(Timestamp),
  last_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  delivered_at: Nullable(Timestamp),
  created_at: Timestamp,
  attempts: Type.Array(AttemptOut),
});
const DeliveryListOut = Type.Object({
  deliveries: Type.Array(DeliveryOut),
  next_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
});

const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });
const DeliveryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ description: '1 to 50 (clamped); default 20' })),
  cursor: Type.Optional(Type.String()),
  status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
});

function eventTypesOr400(events: string[] | undefined): string[] | undefined {
  if (events === undefined) return undefined;
  const { types, problems } = checkEventTypes(events);
  if (problems.length > 0) {
    throw validationError(
      problems.map(({ index }) => ({
        field: `events[${index}]`,
        message: `is not an event type; use any of: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      })),
    );
  }
  return types;
}

async function urlOr400(ctx: AppContext, raw: string | undefined): Promise<string | undefined> {
  if (raw === undefined) return undefined;
  const checked = await checkEndpointUrl(webhookRuntime(ctx), raw);
  if (!checked.ok) {
    const errors: FieldError[] = [{ field: 'url', message: checked.message }];
    throw validationError(errors, `url ${checked.message}`);
  }
  return checked.url;
}

async function endpointOr404(ctx: AppContext, id: string): Promise<WebhookEndpointRow> {
  assertId(id, 'whe', 'webhook endpoint');
  const endpoint = await findWebhookEndpoint(ctx.database.db, id);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

function disabledConflict(): ApiError {
  return new ApiError('conflict', 'This webhook endpoint is disabled; enable it first.');
}

function clampLimit(limit: number | undefined): number {
  return limit === undefined ? 20 : Math.min(50, Math.max(1, limit));
}

export async function registerWebhookAdminRoutes(admin: Host, ctx: AppContext) {
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
      const { endpoint, secret } = await createWebhookEndpoint(db, {
        organizationId: org.id,
        url,
        eventTypes,
        now,
      });
      return send(reply, 201, 'Webhook endpoint created', { ...toWebhookEndpointOut(endpoint, now), secret });
    },
  );

  admin.get(
    '/organizations/:id/webhook-endpoints',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(
            Type.Object({ webhook_endpoints: Type.Array(EndpointOut) }),
            'Webhook endpoints retrieved',
          ),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const now = ctx.clock.now();
      const rows = await listWebhookEndpoints(db, org.id);
      return envelope(200, 'Webhook endpoints retrieved', {
        webhook_endpoints: rows.map((row) => toWebhookEndpointOut(row, now)),
      });
    },
  );

  admin.get(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        response: { 200: Envelope(EndpointOut, 'Webhook endpoint retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      return envelope(200, 'Webhook endpoint retrieved', toWebhookEndpointOut(endpoint, ctx.clock.now()));
    },
  );

  admin.patch(
    '/webhook-endpoints/:id',
    {
      schema: {
        params: IdParams,
        body: EndpointPatchIn,
        response: {
          200: Envelope(EndpointOut, 'Webhook endpoint updated'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      const eventTypes = eventTypesOr400(request.body.events);
      const url = await urlOr400(ctx, request.body.url);
      const now = ctx.clock.now();
      const row = await updateWebhookEndpoint(db, endpoint.id, { url, eventTypes }, now);
      if (!row) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook endpoint updated', toWebhookEndpointOut(row, now));
    },
  );

  admin.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        description: 'Newest first, each with its attempts. Pass next_cursor back unchanged as cursor.',
        params: IdParams,
        querystring: DeliveryQuery,
        response: {
          200: Envelope(DeliveryListOut, 'Deliveries retrieved'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      const status = request.query.status as DeliveryStatus | undefined;
      const scope = {
        organizationId: endpoint.organizationId,
        resource: `webhook_deliveries:${endpoint.id}`,
        filters: { status },
      };
      let after: { createdAt: string; id: string } | undefined;
      if (request.query.cursor !== undefined) {
        const position = decodeCursor(ctx.keys.cursor, scope, request.query.cursor);
        if (!Array.isArray(position) || typeof position[0] !== 'string' || typeof position[1] !== 'string') {
          throw new ApiError(
            'validation_failed',
            'The cursor is malformed or was not issued for this list and filters.',
            {
              errors: [
                { field: 'cursor', message: 'is not a cursor issued for this list and these filters' },
              ],
            },
          );
        }
        after = { createdAt: position[0], id: position[1] };
      }
      const page = await listDeliveries(db, endpoint, {
        limit: clampLimit(request.query.limit),
        after,
        status,
      });
      const attempts = await attemptsOf(
        db,
        page.rows.map((r) => r.id),
      );
      const last = page.rows.at(-1);
      return envelope(200, 'Deliveries retrieved', {
        deliveries: page.rows.map((row) => toDeliveryOut(row, attempts.get(row.id) ?? [])),
        next_cursor:
          page.hasMore && last
            ? encodeCursor(ctx.keys.cursor, scope, [last.createdAt.toISOString(), last.id])
            : null,
        has_more: page.hasMore,
      });
    },
  );

  admin.get(
    '/webhook-endpoints/:id/deliveries/:delivery_id',
    {
      schema: {
        params: DeliveryParams,
        response: { 200: Envelope(DeliveryOut, 'Delivery retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const endpoint = await endpointOr404(ctx, request.params.id);
      assertId(request.params.delivery_id, 'whd', 'delivery');
      const delivery = await findDelivery(db, endpoint, request.params.delivery_id);
      if (!delivery) throw notFound('delivery');
      const attempts = await attemptsOf(db, [delivery.id]);
      return envelope(200, 'Delivery retrieved', toDeliveryOut(delivery, attempts.get(delivery.id) ?? []));
    },
  );

  // Actions take no body: absent, empty, or {} (even with a JSON content type).
  await admin.register(async (scope) => {
    const actions = scope.withTypeProvider<TypeBoxTypeProvider>();
    const jsonParser = actions.getDefaultJsonParser('error', 'error');
    actions.removeContentTypeParser('application/json');
    actions.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (typeof body === 'string' && body.trim() === '') return done(null, {});
      jsonParser(request, body as string, done);
    });
    actions.addHook('preValidation', async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    });

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
        const endpoint = await endpointOr404(ctx, request.params.id);
        if (!(await deleteWebhookEndpoint(db, endpoint.id))) throw notFound('webhook endpoint');
        return envelope(200, 'Webhook endpoint deleted', { id: endpoint.id, deleted: true });
      },
    );

    actions.post(
      '/webhook-endpoints/:id/disable',
      {
        schema: {
          params: IdParams,
          body: NoBody,
          response: {
            200: Envelope(EndpointOut, 'Webhook endpoint disabled'),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request) => {
        const endpoint = await endpointOr404(ctx, request.params.id);
        const now = ctx.clock.now();
        const row = await db.transaction((tx) => disableWebhookEndpoint(tx, endpoint.id, 'manual', now));
        if (!row) throw notFound('webhook endpoint');
        return envelope(200, 'Webhook endpoint disabled', toWebhookEndpointOut(row, now));
      },
    );

    actions.post(
      '/webhook-endpoints/:id/enable',
      {
        schema: {
          params: IdParams,
          body: NoBody,
          response: {
            200: Envelope(EndpointOut, 'Webhook endpoint enabled'),
            ...errorResponses(400, 401, 404),
          },
        },
      },
      async (request) => {
        const endpoint = await endpointOr404(ctx, request.params.id);
        const now = ctx.clock.now();
        const row = await enableWebhookEndpoint(db, endpoint.id, now);
        if (!row) throw notFound('webhook endpoint');
        return envelope(200, 'Webhook endpoint enabled', toWebhookEndpointOut(row, now));
      },
    );

    actions.post(
      '/webhook-endpoints/:id/rotate-secret',
      {
        schema: {
          params: IdParams,
          body: NoBody,
          response: { 200: Envelope(SecretOut, 'Webhook secret rotated'), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const endpoint = await endpointOr404(ctx, request.params.id);
        const rotated = await rotateWebhookSecret(db, endpoint.id, ctx.clock.now());
        if (!rotated) throw notFound('webhook endpoint');
        return envelope(200, 'Webhook secret rotated', {
          id: rotated.endpoint.id,
          secret: rotated.secret,
          previous_secret_expires_at: rotated.endpoint.previousSecretExpiresAt!.toISOString(),
        });
      },
    );

    actions.post(
      '/webhook-endpoints/:id/test',
      {
        schema: {
          description: 'Queues a signed `test` event for this endpoint; follow it in the delivery log.',
          params: IdParams,
          body: NoBody,
          response: {
            202: Envelope(DeliveryOut, 'Test event queued'),
            ...errorResponses(400, 401, 404, 409),
          },
        },
      },
      async (request, reply) => {
        const endpoint = await endpointOr404(ctx, request.params.id);
        if (endpoint.status !== 'enabled') throw disabledConflict();
        const delivery = await db.transaction((tx) => createTestDelivery(tx, endpoint, ctx.clock.now()));
        return send(reply, 202, 'Test event queued', toDeliveryOut(delivery, []));
      },
    );

    actions.post(
      '/webhook-endpoints/:id/deliveries/:delivery_id/retry',
      {
        schema: {
          description: 'Sends the delivery again now, with the same webhook-id.',
          params: DeliveryParams,
          body: NoBody,
          response: { 202: Envelope(DeliveryOut, 'Delivery queued'), ...errorResponses(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const endpoint = await endpointOr404(ctx, request.params.id);
        assertId(request.params.delivery_id, 'whd', 'delivery');
        const delivery = await findDelivery(db, endpoint, request.params.delivery_id);
        if (!delivery) throw notFound('delivery');
        if (endpoint.status !== 'enabled') throw disabledConflict();
        const queued = await db.transaction((tx) => retryDelivery(tx, delivery, ctx.clock.now()));
        const attempts = await attemptsOf(db, [queued.id]);
        return send(reply, 202, 'Delivery queued', toDeliveryOut(queued, attempts.get(queued.id) ?? []));
      },
    );
  });
}
