// PATCH /events/:id: changes any event field (events/actions/); the cross-field rules run on the
// fields sent merged over the stored event. Ticket types change through their own routes.
import type { AppContext } from '../../context.ts';
import { updateEvent } from '../../events/index.ts';
import { Envelope, envelope, refusalError, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, impossibleDates } from '../admin-schemas.ts';
import { EVENT_DATES, throwIfAny, toQuestions } from './event-admin-checks.ts';
import { AdminEventOut, EventPatchIn, toAdminEvent } from './event-admin.schema.ts';

export function updateEventRoute(admin: Host, ctx: AppContext): void {
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
      const body = request.body;
      throwIfAny(impossibleDates(body, EVENT_DATES));
      const outcome = await updateEvent(ctx, {
        actor: operatorOf(request),
        eventId: request.params.id,
        patch: { ...body, additional_questions: toQuestions(body.additional_questions) },
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'event');
      return envelope(200, 'Event updated', toAdminEvent(outcome.done, ctx.paymentMethods));
    },
  );
}
