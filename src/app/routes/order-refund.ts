// GET /orders/:orderId/refund asks, POST refunds: the whole order, through the network that took
// its payment (src/payments/actions/refund-order.ts). Owners and admins only; another organization's order
// is the same 404 page. A refusal (not paid, refunded or being refunded) is the order page with its
// message, and changes nothing.
import type { AppContext } from '../../context.ts';
import { findOrder } from '../../orders/index.ts';
import { refundOrder, type RefundOrderOptions } from '../../payments/index.ts';
import { ApiError } from '../../platform/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderRefundConfirmation } from '../views/order-pages.ts';
import { orderPage } from './order-detail.ts';
import { OrderParams, paramsOf } from '../app-input.ts';

/** The order of the request, within the member's organization (the route needs the refunds permission). */
export async function refundableOrder(ctx: AppContext, request: Parameters<Handler>[0]) {
  const current = memberOf(request);
  const { orderId } = paramsOf(request, OrderParams);
  const order = await findOrder(ctx.database.db, current.organizationId, orderId);
  if (!order) throw new PageError('not_found', 'order');
  return order;
}

export function confirmRefund(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await refundableOrder(ctx, request);
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderRefundConfirmation({ viewer, order }));
  };
}

export function submitRefund(ctx: AppContext): Handler {
  return async (request, reply) => {
    const order = await refundableOrder(ctx, request);
    return askRefund(ctx, request, reply, order.id, (asker) =>
      refundOrder(ctx, { ...asker, orderId: order.id }),
    );
  };
}

type Asker = Pick<RefundOrderOptions, 'organizationId' | 'actor' | 'ip'>;

/**
 * Asks a refund as the signed-in member, then shows the order; a refusal (refunded or being
 * refunded already) is the order page with its message and a 409.
 */
export async function askRefund(
  ctx: AppContext,
  request: Parameters<Handler>[0],
  reply: Parameters<Handler>[1],
  orderId: string,
  ask: (asker: Asker) => Promise<unknown>,
) {
  const { member, organizationId } = memberOf(request);
  try {
    await ask({ organizationId, actor: { memberId: member.id, label: member.email }, ip: request.ip });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'conflict') {
      return orderPage(ctx, request, reply, { status: 409, problem: error.message });
    }
    throw error;
  }
  return seeOther(reply, `/orders/${orderId}?refund=requested`);
}
