// POST /checkout/<session_id>/switch: "Use another number or network" on the wait screen. Closes
// the open prompt safely (payments/close-attempt.ts: a late approval of it still pays the order),
// then the wait screen shows the retry form filled with the method and number just used.
import type { AppContext } from '../../context.ts';
import { closePaymentAttempt } from '../../payments/index.ts';
import { loadSessionPayment } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { renderExpiredPage } from '../views/end-pages.ts';
import { seeOther, sendPage, sessionStep, type PageHandler } from './page-replies.ts';

export function switchPayment(ctx: AppContext): PageHandler {
  return sessionStep(ctx, 'checkout switch', async (loaded, request, reply) => {
    const { session, found } = loaded;
    const { order } = await loadSessionPayment(ctx.database.db, session);
    if (order?.status !== 'paid' && loaded.status !== 'open') {
      return sendPage(reply, 410, renderExpiredPage(session, found));
    }
    if (order?.status === 'pending') {
      await closePaymentAttempt(ctx, {
        organizationId: order.organizationId,
        orderId: order.id,
        reason: 'closed by the buyer to pay with another number or network',
      });
    }
    return seeOther(reply, checkoutPath(session.id, '/pay'));
  });
}
