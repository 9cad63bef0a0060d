// GET /v1/events and GET /v1/events/{eventId}: bearer token or publishable key, scope events:read.
import { Type } from 'typebox';
import { guard } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import {
  ApiError,
  decodeCursor,
  encodeCursor,
  Envelope,
  envelope,
  errorResponses,
  notFound,
  sendSerialized,
  type Host,
} from '../platform/index.ts';
import { EventDetailOut, EventListItemOut, toEventDetail, toEventListItem } from './event-out.ts';
import { EventPageCache } from './event-page-cache.ts';
import { type EventPageKey, findEventOnSale, listEventsOnSale } from './events-on-sale.ts';

const ListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        description: 'Page size, 1 to 50 (larger is clamped to 50, smaller to 1). Default 20.',
      }),
    ),
    cursor: Type.Optional(Type.String({ description: 'next_cursor from the previous page, unchanged' })),
  },
  { additionalProperties: false },
);

const EventListOut = Type.Object({
  events: Type.Array(EventListItemOut),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined) return 20;
  return Math.min(50, Math.max(1, limit));
}

/**
 * Every event id has this shape (docs/architecture.md#identifiers), so anything else names nothing.
 * Checking it first also keeps a NUL byte away from PostgreSQL, which fails such a query instead of
 * matching none.
 */
const EVENT_ID = /^evt_[A-Za-z0-9]+$/;

interface EventCursorKey {
  s: number;
  i: string;
}

export async function registerEventRoutes(app: Host, ctx: AppContext) {
  // Pages are built once and served as bytes while exactly current (event-page-cache.ts).
  const pages = new EventPageCache();
  const security: Array<Record<string, string[]>> = [{ bearer: [] }, { publishableKey: [] }];
  app.get(
    '/v1/events',
    {
      config: { cors: true },
      ...guard(ctx, { scope: 'events:read', publishable: true }),
      schema: {
        tags: ['Events'],
        summary: 'List events on sale',
        description:
          "The organization's public events on sale, soonest first. Pass next_cursor back unchanged as cursor.",
        security,
        querystring: ListQuery,
        response: { 200: Envelope(EventListOut, 'Events retrieved'), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const limit = clampLimit(request.query.limit);
      const scope = { organizationId: auth.organizationId, resource: 'events', filters: {} };
      let after: EventPageKey | null = null;
      if (request.query.cursor !== undefined) {
        const key = decodeCursor(ctx.keys.cursor, scope, request.query.cursor) as EventCursorKey | null;
        if (
          !key ||
          typeof key.s !== 'number' ||
          Number.isNaN(new Date(key.s).getTime()) ||
          typeof key.i !== 'string' ||
          !EVENT_ID.test(key.i)
        ) {
          throw new ApiError('invalid_cursor', 'The cursor is malformed or was not issued for this list.');
        }
        after = { startsAt: new Date(key.s), id: key.i };
      }
      const now = ctx.clock.now();
      const pageKey = `${auth.organizationId} ${limit} ${after ? `${after.startsAt.getTime()} ${after.id}` : ''}`;
      const cached = pages.get(pageKey, auth.catalogVersion, now.getTime());
      if (cached) return sendSerialized(reply, cached);

      const page = await listEventsOnSale(ctx.database.db, {
        organizationId: auth.organizationId,
        now,
        limit,
        after,
      });
      const last = page.rows.at(-1);
      const next_cursor =
        page.hasMore && last
          ? encodeCursor(ctx.keys.cursor, scope, {
              s: last.startsAt.getTime(),
              i: last.id,
            } satisfies EventCursorKey)
          : null;
      const body = Buffer.from(
        reply.serialize(
          envelope(200, 'Events retrieved', {
            events: page.rows.map((row) => toEventListItem(row, page.paymentsEnabled)),
            next_cursor,
            has_more: page.hasMore,
          }),
        ) as string,
      );
      pages.set(pageKey, {
        version: auth.catalogVersion,
        validUntil: page.validUntil?.getTime() ?? Infinity,
        body,
      });
      return sendSerialized(reply, body);
    },
  );

  app.get(
    '/v1/events/:eventId',
    {
      config: { cors: true },
      ...guard(ctx, { scope: 'events:read', publishable: true }),
      schema: {
        tags: ['Events'],
        summary: 'Get an event with ticket types and fees',
        description:
          "One of the organization's events on sale: open, not ended and not private. An unlisted event is found here though the list leaves it out.",
        security,
        params: Type.Object({ eventId: Type.String() }),
        response: { 200: Envelope(EventDetailOut, 'Event retrieved'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      if (!EVENT_ID.test(request.params.eventId)) throw notFound('event');
      const found = await findEventOnSale(ctx.database.db, {
        organizationId: auth.organizationId,
        eventId: request.params.eventId,
        now: ctx.clock.now(),
      });
      if (!found) throw notFound('event');
      return envelope(
        200,
        'Event retrieved',
        toEventDetail(found.event, found.ticketTypes, found.organization, ctx.paymentMethods),
      );
    },
  );
}
