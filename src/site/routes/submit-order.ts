// POST /checkout/<session_id>/order: the form's next step (without the script: the steps before it
// are checked by a dry run of the order), or the order itself and its payment prompt.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { normalizePhone, phoneCountryOf, type OrderRow } from '../../orders/index.ts';
import { startPayment } from '../../payments/index.ts';
import { ERROR_STATUS, toApiError, transactionConflict, type FieldError } from '../../platform/index.ts';
import { countRefusal } from '../../metrics/index.ts';
import { claimPromptSlot, holdLimitMessage } from '../buyer-limits.ts';
import {
  itemsMatch,
  readForm,
  STAGES,
  stageOf,
  type FormBody,
  type FormValues,
  type PaymentChoice,
  type Stage,
} from '../checkout-form.ts';
import { paidOnPage } from '../event-methods.ts';
import { offerOf } from '../offer-words.ts';
import { placeOrder, type PlaceOutcome } from '../place-order.ts';
import { startPromptFor } from '../prompt-state.ts';
import { msg } from '../messages/current.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { anyOnlyHeld } from '../views/steps/tickets-step.ts';
import { renderClosedPage, renderExpiredPage } from '../views/end-pages.ts';
import {
  saleOpen,
  seeOther,
  sendFormPage,
  sendPage,
  sessionStep,
  type Loaded,
  type PageHandler,
} from './page-replies.ts';
import { sendToCardPage } from './card-page.ts';
import { refuse, sendPromptRefused } from './wait-replies.ts';

interface Placed {
  loaded: Loaded;
  values: FormValues;
  /** the step the buyer asked for; 'pay' places the order */
  target: Stage | 'pay';
  /** the step the form was sent from */
  from: Stage;
}

const isStage = (value: string | undefined): value is Stage =>
  (STAGES as readonly string[]).includes(value ?? '');

/**
 * The order's errors as the form shows them. When the buyer runs, the first participant's name is
 * the buyer's: its errors belong to the buyer's name, said once.
 */
export function formErrors(values: FormValues, errors: FieldError[]): FieldError[] {
  const buyerNamed = errors.some((e) => e.field === 'buyer.name');
  return errors.flatMap((e) => {
    if (!values.runnerIsBuyer || e.field !== 'items[0].participant_name') return [e];
    return buyerNamed ? [] : [{ ...e, field: 'buyer.name' }];
  });
}

/** The errors of the steps before `target`: those the buyer must fix before going on. */
export function errorsBefore(errors: FieldError[], target: Stage | 'pay'): FieldError[] {
  if (target === 'pay') return errors;
  return errors.filter((e) => STAGES.indexOf(stageOf(e.field)) < STAGES.indexOf(target));
}

