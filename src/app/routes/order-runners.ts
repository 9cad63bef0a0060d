// GET and POST /orders/:orderId/runners/:registrationId/correct and .../transfer: the forms that
// correct a runner's details and transfer a place to another person (owners and admins: the
// `runners` permission). Each POST reads the form, calls the one action (orders' correctRunner,
// tickets' transferPlace, then the transfer's mails) and either goes back to the order page or
// shows the form again with each problem next to its field. Another organization's order, or a
// registration not of this order, is the same 404 page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { mailTransfer } from '../../confirmations/index.ts';
import { findEvent, type AdditionalQuestion, type EventWithTickets } from '../../events/index.ts';
import {
  correctRunner,
  findOrder,
  registrationsOf,
  type OrderRow,
  type RegistrationRow,
} from '../../orders/index.ts';
import type { FieldError, Refusal } from '../../platform/index.ts';
import { transferPlace } from '../../tickets/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { paramsOf, RunnerParams } from '../app-input.ts';
import { formOf, type FieldErrors, type FormBody } from '../form-body.ts';
import { actingOf, actorOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderRunnerForm, type RunnerFormKind } from '../views/runner-forms.ts';

interface Place {
  order: OrderRow;
  registration: RegistrationRow;
  found: EventWithTickets;
  minAge: number;
}

/** The order and its registration within the member's organization; else the 404 page. */
async function placeOf(ctx: AppContext, request: FastifyRequest): Promise<Place> {
  const { orderId, registrationId } = paramsOf(request, RunnerParams);
  const db = ctx.database.db;
  const order = await findOrder(db, memberOf(request).organizationId, orderId);
  if (!order) throw new PageError('not_found', 'order');
  const registration = (await registrationsOf(db, [order.id]))
    .get(order.id)
    ?.find((r) => r.id === registrationId);
  const found = await findEvent(db, order.eventId);
  if (!registration || !found) throw new PageError('not_found', 'runner');
  const minAge = found.ticketTypes.find((t) => t.id === registration.ticketTypeId)?.minAge ?? 0;
  return { order, registration, found, minAge };
}

/** The form's values for the stored runner (the correction's starting point). */
function storedValues(reg: RegistrationRow): Record<string, string> {
  const values: Record<string, string> = {
    participant_name: reg.participantName,
    date_of_birth: reg.dateOfBirth ?? '',
  };
  for (const [key, value] of Object.entries(reg.answers)) values[`answers.${key}`] = value;
  return values;
}

/** Each text the form sends, at most this long: the action's own rules say more (500 for answers). */
const FIELD_MAX = 1000;

