// An endpoint's delivery log as the admin API and the partner API both read it: newest first,
// each delivery with its attempts, paged by a signed cursor bound to the endpoint and the status
// filter; and a delivery sent again now, with the same webhook-id.
import { Type, type Static } from 'typebox';
import type { AppContext } from '../context.ts';
import { ApiError, decodeCursor, encodeCursor, notFound } from '../platform/index.ts';
import { disabledConflict } from './endpoint-input.ts';
import {
  attemptsOf,
  DELIVERY_STATUSES,
  findDelivery,
  listDeliveries,
  retryDelivery,
  toDeliveryOut,
  WebhookDeliveryOut,
  type DeliveryStatus,
} from './webhook-deliveries.ts';
import type { WebhookEndpointRow } from './webhook-endpoints.ts';

const DELIVERY_ID = /^whd_[A-Za-z0-9]{8,64}$/;

export const DeliveryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ description: '1 to 50 (clamped); default 20' })),
    cursor: Type.Optional(Type.String()),
    status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
  },
  { additionalProperties: false },
);
export type DeliveryQuery = Static<typeof DeliveryQuery>;

export const DeliveryListOut = Type.Object({
  deliveries: Type.Array(WebhookDeliveryOut),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});
export type DeliveryListOut = Static<typeof DeliveryListOut>;

function clampLimit(limit: number | undefined): number {
  return limit === undefined ? 20 : Math.min(50, Math.max(1, limit));
}

function badCursor(): ApiError {
  return new ApiError(
    'validation_failed',
    'The cursor is malformed or was not issued for this list and filters.',
    {
      errors: [{ field: 'cursor', message: 'is not a cursor issued for this list and these filters' }],
    },
  );
}

/** One page of the endpoint's deliveries. */
export async function deliveryPage(
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  query: DeliveryQuery,
): Promise<DeliveryListOut> {
  const db = ctx.database.db;
  const status = query.status as DeliveryStatus | undefined;
  const scope = {
    organizationId: endpoint.organizationId,
    resource: `webhook_deliveries:${endpoint.id}`,
    filters: { status },
  };
  let after: { createdAt: string; id: string } | undefined;
  if (query.cursor !== undefined) {
    const position = decodeCursor(ctx.keys.cursor, scope, query.cursor);
    if (!Array.isArray(position) || typeof position[0] !== 'string' || typeof position[1] !== 'string') {
      throw badCursor();
    }
    after = { createdAt: position[0], id: position[1] };
  }
  const page = await listDeliveries(db, endpoint, { limit: clampLimit(query.limit), after, status });
  const attempts = await attemptsOf(
    db,
    page.rows.map((r) => r.id),
  );
  const last = page.rows.at(-1);
  return {
    deliveries: page.rows.map((row) => toDeliveryOut(row, attempts.get(row.id) ?? [])),
    next_cursor:
      page.hasMore && last
        ? encodeCursor(ctx.keys.cursor, scope, [last.createdAt.toISOString(), last.id])
        : null,
    has_more: page.hasMore,
  };
}

/** Queues the endpoint's delivery `deliveryId` to be sent now; 404 when it is not the endpoint's, 409 when the endpoint is disabled. */
export async function retryEndpointDelivery(
  ctx: AppContext,
  endpoint: WebhookEndpointRow,
  deliveryId: string,
): Promise<WebhookDeliveryOut> {
  if (!DELIVERY_ID.test(deliveryId)) throw notFound('delivery');
  const delivery = await findDelivery(ctx.database.db, endpoint, deliveryId);
  if (!delivery) throw notFound('delivery');
  if (endpoint.status !== 'enabled') throw disabledConflict();
  const queued = await ctx.database.transaction((tx) => retryDelivery(tx, delivery, ctx.clock.now()));
  const attempts = await attemptsOf(ctx.database.db, [queued.id]);
  return toDeliveryOut(queued, attempts.get(queued.id) ?? []);
}
