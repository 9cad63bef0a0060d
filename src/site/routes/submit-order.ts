// POST /checkout/<session_id>/order: the form's next stage (without the script), the review (a
// dry run of the order), or the order itself and its payment prompt.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { normalizePhone } from '../../orders/contact.ts';
import type { OrderRow } from '../../orders/order-out.ts';
import { startPayment } from '../../payments/start-payment.ts';
import { ERROR_STATUS, type FieldError } from '../../platform/errors.ts';
import { toApiError } from '../../platform/http.ts';
import { claimPromptSlot, holdLimitMessage } from '../buyer-limits.ts';
import {
  checkPayment,
  itemsMatch,
  readForm,
  type FormBody,
  type FormValues,
  type PaymentChoice,
} from '../checkout-form.ts';
import { isDeadlock, placeOrder, type PlaceOutcome } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { renderReviewPage } from '../views/review-page.ts';
import { renderClosedPage, renderExpiredPage } from '../views/status-pages.ts';
import {
  loadSession,
  saleOpen,
  seeOther,
  sendFormPage,
  sendPage,
  type Loaded,
  type PageHandler,
} from './page-replies.ts';
import { refuse, sendPromptRefused } from './wait-replies.ts';

interface Placed {
  loaded: Loaded;
  values: FormValues;
}

function paymentOf(values: FormValues): PaymentChoice | null {
  return checkPayment(values.payment_method, values.payment_phone, values.buyer.phone).choice;
}

/** Sends the prompt; returns the error code when it could not be started. */
async function tryStartPayment(
  ctx: AppContext,
  order: OrderRow,
  payment: PaymentChoice,
): Promise<string | null> {
  try {
    await startPayment(ctx, { organizationId: order.organizationId, orderId: order.id, ...payment });
    return null;
  } catch (error) {
    // A simultaneous submission of the same form replaced this order (order_not_payable), or
    // was replacing it at that moment (PostgreSQL broke the lock cycle by aborting us): the
    // wait screen shows the session's current order either way.
    if (isDeadlock(error)) return null;
    const apiError = toApiError(error);
    if (apiError.code === 'order_not_payable') return null;
    if (apiError.status >= 500) ctx.log.error({ err: error, order_id: order.id }, 'payment could not start');
    return apiError.code;
  }
}

/** The order exists: send its prompt (within the per-number limit) and show the wait page. */
async function sendPrompt(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  created: { loaded: Loaded; order: OrderRow; payment: PaymentChoice | null },
) {
  const { loaded, order, payment } = created;
  const sessionId = loaded.session.id;
  if (order.status === 'paid' || !payment) return seeOther(reply, checkoutPath(sessionId, '/pay'));
  // The order stays held: the wait page lets the buyer send the prompt to another number.
  const slot = await claimPromptSlot(ctx, normalizePhone(payment.phone)!);
  if (!slot.allowed) return sendPromptRefused(ctx, request, reply, { loaded, order, slot, retry: payment });
  const code = await tryStartPayment(ctx, order, payment);
  return seeOther(reply, checkoutPath(sessionId, code ? `/pay?error=${code}` : '/pay'));
}

/** What the page answers for each outcome of placing (or checking) the order. */
async function answerOutcome(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  { loaded, values, outcome }: Placed & { outcome: PlaceOutcome },
) {
  const { session, found } = loaded;
  switch (outcome.kind) {
    case 'invalid':
      return sendFormPage(reply, loaded, { values, errors: outcome.errors, status: 400 });
    case 'refused':
      return sendFormPage(reply, loaded, {
        values,
        status: ERROR_STATUS[outcome.code],
        ...(outcome.code === 'sold_out'
          ? { errors: [{ field: 'items', message: outcome.message }] }
          : { notice: { kind: 'bad', text: outcome.message } }),
      });
    case 'session_closed':
      return seeOther(reply, checkoutPath(session.id));
    case 'payment_in_progress':
      return seeOther(reply, checkoutPath(session.id, '/pay'));
    case 'hold_limit_reached': {
      const { retryAfterSeconds } = outcome;
      const message = holdLimitMessage({
        held: outcome.held,
        limit: ctx.config.holdLimitTicketsPerIp,
        retryAfterSeconds,
      });
      refuse(request, reply, { code: outcome.kind, retryAfterSeconds, message });
      return sendFormPage(reply, loaded, {
        values,
        status: 429,
        errors: [{ field: 'items', message }],
        errorCode: outcome.kind,
      });
    }
    case 'checked':
      return sendPage(
        reply,
        200,
        renderReviewPage({ session, found, values, order: outcome.order, payment: paymentOf(values) }),
      );
    case 'created':
      return sendPrompt(ctx, request, reply, { loaded, order: outcome.order, payment: outcome.payment });
  }
}

export function submitOrder(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const loaded = await loadSession(ctx, request, reply);
    if (!loaded) return reply;
    const { session, found } = loaded;
    if (loaded.status === 'complete') return seeOther(reply, checkoutPath(session.id));
    if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
    if (!saleOpen(loaded)) return sendPage(reply, 409, renderClosedPage(session, found));
    const body = (request.body ?? {}) as FormBody;
    const values = readForm(body, found.ticketTypes, found.event.additionalQuestions, session);
    const action = body.action ?? 'review';
    if (values.items.length === 0) {
      const errors: FieldError[] =
        action === 'edit' ? [] : [{ field: 'items', message: 'Choose at least one ticket' }];
      return sendFormPage(reply, loaded, {
        values,
        stage: 'tickets',
        errors,
        status: errors.length ? 400 : 200,
      });
    }
    if (action === 'tickets' || action === 'edit') return sendFormPage(reply, loaded, { values });
    if (!itemsMatch(body, values)) {
      return sendFormPage(reply, loaded, {
        values,
        notice: { kind: 'info', text: 'Your tickets changed: check the participant details below.' },
      });
    }
    const outcome = await placeOrder(ctx, {
      session,
      found,
      values,
      dryRun: action !== 'pay',
      clientIp: request.ip,
    });
    return answerOutcome(ctx, request, reply, { loaded, values, outcome });
  };
}
