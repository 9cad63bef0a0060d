// Adds a ticket type to an event, audited; its sales window defaults to the event's registration
// window and must not be empty.
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import { salesWindowErrors, ticketPriceErrors } from '../event-rules.ts';
import {
  insertTicketType,
  type EventWithTickets,
  type TicketTypeInput,
  type TicketTypeRow,
} from '../events.ts';
import { findEventFor, type ActingOn } from './event-actor.ts';

export interface AddTicketTypeOptions extends ActingOn {
  eventId: string;
  input: TicketTypeInput;
}

export async function addTicketType(
  ctx: AppContext,
  { eventId, input, ...on }: AddTicketTypeOptions,
): Promise<Outcome<{ ticketType: TicketTypeRow; found: EventWithTickets }>> {
  const found = await findEventFor(ctx.database.db, on, eventId);
  if (!found) return notThere;
  const { event } = found;
  const errors = [
    ...ticketPriceErrors([input], () => 'price_minor', event.currency),
    ...salesWindowErrors(input, { start: event.regOpensAt, end: event.regClosesAt }),
  ];
  if (errors.length > 0) return invalid(errors);
  const now = ctx.clock.now();
  const ticketType = await ctx.database.transaction(async (tx) => {
    const row = await insertTicketType(tx, event, input);
    await recordAudit(tx, ticketTypeAudit(on, row, 'ticket_type.created'), now);
    return row;
  });
  return { done: { ticketType, found } };
}

/** The audit entry of a ticket type's creation or change: what a buyer sees of it. */
export function ticketTypeAudit(
  on: ActingOn,
  row: TicketTypeRow,
  action: 'ticket_type.created' | 'ticket_type.updated',
) {
  return {
    organizationId: row.organizationId,
    actor: on.actor,
    action,
    targetType: 'ticket_type' as const,
    targetId: row.id,
    details: { event_id: row.eventId, name: row.name, price_minor: row.priceMinor, capacity: row.capacity },
  };
}
