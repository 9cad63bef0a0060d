// Events in the organizer app: the event page (every member), creating and editing an event and
// its ticket types, and publishing, closing or cancelling it after a confirmation page (owners
// and admins). Every read and write finds the event within the member's organization; each write
// is an action of the events module (events/actions/), which audits it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  addTicketType,
  changeEventStatus,
  createEvent,
  methodFee,
  suggestHandle,
  updateEvent,
  updateTicketType,
} from '../../events/index.ts';
import { can } from '../../members/index.ts';
import { findOrganization } from '../../organizations/index.ts';
import { methodName } from '../../payments/index.ts';
import { methodsForCurrency, type FieldError, type Refusal } from '../../platform/index.ts';
import { findRaceEvent, type RaceEvent } from '../../startlists/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf } from '../form-body.ts';
import { actorOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  renderEventForm,
  renderEventPage,
  renderStatusPage,
  type TicketTypeForm,
} from '../views/event-pages.ts';
import { eventValues, readEventForm, readTicketTypeForm, type FormState } from './event-form.ts';
import { refusalOf, type StatusAction } from './event-status.ts';
import { DoneQuery, EventParams, TicketTypeParams, paramsOf, queryOf } from '../app-input.ts';

async function eventOf(ctx: AppContext, request: FastifyRequest): Promise<RaceEvent> {
  const { eventId } = paramsOf(request, EventParams);
  const race = await findRaceEvent(ctx.database.db, memberOf(request).organizationId, eventId);
  if (!race) throw new PageError('not_found', 'event');
  return race;
}

async function sendEventPage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  race: RaceEvent,
  status: number,
  form: TicketTypeForm | null,
) {
  const viewer = await viewerOf(ctx, request);
  const { done } = queryOf(request, DoneQuery);
  const organization = await findOrganization(ctx.database.db, race.event.organizationId);
  const optedIn = organization?.optedInMethods;
  const pricing = methodsForCurrency(race.event.currency, ctx.paymentMethods, optedIn).map((method) => ({
    name: methodName(method.key),
    ...methodFee(organization?.fees ?? {}, method),
  }));
  return sendPage(
    reply,
    status,
    renderEventPage({
      viewer,
      race,
      canManage: can(viewer.current.role, 'events'),
      done: form ? null : (done ?? null),
      form,
      pricing,
    }),
  );
}

export function showEvent(ctx: AppContext): Handler {
  return async (request, reply) => sendEventPage(ctx, request, reply, await eventOf(ctx, request), 200, null);
}

export function showNewEvent(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    // a new event starts in the organization's time zone and currency (its settings page)
    const organization = await findOrganization(ctx.database.db, viewer.current.organizationId);
    const values = {
      timezone: organization?.timezone ?? 'Africa/Kampala',
      currency: organization?.currency ?? 'UGX',
      visibility: 'public',
      donations_enabled: 'yes',
    };
    const form: FormState = { values, errors: {} };
    return sendPage(reply, 200, renderEventForm({ viewer, event: null, form }));
  };
}

export function createEventRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { values, errors, input } = readEventForm(formOf(request.body));
    if (!input) {
      const viewer = await viewerOf(ctx, request);
      return sendPage(reply, 422, renderEventForm({ viewer, event: null, form: { values, errors } }));
    }
    const { organizationId } = memberOf(request);
    const handle = input.handle ?? (await suggestHandle(ctx.database.db, organizationId, input.name));
    const outcome = await createEvent(ctx, {
      actor: actorOf(request),
      organizationId,
      input: { ...input, handle, ticket_types: [] },
    });
    if (!('done' in outcome)) {
      const viewer = await viewerOf(ctx, request);
      const form = {
        values,
        errors: { ...errors, ...(await formErrorsWithHandle(ctx, organizationId, outcome, handle)) },
      };
      return sendPage(reply, 422, renderEventForm({ viewer, event: null, form }));
    }
    const event = outcome.done.event;
    return seeOther(reply, `/events/${event.id}?done=created`);
  };
}

export function showEditEvent(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await eventOf(ctx, request);
    const viewer = await viewerOf(ctx, request);
    const form: FormState = { values: eventValues(race.event), errors: {} };
    return sendPage(reply, 200, renderEventForm({ viewer, event: race.event, form }));
  };
}

/**
 * A refusal of an event action as the form's field errors, by the form's field names (which are
 * the API's); a refusal that names no field is said at the form's first field.
 */
function formErrors(refusal: Refusal, prefix = ''): Record<string, string> {
  if (refusal.refused === 'not_found') throw new PageError('not_found', 'event');
  const errors: FieldError[] =
    refusal.refused === 'invalid'
      ? refusal.errors
      : [{ field: refusal.field ?? 'name', message: refusal.message }];
  return Object.fromEntries(errors.map((e) => [`${prefix}${e.field}`, sentence(e.message, e.field)]));
}

