// POST /events/:id/ticket-types: adds a ticket type; its sales window defaults to the event's
// registration window and must not be empty.
import type { AppContext } from '../../context.ts';
import { pricedMethodsOf } from '../../events/fees.ts';
import { addTicketType, findEvent } from '../../events/events.ts';
import { notFound } from '../../platform/errors.ts';
import { send, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { assertId, errorResponses, IdParams, impossibleDates } from '../admin-schemas.ts';
import { salesWindowErrors, SALES_DATES, throwIfAny } from './event-admin-checks.ts';
import { AdminTicketTypeOut, TicketTypeIn, toAdminTicketType } from './event-admin.schema.ts';

export function addTicketTypeRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.post(
    '/events/:id/ticket-types',
    {
      schema: {
        params: IdParams,
        body: TicketTypeIn,
        response: {
          201: Envelope(AdminTicketTypeOut, 'Ticket type created'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'evt', 'event');
      const found = await findEvent(db, request.params.id);
      if (!found) throw notFound('event');
      const body = request.body;
      throwIfAny([
        ...impossibleDates(body, SALES_DATES),
        ...salesWindowErrors(body, { start: found.event.regOpensAt, end: found.event.regClosesAt }),
      ]);
      const row = await addTicketType(db, found.event, body);
      return send(
        reply,
        201,
        'Ticket type created',
        toAdminTicketType(row, found.event, found.organization, pricedMethodsOf(ctx)),
      );
    },
  );
}
