// GET /orders/:orderId/erase-buyer asks, POST erases: the personal data of the order's buyer, on
// every order of the organization placed with the buyer's email (src/privacy/erase-buyer.ts),
// audited with the member as actor. Owners and admins only; another organization's order is the
// same 404 page. An order whose buyer was erased already shows its page: there is nothing to ask.
import type { AppContext } from '../../context.ts';
import { findOrder } from '../../orders/index.ts';
import { eraseBuyer } from '../../privacy/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { actorOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  buyerErased,
  renderBuyerErased,
  renderBuyerErasureConfirmation,
} from '../views/buyer-erasure-pages.ts';
import { OrderParams, paramsOf } from '../app-input.ts';

/** The order of the request, within the member's organization (the route needs buyer_erasure). */
async function erasableOrder(ctx: AppContext, request: Parameters<Handler>[0]) {
  const current = memberOf(request);
  const { orderId } = paramsOf(request, OrderParams);
  const order = await findOrder(ctx.database.db, current.organizationId, orderId);
  if (!order) throw new PageError('not_found', 'order');
  return order;
}

export function confirmBuyerErasure(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await erasableOrder(ctx, request);
    if (buyerErased(order)) return seeOther(reply, `/orders/${order.id}`);
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderBuyerErasureConfirmation({ viewer, order }));
  };
}

export function submitBuyerErasure(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await erasableOrder(ctx, request);
    const { organizationId } = memberOf(request);
    // Erased already (a second click, a second tab): nothing is left, and nothing is recorded again.
    if (buyerErased(order)) return seeOther(reply, `/orders/${order.id}`);
    const erasure = await eraseBuyer(ctx, {
      email: order.buyerEmail,
      organizationId,
      actor: actorOf(request),
      orderCode: order.orderCode,
    });
    const erased = (await findOrder(ctx.database.db, organizationId, order.id)) ?? order;
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderBuyerErased({ viewer, order: erased, erasure }));
  };
}