/** Sends the prompt; returns the error code when it could not be started. */
async function tryStartPayment(
  ctx: AppContext,
  request: FastifyRequest,
  order: OrderRow,
  payment: PaymentChoice,
): Promise<string | null> {
  try {
    await startPromptFor(request, () =>
      startPayment(ctx, { organizationId: order.organizationId, orderId: order.id, ...payment }),
    );
    return null;
  } catch (error) {
    // A simultaneous submission of the same form replaced this order (order_not_payable), or
    // was replacing it at that moment (PostgreSQL broke the lock cycle by aborting us each try):
    // the wait screen shows the session's current order either way.
    if (transactionConflict(error)) return null;
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
  // Card sends no prompt to a number: the per-number limit is not its.
  const card = paidOnPage(offerOf(loaded.found), payment.method);
  if (!card) {
    // The order stays held: the wait page lets the buyer send the prompt to another number.
    const country = phoneCountryOf(loaded.found.event.currency);
    const slot = await claimPromptSlot(ctx, normalizePhone(payment.phone, country)!);
    if (!slot.allowed)
      return sendPromptRefused(ctx, request, reply, {
        loaded,
        order,
        // just created: no attempt yet
        attempt: null,
        slot,
        retry: payment,
      });
  }
  const code = await tryStartPayment(ctx, request, order, payment);
  if (!code && card) return sendToCardPage(reply, loaded);
  return seeOther(reply, checkoutPath(sessionId, code ? `/pay?error=${code}` : '/pay'));
}

/** Tickets taken only by holds that may lapse are not called sold out: the list says when. */
function soldOutMessage(loaded: Loaded, message: string): string {
  return anyOnlyHeld(loaded.found, loaded.now) ? msg().form.heldNotSoldOut : message;
}

/** What the page answers for each outcome of placing (or checking) the order. */
async function answerOutcome(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  { loaded, values, target, from, outcome }: Placed & { outcome: PlaceOutcome },
) {
  const { session } = loaded;
  switch (outcome.kind) {
    case 'invalid': {
      const errors = formErrors(values, outcome.errors);
      // Pay from the details step of an order that turned out to cost something (a donation):
      // the payment step comes first, without errors for what it has not asked yet.
      if (target === 'pay' && from === 'details' && errors.every((e) => stageOf(e.field) === 'payment')) {
        return sendFormPage(ctx, reply, loaded, { values, stage: 'payment' });
      }
      const blocking = errorsBefore(errors, target);
      if (blocking.length === 0) return sendFormPage(ctx, reply, loaded, { values, stage: target as Stage });
      return sendFormPage(ctx, reply, loaded, { values, errors: blocking, status: 400 });
    }
    case 'refused':
      return sendFormPage(ctx, reply, loaded, {
        values,
        status: ERROR_STATUS[outcome.code],
        ...(outcome.code === 'sold_out'
          ? { errors: [{ field: 'items', message: soldOutMessage(loaded, outcome.message) }] }
          : { stage: from, notice: { kind: 'bad', text: outcome.message } }),
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
      countRefusal(ctx, 'holds_per_ip');
      return sendFormPage(ctx, reply, loaded, {
        values,
        status: 429,
        errors: [{ field: 'items', message }],
        errorCode: outcome.kind,
      });
    }
    case 'checked':
      // A free order has no payment step: its details step confirms it.
      return sendFormPage(ctx, reply, loaded, {
        values,
        stage: target === 'payment' && outcome.order.total === 0 ? 'details' : (target as Stage),
      });
    case 'created':
      return sendPrompt(ctx, request, reply, { loaded, order: outcome.order, payment: outcome.payment });
  }
}

export function submitOrder(ctx: AppContext): PageHandler {
  return sessionStep(ctx, 'checkout order', async (loaded, request, reply) => {
    const { session, found } = loaded;
    if (loaded.status === 'complete') return seeOther(reply, checkoutPath(session.id));
    if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
    if (!saleOpen(loaded)) return sendPage(reply, 409, renderClosedPage(session, found));
    const body = (request.body ?? {}) as FormBody;
    const values = readForm(body, found.ticketTypes, found.event.additionalQuestions, session);
    // The language switch: the same step again, everything typed kept, in the language of ?lang=.
    if (body.action === 'language') {
      const stage = isStage(body.from) ? body.from : 'tickets';
      return sendFormPage(ctx, reply, loaded, { values, stage, typed: true });
    }
    const target = body.action === 'pay' ? 'pay' : isStage(body.action) ? body.action : 'details';
    // A form without `from` is the whole form at once.
    const from = isStage(body.from) ? body.from : 'payment';
    if (target === 'tickets') return sendFormPage(ctx, reply, loaded, { values, stage: 'tickets' });
    if (values.items.length === 0) {
      const errors: FieldError[] = [{ field: 'items', message: msg().form.chooseAtLeastOne }];
      return sendFormPage(ctx, reply, loaded, { values, errors, status: 400 });
    }
    // From the tickets step a new quantity is expected to change the participants (on the next
    // step); from a later step it means the participants sent were not those of the tickets.
    if (from !== 'tickets' && !itemsMatch(body, values)) {
      return sendFormPage(ctx, reply, loaded, {
        values,
        stage: 'details',
        notice: { kind: 'info', text: msg().form.ticketsChanged },
      });
    }
    const outcome = await placeOrder(ctx, {
      session,
      found,
      values,
      dryRun: target !== 'pay',
      clientIp: request.ip,
    });
    return answerOutcome(ctx, request, reply, { loaded, values, target, from, outcome });
  });
}
