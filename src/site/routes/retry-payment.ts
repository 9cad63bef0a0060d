// POST /checkout/<session_id>/retry: pay the pending order again, from the same number or another,
// on either network, or by card (then on to the card page: card-page.ts). Problems come back as the wait page with the retry form's fields in error.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { normalizePhone, phoneCountryOf, type OrderRow } from '../../orders/index.ts';
import { startPayment, type PaymentAttemptRow } from '../../payments/index.ts';
import { toApiError, type FieldError } from '../../platform/index.ts';
import { claimPromptSlot } from '../buyer-limits.ts';
import { checkPayment, type FormBody, type PaymentChoice } from '../checkout-form.ts';
import { nationalPhone } from '../format.ts';
import { paidOnPage } from '../event-methods.ts';
import { offerOf } from '../offer-words.ts';
import { isOpenAttempt, loadSessionPayment } from '../place-order.ts';
import { startPromptFor } from '../prompt-state.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { renderWaitPage } from '../views/status-pages.ts';
import { renderExpiredPage } from '../views/end-pages.ts';
import { seeOther, sendPage, sessionStep, type Loaded, type PageHandler } from './page-replies.ts';
import { sendToCardPage } from './card-page.ts';
import { sendPromptRefused, waitView } from './wait-replies.ts';

interface Retry {
  loaded: Loaded;
  order: OrderRow;
  /** the order's latest attempt, read with it */
  attempt: PaymentAttemptRow | null;
  choice: PaymentChoice;
  /** a prompt for the order is still out: startPayment sends nothing, so nothing is counted */
  promptOut: boolean;
  /** as typed, for the form */
  typed: { method: string; phone: string };
}

/** Sends the prompt; answers the redirect, or returns the field errors startPayment gave. */
async function startRetry(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  retry: Retry,
): Promise<FastifyReply | FieldError[]> {
  const { loaded, order, attempt, choice } = retry;
  const sessionId = loaded.session.id;
  // Card sends no prompt to a number: the per-number limit is not its.
  const card = paidOnPage(offerOf(loaded.found), choice.method);
  if (!retry.promptOut && !card) {
    const country = phoneCountryOf(loaded.found.event.currency);
    const slot = await claimPromptSlot(ctx, normalizePhone(choice.phone, country)!);
    if (!slot.allowed)
      return sendPromptRefused(ctx, request, reply, { loaded, order, attempt, slot, retry: retry.typed });
  }
  try {
    await startPromptFor(request, () =>
      startPayment(ctx, { organizationId: order.organizationId, orderId: order.id, ...choice }),
    );
    return card ? sendToCardPage(reply, loaded) : seeOther(reply, checkoutPath(sessionId, '/pay'));
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.code !== 'validation_failed') {
      if (apiError.status >= 500) request.log.error({ err: error }, 'payment retry failed');
      return seeOther(reply, checkoutPath(sessionId, `/pay?error=${apiError.code}`));
    }
    return (apiError.errors ?? []).map((e) => ({
      field: e.field === 'phone' ? 'payment_phone' : e.field,
      message: e.message,
    }));
  }
}

export function retryPayment(ctx: AppContext): PageHandler {
  return sessionStep(ctx, 'checkout retry', async (loaded, request, reply) => {
    const { session, found } = loaded;
    const { order, attempt } = await loadSessionPayment(ctx.database.db, session);
    if (order?.status === 'paid') return seeOther(reply, checkoutPath(session.id, '/pay'));
    if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
    if (!order || order.status !== 'pending') return seeOther(reply, checkoutPath(session.id, '/pay'));
    const body = (request.body ?? {}) as FormBody;
    const typed = {
      method: (body.payment_method ?? '').slice(0, 20),
      phone: (body.payment_phone ?? '').slice(0, 40),
    };
    const checked = checkPayment(offerOf(found), typed.method, typed.phone, nationalPhone(order.buyerPhone));
    let errors = checked.errors;
    if (checked.choice) {
      const promptOut = isOpenAttempt(attempt ?? undefined);
      const started = await startRetry(ctx, request, reply, {
        loaded,
        order,
        attempt,
        choice: checked.choice,
        promptOut,
        typed,
      });
      if (!Array.isArray(started)) return started;
      errors = started;
    }
    return sendPage(
      reply,
      400,
      renderWaitPage(await waitView(ctx, { loaded, order, attempt, errors, retry: typed })),
    );
  });
}
