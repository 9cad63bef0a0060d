// GET /orders/:orderId: one order of the organization, its registrations and its timeline. An order
// of another organization, or none, is the same 404 page.
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/clients.ts';
import { findEvent } from '../../events/events.ts';
import { findOrder } from '../../orders/list-orders.ts';
import { registrationsOf } from '../../orders/order-out.ts';
import { attemptsOfOrder } from '../../payments/payment-attempts.ts';
import { memberOf, PageError } from '../app-access.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderOrder } from '../views/order-pages.ts';

const ORDER_ID = /^ord_[A-Za-z0-9]{8,64}$/;

export function showOrder(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const { orderId } = request.params as { orderId: string };
    if (!ORDER_ID.test(orderId)) throw new PageError('not_found', 'order id');
    const db = ctx.database.db;
    const order = await findOrder(db, organizationId, orderId);
    if (!order) throw new PageError('not_found', 'order');
    const [viewer, found, clients, regs, attempts] = await Promise.all([
      viewerOf(ctx, request),
      findEvent(db, order.eventId),
      listApiClients(db, organizationId),
      registrationsOf(db, [order.id]),
      attemptsOfOrder(db, order.id),
    ]);
    return sendPage(
      reply,
      200,
      renderOrder({
        viewer,
        order,
        registrations: regs.get(order.id) ?? [],
        eventName: found?.event.name ?? order.eventId,
        clientName: clients.find((c) => c.id === order.apiClientId)?.name ?? null,
        attempts,
      }),
    );
  };
}
