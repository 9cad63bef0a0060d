// GET /orders/:orderId: one order of the organization, its registrations, its refunds and its
// timeline (webhook deliveries included), with the refund and erasure actions for owners and
// admins. An order of another organization, or none, is the same 404 page.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/index.ts';
import { findEvent } from '../../events/index.ts';
import { findOrder, registrationsOf } from '../../orders/index.ts';
import { attemptsOfOrder, refundsOfOrder } from '../../payments/index.ts';
import { can } from '../../members/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderOrder } from '../views/order-pages.ts';
import { orderMailsOf } from './order-mails.ts';
import { loadOrderActivity } from './order-activity.ts';
import { OrderParams, paramsOf, queryOf } from '../app-input.ts';

const OrderQuery = Type.Object({ refund: Type.Optional(Type.String({ maxLength: 20 })) });

/** The order page, with a refusal's message when a refund could not be asked. */
export async function orderPage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status: number; problem: string | null },
) {
  const { organizationId, role } = memberOf(request);
  const { orderId } = paramsOf(request, OrderParams);
  const db = ctx.database.db;
  const order = await findOrder(db, organizationId, orderId);
  if (!order) throw new PageError('not_found', 'order');
  const [viewer, found, clients, regs, attempts, refunds, mails, activity] = await Promise.all([
    viewerOf(ctx, request),
    findEvent(db, order.eventId),
    listApiClients(db, organizationId),
    registrationsOf(db, [order.id]),
    attemptsOfOrder(db, order.id),
    refundsOfOrder(db, organizationId, order.id),
    orderMailsOf(ctx, request, order),
    loadOrderActivity(ctx, organizationId, order.id),
  ]);
  const requested = queryOf(request, OrderQuery).refund === 'requested';
  return sendPage(
    reply,
    options.status,
    renderOrder({
      viewer,
      order,
      registrations: regs.get(order.id) ?? [],
      eventName: found?.event.name ?? order.eventId,
      clientName: clients.find((c) => c.id === order.apiClientId)?.name ?? null,
      attempts,
      refunds,
      mails,
      activity,
      mayRefund: can(role, 'refunds'),
      mayErase: can(role, 'buyer_erasure'),
      notice: requested ? 'The refund was sent to the network. Its status shows below.' : null,
      problem: options.problem,
    }),
  );
}

export function showOrder(ctx: AppContext): Handler {
  return (request, reply) => orderPage(ctx, request, reply, { status: 200, problem: null });
}