/** The form's errors, the web address `taken` by another event with a free one to use instead. */
async function formErrorsWithHandle(
  ctx: AppContext,
  organizationId: string,
  refusal: Refusal,
  taken: string | undefined,
) {
  const errors = formErrors(refusal);
  if (refusal.refused === 'conflict' && refusal.field === 'handle' && taken) {
    const free = await suggestHandle(ctx.database.db, organizationId, taken);
    errors.handle = `Another of your events uses ${taken}; ${free} is free.`;
  }
  return errors;
}

/** An action's message ("must be after starts_at") as the sentence a form shows. */
function sentence(message: string, field: string): string {
  return /^[A-Z]/.test(message)
    ? message
    : `${field.replace(/_/g, ' ')} ${message}.`.replace(/^./, (c) => c.toUpperCase());
}

export function updateEventRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await eventOf(ctx, request);
    const { values, errors, input } = readEventForm(formOf(request.body));
    if (!input) {
      const viewer = await viewerOf(ctx, request);
      return sendPage(reply, 422, renderEventForm({ viewer, event: race.event, form: { values, errors } }));
    }
    const outcome = await updateEvent(ctx, {
      actor: actorOf(request),
      organizationId: race.event.organizationId,
      eventId: race.event.id,
      patch: input,
    });
    if (!('done' in outcome)) {
      const viewer = await viewerOf(ctx, request);
      const refused = await formErrorsWithHandle(ctx, race.event.organizationId, outcome, input.handle);
      const form = { values, errors: { ...errors, ...refused } };
      return sendPage(reply, 422, renderEventForm({ viewer, event: race.event, form }));
    }
    return seeOther(reply, `/events/${race.event.id}?done=updated`);
  };
}

export function addTicketTypeRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await eventOf(ctx, request);
    const state = readTicketTypeForm(formOf(request.body), race.event, 'new_');
    if (!state.input) {
      return sendEventPage(ctx, request, reply, race, 422, { ticketTypeId: null, ...state });
    }
    const outcome = await addTicketType(ctx, {
      actor: actorOf(request),
      organizationId: race.event.organizationId,
      eventId: race.event.id,
      input: state.input,
    });
    if (!('done' in outcome)) {
      const errors = { ...state.errors, ...formErrors(outcome, 'new_') };
      return sendEventPage(ctx, request, reply, race, 422, {
        ticketTypeId: null,
        values: state.values,
        errors,
      });
    }
    return seeOther(reply, `/events/${race.event.id}?done=ticket_type_added`);
  };
}

export function updateTicketTypeRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await eventOf(ctx, request);
    const { ticketTypeId } = paramsOf(request, TicketTypeParams);
    const current = race.ticketTypes.find((t) => t.id === ticketTypeId);
    if (!current) throw new PageError('not_found', 'ticket type');
    const prefix = `${current.id}_`;
    const state = readTicketTypeForm(formOf(request.body), race.event, prefix);
    const again = (s: FormState) =>
      sendEventPage(ctx, request, reply, race, 422, { ticketTypeId: current.id, ...s });
    if (!state.input) return again(state);
    const outcome = await updateTicketType(ctx, {
      actor: actorOf(request),
      organizationId: race.event.organizationId,
      ticketTypeId: current.id,
      patch: state.input,
    });
    if (!('done' in outcome)) {
      if (outcome.refused !== 'capacity_below_taken') {
        if (outcome.refused === 'not_found') throw new PageError('not_found', 'ticket type');
        return again({ values: state.values, errors: formErrors(outcome, prefix) });
      }
      return again({
        values: state.values,
        errors: {
          [`${prefix}capacity`]: `Enter at least ${outcome.taken}: that many places are already paid for or held.`,
        },
      });
    }
    return seeOther(reply, `/events/${race.event.id}?done=ticket_type_updated`);
  };
}

export function confirmStatus(ctx: AppContext, action: StatusAction): Handler {
  return async (request, reply) => {
    const race = await eventOf(ctx, request);
    const viewer = await viewerOf(ctx, request);
    const refusal = refusalOf(action, race.event.status);
    return sendPage(
      reply,
      refusal ? 409 : 200,
      renderStatusPage({ viewer, event: race.event, action, refusal }),
    );
  };
}

export function changeStatus(ctx: AppContext, action: StatusAction): Handler {
  return async (request, reply) => {
    const race = await eventOf(ctx, request);
    const outcome = await changeEventStatus(ctx, {
      actor: actorOf(request),
      organizationId: race.event.organizationId,
      eventId: race.event.id,
      change: action,
    });
    if (!('done' in outcome)) {
      if (outcome.refused !== 'status_not_allowed') throw new PageError('not_found', 'event');
      const viewer = await viewerOf(ctx, request);
      const event = { ...race.event, status: outcome.from };
      const refusal = refusalOf(action, outcome.from);
      return sendPage(reply, 409, renderStatusPage({ viewer, event, action, refusal }));
    }
    return seeOther(reply, `/events/${race.event.id}?done=${action}`);
  };
}
