// Orders API: POST /v1/orders (headless checkout), GET /v1/orders/{orderId}, GET /v1/orders.
// Bearer tokens only: a publishable key never creates, pays or reads orders.
import { Type } from 'typebox';
import { guard } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import {
  ApiError,
  Envelope,
  envelope,
  errorResponses,
  idempotencyKeyOf,
  notFound,
  runIdempotent,
  sendIdempotent,
  validationError,
  type Host,
} from '../platform/index.ts';
import type { FastifyReply } from 'fastify';
import {
  bodyEventOf,
  clampLimit,
  readBodyEvent,
  readEventOnSale,
  type EventWithTickets,
} from '../events/index.ts';
import { createOrder, createPlannedOrder, runOrderTransaction } from './create-order.ts';
import { planOrder } from './plan-order.ts';
import type { OrderRows } from './write-orders.ts';
import { writeOrderInBatch } from './order-batches.ts';
import { filterProblems, findOrder, listOrders, type OrderListFilters } from './list-orders.ts';
import { OrderIn } from './order-in.ts';
import { loadOrderOut, OrderOut, toOrderOut } from './order-out.ts';
import { ORDER_STATUSES } from './order-state.ts';

const CREATED_MESSAGE = 'Order created';

const OrderListOut = Type.Object({
  orders: Type.Array(OrderOut),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});

export async function registerOrderRoutes(app: Host, ctx: AppContext) {
  const security = [{ bearer: [] as string[] }];
  app.post(
    '/v1/orders',
    {
      ...guard(ctx, {
        admit: ctx.writes.admit,
        scope: 'orders:write',
        // The event goes out with the credential check, and is checked against it after.
        alongside: readBodyEvent(ctx, readEventOnSale),
      }),
      schema: {
        tags: ['Orders'],
        summary: 'Create an order (headless checkout)',
        description:
          'For partners with their own checkout UI. Holds the tickets and returns a pending order with hold_expires_at, or a paid order at once when the total is 0. Send an Idempotency-Key header to retry safely.',
        security,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: OrderIn,
        response: {
          201: Envelope(OrderOut, CREATED_MESSAGE, 201),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const found = await bodyEventOf<EventWithTickets>(request);
      const options = {
        organizationId: auth.organizationId,
        apiClientId: auth.clientId,
        session: null,
        input: request.body,
        found,
      };
      const created201 = (created: OrderRows) =>
        envelope(201, CREATED_MESSAGE, toOrderOut(created.order, created.registrations));
      const result = await runOrderTransaction(async (takeFirst) => {
        // Without an Idempotency-Key nothing is read in the transaction: an order whose tickets
        // are counted last waits on no statement and is written in a batch (order-batches.ts).
        const plan = key === undefined ? planOrder(ctx, { ...options, takeFirst }) : null;
        if (plan?.countLast) {
          return { status: 201, body: created201(await writeOrderInBatch(ctx, plan)), replayed: false };
        }
        return runIdempotent(
          ctx,
          { clientId: auth.clientId, key, operation: 'POST /v1/orders', body: request.body },
          async (tx) => {
            const created = plan
              ? await createPlannedOrder(ctx, tx, plan)
              : await createOrder(ctx, tx, { ...options, takeFirst });
            return { status: 201, body: created201(created), written: created.written };
          },
        );
      });
      return sendIdempotent(reply as unknown as FastifyReply, result);
    },
  );

  app.get(
    '/v1/orders/:orderId',
    {
      ...guard(ctx, { scope: 'orders:read' }),
      schema: {
        tags: ['Orders'],
        summary: 'Get an order with its registrations',
        description: 'Returns personal data: server side only.',
        security,
        params: Type.Object({ orderId: Type.String() }),
        response: { 200: Envelope(OrderOut, 'Order retrieved'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const order = await findOrder(ctx.database.db, request.auth!.organizationId, request.params.orderId);
      if (!order) throw notFound('order');
      return envelope(200, 'Order retrieved', await loadOrderOut(ctx.database.db, order));
    },
  );

  app.get(
    '/v1/orders',
    {
      ...guard(ctx, { scope: 'orders:read' }),
      schema: {
        tags: ['Orders'],
        summary: 'List orders',
        description: 'Newest first. Pass next_cursor back unchanged as cursor, with the same filters.',
        security,
        querystring: Type.Object(
          {
            event_id: Type.Optional(Type.String({ maxLength: 200 })),
            status: Type.Optional(Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)))),
            created_after: Type.Optional(Type.String({ format: 'date-time' })),
            created_before: Type.Optional(Type.String({ format: 'date-time' })),
            limit: Type.Optional(Type.Integer({ description: '1 to 50 (clamped); default 20' })),
            cursor: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(OrderListOut, 'Orders retrieved'), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { cursor, limit, ...rest } = request.query;
      const filters: OrderListFilters = rest;
      const problems = filterProblems(filters);
      if (problems.length > 0) throw validationError(problems);
      const page = await listOrders(ctx, {
        organizationId: request.auth!.organizationId,
        filters,
        limit: clampLimit(limit),
        cursor,
      });
      if (page === 'invalid_cursor') {
        throw new ApiError(
          'validation_failed',
          'The cursor is malformed or was not issued for this list and filters.',
          {
            errors: [{ field: 'cursor', message: 'is not a cursor issued for this list and these filters' }],
          },
        );
      }
      return envelope(200, 'Orders retrieved', page);
    },
  );
}
