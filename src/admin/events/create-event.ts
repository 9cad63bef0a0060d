// POST /organizations/:id/events: creates an event and its ticket types (events/actions/), after
// the wire checks of its dates; a handle the organization already uses is a conflict.
import type { AppContext } from '../../context.ts';
import { createEvent, type EventInput } from '../../events/index.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, notFound, refusalError, send, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, impossibleDates } from '../admin-schemas.ts';
import { EVENT_DATES, SALES_DATES, throwIfAny, toQuestions } from './event-admin-checks.ts';
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
      throwIfAny([
        ...impossibleDates(body, EVENT_DATES),
        ...input.ticket_types.flatMap((tt, i) => impossibleDates(tt, SALES_DATES, `ticket_types[${i}].`)),
      ]);
      const outcome = await createEvent(ctx, { actor: operatorOf(request), organizationId: org.id, input });
      if (!('done' in outcome)) throw refusalError(outcome, 'organization');
      return send(reply, 201, 'Event created', toAdminEvent(outcome.done, ctx.paymentMethods));
    },
  );
}
