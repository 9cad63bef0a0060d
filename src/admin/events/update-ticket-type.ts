// PATCH /ticket-types/:id: changes a ticket type; its capacity cannot go below the tickets
// already paid or held (a conflict).
import type { AppContext } from '../../context.ts';
import { updateTicketType } from '../../events/index.ts';
import { ApiError, Envelope, envelope, refusalError, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, impossibleDates } from '../admin-schemas.ts';
import { SALES_DATES, throwIfAny } from './event-admin-checks.ts';
import { AdminTicketTypeOut, TicketTypePatchIn, toAdminTicketType } from './event-admin.schema.ts';

export function updateTicketTypeRoute(admin: Host, ctx: AppContext): void {
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
      throwIfAny(impossibleDates(request.body, SALES_DATES));
      const outcome = await updateTicketType(ctx, {
        actor: operatorOf(request),
        ticketTypeId: request.params.id,
        patch: request.body,
      });
      if (!('done' in outcome)) {
        if (outcome.refused !== 'capacity_below_taken') throw refusalError(outcome, 'ticket type');
        throw new ApiError(
          'conflict',
          `capacity cannot be lower than the ${outcome.taken} tickets already paid or held.`,
        );
      }
      const { ticketType, found } = outcome.done;
      return envelope(
        200,
        'Ticket type updated',
        toAdminTicketType(ticketType, found.event, found.organization, ctx.paymentMethods),
      );
    },
  );
}
