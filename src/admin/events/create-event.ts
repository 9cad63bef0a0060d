// POST /organizations/:id/events: creates an event and its ticket types in one transaction, after
// the field and cross-field checks; a handle the organization already uses is a conflict.
import type { AppContext } from '../../context.ts';
import { pricedMethodsOf } from '../../events/fees.ts';
import { checkEventRules } from '../../events/event-rules.ts';
import { createEvent, findEvent, type EventInput, type EventWithTickets } from '../../events/events.ts';
import { findOrganization } from '../../organizations/organizations.ts';
import { notFound } from '../../platform/errors.ts';
import { send, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { assertId, errorResponses, IdParams, impossibleDates, isUniqueViolation } from '../admin-schemas.ts';
import {
  EVENT_DATES,
  handleTaken,
  salesWindowErrors,
  SALES_DATES,
  throwIfAny,
  toQuestions,
} from './event-admin-checks.ts';
import { AdminEventOut, EventCreateIn, toAdminEvent } from './event-admin.schema.ts';

export function createEventRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.post(
    '/organizations/:id/events',
    {
      schema: {
        params: IdParams,
        body: EventCreateIn,
        response: { 201: Envelope(AdminEventOut, 'Event created'), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const body = request.body;
      const input: EventInput = {
        ...body,
        additional_questions: toQuestions(body.additional_questions),
        ticket_types: body.ticket_types ?? [],
      };
      const regWindow = { start: new Date(input.reg_opens_at), end: new Date(input.reg_closes_at) };
      throwIfAny([
        ...impossibleDates(body, EVENT_DATES),
        ...input.ticket_types.flatMap((tt, i) => impossibleDates(tt, SALES_DATES, `ticket_types[${i}].`)),
        ...checkEventRules(input, {
          startsAt: new Date(input.starts_at),
          endsAt: new Date(input.ends_at),
          regOpensAt: regWindow.start,
          regClosesAt: regWindow.end,
          waiverRequired: input.waiver_required ?? false,
          waiverVersion: input.waiver_version ?? '',
        }),
        ...input.ticket_types.flatMap((tt, i) => salesWindowErrors(tt, regWindow, `ticket_types[${i}].`)),
      ]);
      let found: EventWithTickets | undefined;
      try {
        found = await ctx.database.transaction(async (tx) => {
          const event = await createEvent(tx, org.id, input);
          return findEvent(tx, event.id);
        });
      } catch (error) {
        if (isUniqueViolation(error, 'events_org_handle_key')) throw handleTaken(input.handle);
        throw error;
      }
      return send(reply, 201, 'Event created', toAdminEvent(found!, pricedMethodsOf(ctx)));
    },
  );
}
