// An event's tickets at once, for the check-in roster: every confirmed runner of the event gets
// theirs (orders confirmed without a mail built yet have none), then all are read by registration.
import { eq, inArray } from 'drizzle-orm';
import { confirmedRegistrations, rosterColumns, selectRoster } from '../orders/index.ts';
import type { Executor } from '../platform/index.ts';
import { newTicketRow } from './issue-tickets.ts';
import { tickets } from './tickets.schema.ts';

export interface RegistrationTicket {
  registrationId: string;
  code: string;
  token: string;
  status: 'valid' | 'void';
  eventId: string;
  organizationId: string;
}

const columns = {
  registrationId: tickets.registrationId,
  code: tickets.code,
  token: tickets.token,
  status: tickets.status,
  eventId: tickets.eventId,
  organizationId: tickets.organizationId,
};

/** The tickets of these registrations (void ones included), by registration id. */
export async function ticketsOfRegistrations(
  db: Executor,
  registrationIds: string[],
): Promise<Map<string, RegistrationTicket>> {
  if (registrationIds.length === 0) return new Map();
  const rows = await db.select(columns).from(tickets).where(inArray(tickets.registrationId, registrationIds));
  return new Map(rows.map((t) => [t.registrationId, t as RegistrationTicket]));
}

/**
 * Issues a ticket to each confirmed registration of the event's ticket types that has none (as
 * issueTickets does for an order: ON CONFLICT DO NOTHING keeps one per registration), then answers
 * every ticket of the event by registration id.
 */
export async function issueEventTickets(
  db: Executor,
  race: { organizationId: string; eventId: string; ticketTypeIds: string[] },
  now: Date,
): Promise<Map<string, RegistrationTicket>> {
  const have = async () => {
    const rows = await db.select(columns).from(tickets).where(eq(tickets.eventId, race.eventId));
    return new Map(rows.map((t) => [t.registrationId, t as RegistrationTicket]));
  };
  if (race.ticketTypeIds.length === 0) return new Map();
  let issued = await have();
  const runners = await selectRoster(
    db,
    { registrationId: rosterColumns.registrationId },
    race.organizationId,
  ).where(inArray(rosterColumns.ticketTypeId, race.ticketTypeIds));
  const missing = runners.map((r) => r.registrationId).filter((id) => !issued.has(id));
  if (missing.length === 0) return issued;
  for (let start = 0; start < missing.length; start += 1000) {
    const regs = await confirmedRegistrations(db, { registrationIds: missing.slice(start, start + 1000) });
    if (regs.length === 0) continue;
    await db
      .insert(tickets)
      .values(regs.map((r) => newTicketRow(r, now)))
      .onConflictDoNothing();
  }
  issued = await have();
  return issued;
}