function readRunnerForm(body: FormBody, kind: RunnerFormKind, questions: AdditionalQuestion[]) {
  const take = (name: string) => (body.get(name) ?? '').slice(0, FIELD_MAX);
  const values: Record<string, string> = {
    participant_name: take('participant_name').trim(),
    date_of_birth: take('date_of_birth').trim(),
  };
  const answers: Record<string, string> = {};
  for (const q of questions) {
    const value = take(`answers.${q.key}`).trim();
    values[`answers.${q.key}`] = value;
    if (value !== '') answers[q.key] = value;
  }
  if (kind === 'transfer') {
    values.email = take('email').trim();
    values.phone = take('phone').trim();
  }
  const details = {
    participant_name: values.participant_name!,
    date_of_birth: values.date_of_birth || undefined,
    answers,
  };
  return { values, details };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** An action's field error as the sentence the form shows next to the field. */
function sentence(e: FieldError, questions: AdditionalQuestion[]): string {
  if (e.field === 'participant_name') {
    return e.message === 'is required' ? "Enter the runner's full name." : `Full name ${e.message}.`;
  }
  if (e.field === 'date_of_birth') {
    if (e.message.startsWith('is required'))
      return `Enter the date of birth${e.message.slice('is required'.length)}.`;
    if (e.message.startsWith('must be a date'))
      return `Enter the date of birth as a real date, from 1900-01-01 to today.`;
    return `${capitalized(e.message.replace('the participant', 'the runner'))}.`;
  }
  if (e.field === 'email') return "Enter the new runner's email address, such as name@example.org.";
  if (e.field === 'phone') return 'Enter a Ugandan mobile number such as 0772 123456, or leave it empty.';
  const key = e.field.startsWith('answers.') ? e.field.slice('answers.'.length) : null;
  const q = questions.find((x) => x.key === key);
  if (q) {
    if (e.message.startsWith('is required')) return `Answer "${q.label}".`;
    if (e.message.startsWith('must be one of'))
      return `Choose "${q.label}" from the list: ${q.options.join(', ')}.`;
    return `"${q.label}" ${e.message}.`;
  }
  return `${capitalized(e.field.replace(/_/g, ' '))} ${e.message}.`;
}

/** A refusal as the form's field errors, or its message when it names no field. */
function refusalOf(
  refusal: Refusal,
  questions: AdditionalQuestion[],
): { errors: FieldErrors; problem: string | null } {
  if (refusal.refused === 'not_found') throw new PageError('not_found', 'runner');
  if (refusal.refused === 'conflict') return { errors: {}, problem: refusal.message };
  const errors: FieldErrors = {};
  for (const e of refusal.errors) {
    // the form's names are the action's fields (answers.<key> included)
    errors[e.field] ??= sentence(e, questions);
  }
  return { errors, problem: null };
}

async function sendForm(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    kind: RunnerFormKind;
    place: Place;
    status: number;
    values: Record<string, string>;
    errors?: FieldErrors;
    problem?: string | null;
  },
) {
  const { place } = options;
  const viewer = await viewerOf(ctx, request);
  return sendPage(
    reply,
    options.status,
    renderRunnerForm({
      viewer,
      kind: options.kind,
      order: place.order,
      registration: place.registration,
      event: place.found.event,
      minAge: place.minAge,
      values: options.values,
      errors: options.errors ?? {},
      problem: options.problem ?? null,
    }),
  );
}

export function showRunnerForm(ctx: AppContext, kind: RunnerFormKind): Handler {
  return async (request, reply) => {
    const place = await placeOf(ctx, request);
    const values = kind === 'correct' ? storedValues(place.registration) : {};
    return sendForm(ctx, request, reply, { kind, place, status: 200, values });
  };
}

export function submitCorrection(ctx: AppContext): Handler {
  return async (request, reply) => {
    const place = await placeOf(ctx, request);
    const questions = place.found.event.additionalQuestions;
    const { values, details } = readRunnerForm(formOf(request.body), 'correct', questions);
    const outcome = await correctRunner(ctx, {
      ...actingOf(request),
      registrationId: place.registration.id,
      details,
    });
    if (!('done' in outcome)) {
      const { errors, problem } = refusalOf(outcome, questions);
      const status = problem ? 409 : 422;
      return sendForm(ctx, request, reply, { kind: 'correct', place, status, values, errors, problem });
    }
    return seeOther(reply, `/orders/${place.order.id}?runner=corrected`);
  };
}

export function submitTransfer(ctx: AppContext): Handler {
  return async (request, reply) => {
    const place = await placeOf(ctx, request);
    const questions = place.found.event.additionalQuestions;
    const { values, details } = readRunnerForm(formOf(request.body), 'transfer', questions);
    const outcome = await transferPlace(ctx, {
      ...actingOf(request),
      registrationId: place.registration.id,
      runner: { ...details, email: values.email!, phone: values.phone },
    });
    if (!('done' in outcome)) {
      const { errors, problem } = refusalOf(outcome, questions);
      const status = problem ? 409 : 422;
      return sendForm(ctx, request, reply, { kind: 'transfer', place, status, values, errors, problem });
    }
    const mails = await mailTransfer(ctx, outcome.done, actorOf(request));
    const sent = mails.every((m) => m.outcome === 'sent');
    return seeOther(
      reply,
      `/orders/${place.order.id}?runner=${sent ? 'transferred' : 'transferred_mail_failed'}`,
    );
  };
}
