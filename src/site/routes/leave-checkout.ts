// POST /checkout/<session_id>/cancel: leave, to the session's on_cancel_url as given, else to a page
// that says so. With no prompt out the pending order is cancelled and its tickets released. While
// a prompt is on the phone the buyer must confirm first (confirm=yes, from the cancel step); the
// prompt is then closed safely and the order kept payable until its hold lapses, so an approval
// still charges and registers the buyer, as the cancel step says.
import type { AppContext } from '../../context.ts';
import { closePaymentAttempt } from '../../payments/index.ts';
import type { FormBody } from '../checkout-form.ts';
import { cancelCheckout, loadSessionPayment } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { isOpen, renderCancelConfirmPage } from '../views/status-pages.ts';
import { renderCancelledPage } from '../views/end-pages.ts';
import { seeOther, sendPage, sessionStep, type PageHandler } from './page-replies.ts';
import { waitView } from './wait-replies.ts';

export function leaveCheckout(ctx: AppContext): PageHandler {
  return sessionStep(ctx, 'checkout cancel', async (loaded, request, reply) => {
    const { session, found } = loaded;
    if (loaded.status === 'complete') return seeOther(reply, checkoutPath(session.id));
    let promptLeft = false;
    if (loaded.status === 'open') {
      const { order, attempt } = await loadSessionPayment(ctx.database.db, session);
      const promptOut = order?.status === 'pending' && attempt !== null && isOpen(attempt);
      if (promptOut && ((request.body ?? {}) as FormBody).confirm !== 'yes') {
        return sendPage(
          reply,
          200,
          renderCancelConfirmPage(await waitView(ctx, { loaded, order, attempt }), attempt),
        );
      }
      // A prompt closed a moment ago may still be approved within its window: keep its order too.
      const approvable =
        attempt !== null &&
        (promptOut ||
          (attempt.status === 'closed' && attempt.promptExpiresAt.getTime() > ctx.clock.now().getTime()));
      if (order?.status === 'pending' && approvable) {
        promptLeft = true;
        await closePaymentAttempt(ctx, {
          organizationId: order.organizationId,
          orderId: order.id,
          reason: 'closed by the buyer on cancelling the checkout',
        });
      } else {
        await cancelCheckout(ctx, session);
      }
    }
    if (session.uiMode === 'redirect' && session.cancelUrl && /^https?:\/\//i.test(session.cancelUrl)) {
      return seeOther(reply, session.cancelUrl);
    }
    return sendPage(reply, 200, renderCancelledPage(session, found, promptLeft));
  });
}
