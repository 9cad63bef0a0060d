// GET /webhook-endpoints/:id/deliveries: the delivery log, newest first, each delivery with its
// attempts; a signed cursor pages through it, bound to the endpoint and the status filter.
import { IdParams, errorResponses } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, decodeCursor, encodeCursor, Envelope, envelope, type Host } from '../../platform/index.ts';
import { attemptsOf, listDeliveries, toDeliveryOut, type DeliveryStatus } from '../../webhooks/index.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { DeliveryListOut, DeliveryQuery } from './webhook-admin.schema.ts';

function clampLimit(limit: number | undefined): number {
  return limit === undefined ? 20 : Math.min(50, Math.max(1, limit));
}

export function listWebhookDeliveriesRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
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
}
