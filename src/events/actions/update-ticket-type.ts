// Changes a ticket type, audited. Its capacity cannot go below the places already paid or held:
// that refusal carries how many, for each interface to say in its own words.
import { recordAudit, withinReach } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import { salesWindowErrors, ticketPriceErrors } from '../event-rules.ts';
import {
  findTicketType,
  patchTicketType,
  type EventWithTickets,
  type TicketTypePatch,
  type TicketTypeRow,
} from '../events.ts';
import { ticketTypeAudit } from './add-ticket-type.ts';
import { findEventFor, type ActingOn } from './event-actor.ts';

export interface UpdateTicketTypeOptions extends ActingOn {
  ticketTypeId: string;
  patch: TicketTypePatch;
}

export interface CapacityBelowTaken {
  refused: 'capacity_below_taken';
  /** places paid for or held when the change was refused */
  taken: number;
}

export async function updateTicketType(
  ctx: AppContext,
  { ticketTypeId, patch, ...on }: UpdateTicketTypeOptions,
): Promise<Outcome<{ ticketType: TicketTypeRow; found: EventWithTickets }, CapacityBelowTaken>> {
  const db = ctx.database.db;
  const current = withinReach(on, await findTicketType(db, ticketTypeId));
  if (!current) return notThere;
  const before = await findEventFor(db, on, current.eventId);
  if (!before) return notThere;
  const errors = [
    ...ticketPriceErrors([patch], () => 'price_minor', before.event.currency),
    ...salesWindowErrors(patch, { start: current.salesStart, end: current.salesEnd }),
  ];
  if (errors.length > 0) return invalid(errors);
  const now = ctx.clock.now();
  const row = await ctx.database.transaction(async (tx) => {
    const updated = await patchTicketType(tx, current.id, patch, before.event.currency);
    if (updated === undefined || updated === 'capacity_below_sold') return updated;
    await recordAudit(tx, ticketTypeAudit(on, updated, 'ticket_type.updated'), now);
    return updated;
  });
  if (row === undefined) return notThere;
  if (row === 'capacity_below_sold') {
    const latest = (await findTicketType(db, current.id)) ?? current;
    return { refused: 'capacity_below_taken', taken: latest.paidCount + latest.heldCount };
  }
  const found = await findEventFor(db, on, row.eventId);
  return found ? { done: { ticketType: row, found } } : notThere;
}
