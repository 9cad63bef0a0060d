// PATCH /ticket-types/:id: changes a ticket type; its capacity cannot go below the tickets
// already paid or held (a conflict).
import type { AppContext } from '../../context.ts';
import { pricedMethodsOf } from '../../events/fees.ts';
import { findEvent, findTicketType, updateTicketType } from '../../events/events.ts';
import { ApiError, notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { assertId, errorResponses, IdParams, impossibleDates } from '../admin-schemas.ts';
import { salesWindowErrors, SALES_DATES, throwIfAny } from './event-admin-checks.ts';
import { AdminTicketTypeOut, TicketTypePatchIn, toAdminTicketType } from './event-admin.schema.ts';

export function updateTicketTypeRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.patch(
    '/ticket-types/:id',
    {
      schema: {
        params: IdParams,
        body: TicketTypePatchIn,
        response: {
          200: Envelope(AdminTicketTypeOut, 'Ticket type updated'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'tt', 'ticket type');
      const current = await findTicketType(db, request.params.id);
      if (!current) throw notFound('ticket type');
      const body = request.body;
      throwIfAny([
        ...impossibleDates(body, SALES_DATES),
        ...salesWindowErrors(body, { start: current.salesStart, end: current.salesEnd }),
      ]);
      const row = await updateTicketType(db, current.id, body);
      if (row === undefined) throw notFound('ticket type');
      if (row === 'capacity_below_sold') {
        const latest = (await findTicketType(db, current.id)) ?? current;
        throw new ApiError(
          'conflict',
          `capacity cannot be lower than the ${latest.paidCount + latest.heldCount} tickets already paid or held.`,
        );
      }
      const found = await findEvent(db, row.eventId);
      if (!found) throw notFound('ticket type');
      return envelope(
        200,
        'Ticket type updated',
        toAdminTicketType(row, found.event, found.organization, pricedMethodsOf(ctx)),
      );
    },
  );
}
