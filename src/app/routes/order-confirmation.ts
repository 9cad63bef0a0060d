// POST /orders/:orderId/resend-confirmation: mails a paid order's confirmation to its buyer again
// (src/confirmations/resend-confirmation.ts). Owners and admins only; another organization's order
// is the same 404 page. A refusal (not paid, or resent less than a minute ago) is the order page
// with its message, and changes nothing.
import type { AppContext } from '../../context.ts';
import { resendConfirmation } from '../../confirmations/index.ts';
import { findOrder } from '../../orders/index.ts';
import { ApiError } from '../../platform/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { actorOf, seeOther, type Handler } from '../replies.ts';
import { orderPage } from './order-detail.ts';
import { OrderParams, paramsOf } from '../app-input.ts';

export function resendConfirmationRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const { orderId } = paramsOf(request, OrderParams);
    const order = await findOrder(ctx.database.db, organizationId, orderId);
    if (!order) throw new PageError('not_found', 'order');
    try {
      const mail = await resendConfirmation(ctx, {
        organizationId,
        orderId: order.id,
        actor: actorOf(request),
      });
      return seeOther(
        reply,
        `/orders/${order.id}?confirmation=${mail.outcome === 'sent' ? 'sent' : 'failed'}`,
      );
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'conflict' || error.code === 'rate_limited')) {
        reply.headers(error.headers);
        return orderPage(ctx, request, reply, { status: error.status, problem: error.message });
      }
      throw error;
    }
  };
}
