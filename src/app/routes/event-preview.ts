// GET /events/<event_id>/preview: the event's hosted checkout as a buyer sees it (tickets,
// details, payment), for every member and any status, a draft too, drawn by the checkout's own
// views under a banner saying nothing is sold. It only reads: no checkout session, order, hold or
// payment is ever made. The form is a GET of this page: each button shows the next step, checked
// by the order's own input rules (without inventory), so the organizer sees the buyer's errors.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { findEvent, type EventWithTickets } from '../../events/index.ts';
import { checkInput, firstHoldEnds } from '../../orders/index.ts';
import { ApiError, type FieldError } from '../../platform/index.ts';
import {
  anyOnlyHeld,
  checkPayment,
  errorsBefore,
  estimateTotal,
  firstErrorStage,
  formErrors,
  isOnSale,
  formMethod,
  msg,
  offerOf,
  parseDonation,
  parseUrlEncoded,
  pickLocale,
  readForm,
  renderFormPreview,
  runInLocale,
  stageOf,
  STAGES,
  toOrderInput,
  type FormBody,
  type FormContent,
  type FormValues,
  type Stage,
} from '../../site/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { PREVIEW_CONTENT_SECURITY_POLICY } from '../app-scope.ts';
import { sendPage, type Handler } from '../replies.ts';
import { placedNote, previewBanner, PREVIEW_TITLE_PREFIX } from '../views/checkout-preview.ts';
import { EventParams, paramsOf } from '../app-input.ts';

type Step = Pick<FormContent, 'errors'> & Partial<Pick<FormContent, 'stage' | 'notice' | 'status'>>;

const isStage = (value: string | undefined): value is Stage =>
  (STAGES as readonly string[]).includes(value ?? '');

/** The event within the member's organization: another organization's is as missing as none. */
async function previewedEvent(ctx: AppContext, request: FastifyRequest): Promise<EventWithTickets> {
  const { eventId } = paramsOf(request, EventParams);
  const found = await findEvent(ctx.database.db, eventId);
  if (!found || found.event.organizationId !== memberOf(request).organizationId) {
    throw new PageError('not_found', 'event');
  }
  return found;
}

/**
 * The moment the checkout is shown as of: now, or, when no ticket is on sale now but one will be,
 * the moment sales open (a draft's tickets usually go on sale later), so that every step shows.
 */
function previewMoment(found: EventWithTickets, now: Date): Date {
  if (found.ticketTypes.some((tt) => isOnSale(tt, now))) return now;
  const openings = found.ticketTypes
    .map((tt) => tt.salesStart)
    .filter((at) => at.getTime() > now.getTime())
    .sort((a, b) => a.getTime() - b.getTime());
  return openings.find((at) => found.ticketTypes.some((tt) => isOnSale(tt, at))) ?? now;
}

/** The form as sent (the query), or the checkout's start: the buyer runs, one ticket if one type. */
function formValues(found: EventWithTickets, body: FormBody, at: Date): FormValues {
  // Only tickets on sale may be chosen, however the query was written.
  const onSale = found.ticketTypes.filter((tt) => isOnSale(tt, at));
  let sent = body;
  if (body.from === undefined) {
    sent = { runner_is_buyer: 'yes' };
    if (onSale.length === 1) sent[`qty.${onSale[0]!.id}`] = '1';
  }
  return readForm(sent, onSale, found.event.additionalQuestions, { prefill: {} });
}

/** What the real checkout would refuse in the form, as place-order.ts finds it, without inventory. */
function formProblems(found: EventWithTickets, values: FormValues, at: Date): FieldError[] {
  const extra: FieldError[] = [];
  if (parseDonation(values.donation, found.event.currency) === null) {
    extra.push({ field: 'donation_minor', message: msg().form.wholeNumber(found.event.currency) });
  }
  const offer = offerOf(found);
  const method = formMethod(offer, values.payment_method) ?? offer.first;
  if (estimateTotal(values, found, method) > 0) {
    extra.push(
      ...checkPayment(offer, values.payment_method, values.payment_phone, values.buyer.phone).errors,
    );
  }
  try {
    checkInput(found, toOrderInput(values, { eventId: found.event.id }, found.event.currency), at);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'validation_failed') throw error;
    return formErrors(values, [...(error.errors ?? []), ...extra]);
  }
  return formErrors(values, extra);
}

/** The step a button leads to, as submit-order.ts decides it, with a note where it would sell. */
function nextStep(found: EventWithTickets, values: FormValues, body: FormBody, at: Date): Step {
  const target = body.action === 'pay' ? 'pay' : isStage(body.action) ? body.action : 'tickets';
  const from = isStage(body.from) ? body.from : 'tickets';
  // The start with the only ticket type chosen: the details step, as the checkout starts there.
  if (body.from === undefined && values.items.length > 0) return { errors: [], stage: 'details' };
  if (target === 'tickets') return { errors: [], stage: 'tickets' };
  if (values.items.length === 0) {
    return { errors: [{ field: 'items', message: msg().form.chooseAtLeastOne }], status: 400 };
  }
  const errors = formProblems(found, values, at);
  // Pay from the details step of an order that costs something: the payment step comes first.
  const onlyPayment = errors.length > 0 && errors.every((e) => stageOf(e.field) === 'payment');
  if (target === 'pay' && from === 'details' && onlyPayment) return { errors: [], stage: 'payment' };
  const blocking = errorsBefore(errors, target);
  if (blocking.length > 0) return { errors: blocking, status: 400 };
  if (target === 'pay') return { errors: [], stage: from, notice: { kind: 'info', text: placedNote() } };
  const offer = offerOf(found);
  const method = formMethod(offer, values.payment_method) ?? offer.first;
  const free = estimateTotal(values, found, method) === 0 || !found.organization.paymentsEnabled;
  return { errors: [], stage: target === 'payment' && free ? 'details' : target };
}

export function showCheckoutPreview(ctx: AppContext): Handler {
  return async (request, reply) => {
    const found = await previewedEvent(ctx, request);
    const now = ctx.clock.now();
    const at = previewMoment(found, now);
    const heldUntil = anyOnlyHeld(found, at)
      ? await firstHoldEnds(ctx.database.db, found.event.id, now)
      : undefined;
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const body = parseUrlEncoded(query);
    const language = pickLocale(body, request.headers['accept-language']);
    let status = 200;
    let page = '';
    // The checkout's words are in the language a buyer's browser would get (or the one chosen).
    runInLocale(language, () => {
      const values = formValues(found, body, at);
      const step = nextStep(found, values, body, at);
      status = step.status ?? 200;
      page = renderFormPreview({
        found,
        now: at,
        values,
        ...(heldUntil && { heldUntil }),
        ...step,
        stage: step.stage ?? firstErrorStage(step.errors) ?? 'tickets',
        action: `/events/${found.event.id}/preview`,
        hidden: language.chosen ? { lang: language.locale } : {},
        banner: previewBanner({
          event: found.event,
          shownAt: at === now ? null : at,
          locale: language.locale,
        }),
        titlePrefix: PREVIEW_TITLE_PREFIX,
      });
    });
    reply.header('Content-Security-Policy', PREVIEW_CONTENT_SECURITY_POLICY);
    return sendPage(reply, status, page);
  };
}
