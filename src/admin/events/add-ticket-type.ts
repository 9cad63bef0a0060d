// POST /events/:id/ticket-types: adds a ticket type; its sales window defaults to the event's
// registration window and must not be empty.
import type { AppContext } from '../../context.ts';
import { addTicketType } from '../../events/index.ts';
import { Envelope, refusalError, send, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, impossibleDates } from '../admin-schemas.ts';
import { SALES_DATES, throwIfAny } from './event-admin-checks.ts';
import { AdminTicketTypeOut, TicketTypeIn, toAdminTicketType } from './event-admin.schema.ts';

export function addTicketTypeRoute(admin: Host, ctx: AppContext): void {
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
      throwIfAny(impossibleDates(request.body, SALES_DATES));
      const outcome = await addTicketType(ctx, {
        actor: operatorOf(request),
        eventId: request.params.id,
        input: request.body,
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'event');
      const { ticketType, found } = outcome.done;
      return send(
        reply,
        201,
        'Ticket type created',
        toAdminTicketType(ticketType, found.event, found.organization, ctx.paymentMethods),
      );
    },
  );
}
