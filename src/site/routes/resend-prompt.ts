// POST /checkout/<session_id>/resend: "Resend prompt", offered once the prompt has been out for half
// a minute (close-attempt.ts resendOpensAt). Closes the open attempt safely and sends a new prompt
// to the same number and network, counted against the number's prompt limit like any other.
import type { AppContext } from '../../context.ts';
import {
  closePaymentAttempt,
  resendOpensAt,
  startPayment,
  type PaymentMethod,
} from '../../payments/index.ts';
import { toApiError } from '../../platform/index.ts';
import { claimPromptSlot, promptLimitMessage } from '../buyer-limits.ts';
import { loadSessionPayment } from '../place-order.ts';
import { startPromptFor } from '../prompt-state.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { isOpen, renderWaitPage } from '../views/status-pages.ts';
import { renderExpiredPage } from '../views/end-pages.ts';
import { seeOther, sendPage, sessionStep, type PageHandler } from './page-replies.ts';
import { refuse, waitView } from './wait-replies.ts';

export function resendPrompt(ctx: AppContext): PageHandler {
  return sessionStep(ctx, 'checkout resend', async (loaded, request, reply) => {
    const { session, found } = loaded;
    const payPage = checkoutPath(session.id, '/pay');
    const { order, attempt } = await loadSessionPayment(ctx.database.db, session);
    if (order?.status !== 'paid' && loaded.status !== 'open') {
      return sendPage(reply, 410, renderExpiredPage(session, found));
    }
    // Nothing to resend (settled meanwhile), or too early: the wait screen shows where things are.
    if (!order || order.status !== 'pending' || !attempt || !isOpen(attempt)) return seeOther(reply, payPage);
    if (ctx.clock.now().getTime() < resendOpensAt(ctx, attempt).getTime()) return seeOther(reply, payPage);
    const slot = await claimPromptSlot(ctx, attempt.msisdn);
    if (!slot.allowed) {
      // The open prompt stays open: the buyer keeps waiting on it, told why nothing was resent.
      const message = promptLimitMessage(slot.retryAfterSeconds);
      refuse(request, reply, {
        code: 'prompt_limit_reached',
        retryAfterSeconds: slot.retryAfterSeconds,
        message,
      });
      return sendPage(
        reply,
        429,
        renderWaitPage(await waitView(ctx, { loaded, order, attempt, notice: message })),
      );
    }
    await closePaymentAttempt(ctx, {
      organizationId: order.organizationId,
      orderId: order.id,
      reason: 'closed by the buyer to send the prompt again',
    });
    try {
      await startPromptFor(request, () =>
        startPayment(ctx, {
          organizationId: order.organizationId,
          orderId: order.id,
          method: attempt.method as PaymentMethod,
          phone: attempt.msisdn,
        }),
      );
      return seeOther(reply, checkoutPath(session.id, '/pay?resent=1'));
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500) request.log.error({ err: error }, 'payment resend failed');
      return seeOther(reply, checkoutPath(session.id, `/pay?error=${apiError.code}`));
    }
  });
}
