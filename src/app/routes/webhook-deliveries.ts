// One endpoint's page with its delivery log (newest first, paged by a sealed cursor), and the two
// writes that send right away: POST .../test (a new test event) and POST .../deliveries/:id/retry.
// Both make one attempt in the request and come back to the page saying what the receiver answered.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { can } from '../../members/index.ts';
import { decodeCursor, encodeCursor } from '../../platform/index.ts';
import {
  attemptsOf,
  createTestDelivery,
  findDelivery,
  listDeliveries,
  retryDelivery,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../webhooks/index.ts';
import { PageError } from '../app-access.ts';
import { seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import type { DeliveryLog, SentResult } from '../views/webhook-log.ts';
import { renderEndpoint, type EndpointView } from '../views/webhook-pages.ts';
import { DELIVERY_ID, endpointOf, sendNow } from './webhook-lookup.ts';
import { DeliveryParams, paramsOf, queryOf } from '../app-input.ts';

/** The delivery log's page (`cursor`), a write's notice (`done`) and a test send's result (`sent`). */
const EndpointQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 2000 })),
  done: Type.Optional(Type.String({ maxLength: 100 })),
  sent: Type.Optional(Type.String({ maxLength: 100 })),
});

const PAGE_SIZE = 10;
export const DISABLED_PROBLEM = 'This endpoint is disabled: enable it before sending to it.';

function cursorScope(endpoint: Pick<WebhookEndpointRow, 'organizationId' | 'id'>) {
  return {
    organizationId: endpoint.organizationId,
    resource: `app_webhook_deliveries:${endpoint.id}`,
    filters: {},
  };
}

/**
 * The log page that starts at this delivery, opened on it (the order page links there). Its
 * position is just after the delivery: the id with a character appended sorts right after it.
 */
export function deliveryLogHref(ctx: AppContext, delivery: WebhookDeliveryRow): string {
  const scope = cursorScope({ organizationId: delivery.organizationId, id: delivery.endpointId });
  const cursor = encodeCursor(ctx.keys.cursor, scope, [delivery.createdAt.toISOString(), `${delivery.id}0`]);
  return `/developers/webhooks/${delivery.endpointId}?cursor=${encodeURIComponent(cursor)}#delivery-${delivery.id}`;
}

/** A page of the log; a cursor that does not open for this endpoint shows the newest page. */
async function loadLog(ctx: AppContext, endpoint: WebhookEndpointRow, cursor: string | undefined) {
  const db = ctx.database.db;
  const position = cursor ? decodeCursor(ctx.keys.cursor, cursorScope(endpoint), cursor) : null;
  const after =
    Array.isArray(position) && typeof position[0] === 'string' && typeof position[1] === 'string'
      ? { createdAt: position[0], id: position[1] }
      : undefined;
  const page = await listDeliveries(db, endpoint, { limit: PAGE_SIZE, after });
  const attempts = await attemptsOf(
    db,
    page.rows.map((r) => r.id),
  );
  const last = page.rows.at(-1);
  const log: DeliveryLog = {
    entries: page.rows.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] })),
    nextCursor:
      page.hasMore && last
        ? encodeCursor(ctx.keys.cursor, cursorScope(endpoint), [last.createdAt.toISOString(), last.id])
        : null,
    older: after !== undefined,
  };
  return log;
}

/** What the last attempt of a delivery just sent got back, for the notice at the top. */
export async function sentResult(
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  deliveryId: string | undefined,
): Promise<SentResult | null> {
  if (!deliveryId || !DELIVERY_ID.test(deliveryId)) return null;
  const delivery = await findDelivery(ctx.database.db, endpoint, deliveryId);
  if (!delivery) return null;
  const attempt = (await attemptsOf(ctx.database.db, [delivery.id])).get(delivery.id)?.at(-1) ?? null;
  return { delivery, attempt };
}

export async function sendEndpoint(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: Pick<EndpointView, 'endpoint'> & Partial<Omit<EndpointView, 'viewer' | 'canWrite' | 'log' | 'now'>>,
) {
  const viewer = await viewerOf(ctx, request);
  const query = queryOf(request, EndpointQuery);
  const log = await loadLog(ctx, view.endpoint, query.cursor);
  return sendPage(
    reply,
    status,
    renderEndpoint({
      errors: {},
      notice: null,
      sent: null,
      ...view,
      viewer,
      canWrite: can(viewer.current.role, 'developer_settings'),
      log,
      now: ctx.clock.now(),
    }),
  );
}

export function showEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const query = queryOf(request, EndpointQuery);
    return sendEndpoint(ctx, request, reply, 200, {
      endpoint,
      notice: query.done ?? null,
      sent: await sentResult(ctx, endpoint, query.sent),
    });
  };
}

function disabledAnswer(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint: WebhookEndpointRow,
) {
  return sendEndpoint(ctx, request, reply, 409, { endpoint, problem: DISABLED_PROBLEM });
}

export function sendTestEvent(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    if (endpoint.status !== 'enabled') return disabledAnswer(ctx, request, reply, endpoint);
    const delivery = await ctx.database.transaction((tx) =>
      createTestDelivery(tx, endpoint, ctx.clock.now()),
    );
    await sendNow(ctx, delivery.id);
    return seeOther(reply, `/developers/webhooks/${endpoint.id}?sent=${delivery.id}`);
  };
}

export function retryDeliveryRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const { deliveryId } = paramsOf(request, DeliveryParams);
    const delivery = await findDelivery(ctx.database.db, endpoint, deliveryId);
    if (!delivery) throw new PageError('not_found', 'delivery');
    if (endpoint.status !== 'enabled') return disabledAnswer(ctx, request, reply, endpoint);
    await ctx.database.transaction((tx) => retryDelivery(tx, delivery, ctx.clock.now()));
    await sendNow(ctx, delivery.id);
    return seeOther(reply, `/developers/webhooks/${endpoint.id}?sent=${delivery.id}`);
  };
}
