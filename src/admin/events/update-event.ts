// PATCH /events/:id: changes any event field; the cross-field rules run on the fields sent merged
// over the stored event. Ticket types change through their own routes.
import type { AppContext } from '../../context.ts';
import { pricedMethodsOf } from '../../events/fees.ts';
import { checkEventRules } from '../../events/event-rules.ts';
import { findEvent, updateEvent, type EventPatch, type EventWithTickets } from '../../events/events.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { assertId, errorResponses, IdParams, impossibleDates, isUniqueViolation } from '../admin-schemas.ts';
import { EVENT_DATES, handleTaken, throwIfAny, toQuestions } from './event-admin-checks.ts';
import { AdminEventOut, EventPatchIn, toAdminEvent } from './event-admin.schema.ts';

export function updateEventRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.patch(
    '/events/:id',
    {
      schema: {
        params: IdParams,
        body: EventPatchIn,
        response: { 200: Envelope(AdminEventOut, 'Event updated'), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'evt', 'event');
      const current = await findEvent(db, request.params.id);
      if (!current) throw notFound('event');
      const body = request.body;
      const patch: EventPatch = { ...body, additional_questions: toQuestions(body.additional_questions) };
      const ev = current.event;
      const date = (value: string | undefined, fallback: Date) =>
        value === undefined ? fallback : new Date(value);
      throwIfAny([
        ...impossibleDates(body, EVENT_DATES),
        ...checkEventRules(patch, {
          startsAt: date(patch.starts_at, ev.startsAt),
          endsAt: date(patch.ends_at, ev.endsAt),
          regOpensAt: date(patch.reg_opens_at, ev.regOpensAt),
          regClosesAt: date(patch.reg_closes_at, ev.regClosesAt),
          waiverRequired: patch.waiver_required ?? ev.waiverRequired,
          waiverVersion: patch.waiver_version ?? ev.waiverVersion,
        }),
      ]);
      let found: EventWithTickets | undefined;
      try {
        found = await ctx.database.transaction(async (tx) => {
          await updateEvent(tx, ev.id, patch, ctx.clock.now());
          return findEvent(tx, ev.id);
        });
      } catch (error) {
        if (isUniqueViolation(error, 'events_org_handle_key')) throw handleTaken(patch.handle);
        throw error;
      }
      if (!found) throw notFound('event');
      return envelope(200, 'Event updated', toAdminEvent(found, pricedMethodsOf(ctx)));
    },
  );
}
