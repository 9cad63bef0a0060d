// Issuing an order's tickets and reading them back: one per confirmed registration of a paid order,
// each with its runner, ticket type and bib number (once the start list gives one).
import { and, asc, eq, inArray } from 'drizzle-orm';
import { confirmedRegistrations, type ConfirmedRegistration } from '../orders/index.ts';
import { newId, type Executor } from '../platform/index.ts';
import { bibNumbersOf } from '../startlists/index.ts';
import { newTicketCode, newTicketToken } from './ticket-codes.ts';
import { tickets } from './tickets.schema.ts';

type TicketRow = typeof tickets.$inferSelect;
type TicketStatus = 'valid' | 'void';

/** A ticket with what it is for: the runner, the ticket type, and the bib when one is given. */
export interface OrderTicket {
  id: string;
  code: string;
  token: string;
  status: TicketStatus;
  registrationId: string;
  participantName: string;
  ticketLabel: string;
  distanceKm: number;
  bib: number | null;
}

/**
 * A drawn code can collide with another ticket's (one in about 10^11 per pair): the insert skips
 * that row and the next round draws again. Three rounds failing means something else is wrong.
 */
const ISSUE_ROUNDS = 3;

/** The tickets of these registrations, in the registrations' order, with their bib numbers. */
async function withFacts(
  db: Executor,
  regs: ConfirmedRegistration[],
  rows: TicketRow[],
): Promise<OrderTicket[]> {
  // A transferred place has void tickets beside its valid one: the valid one stands for it.
  const byRegistration = new Map<string, TicketRow>();
  for (const t of rows) {
    const held = byRegistration.get(t.registrationId);
    if (!held || (held.status !== 'valid' && (t.status === 'valid' || t.createdAt > held.createdAt)))
      byRegistration.set(t.registrationId, t);
  }
  const bibs = await bibNumbersOf(
    db,
    regs.map((r) => r.registrationId),
  );
  return regs.flatMap((r) => {
    const t = byRegistration.get(r.registrationId);
    if (!t) return [];
    return [
      {
        id: t.id,
        code: t.code,
        token: t.token,
        status: t.status as TicketStatus,
        registrationId: r.registrationId,
        participantName: r.participantName,
        ticketLabel: r.ticketLabel,
        distanceKm: r.distanceKm,
        bib: bibs.get(r.registrationId) ?? null,
      },
    ];
  });
}

async function ticketRowsOf(db: Executor, registrationIds: string[]): Promise<TicketRow[]> {
  if (registrationIds.length === 0) return [];
  return db.select().from(tickets).where(inArray(tickets.registrationId, registrationIds));
}

/** A new valid ticket of a confirmed registration, with a fresh code and token. */
export function newTicketRow(r: ConfirmedRegistration, now: Date) {
  return {
    id: newId('tkt'),
    registrationId: r.registrationId,
    orderId: r.orderId,
    organizationId: r.organizationId,
    eventId: r.eventId,
    code: newTicketCode(),
    token: newTicketToken(),
    status: 'valid',
    createdAt: now,
  };
}

/**
 * Issues a ticket to each confirmed registration of the paid order that has none, and answers one
 * per registration (its valid ticket, else its latest void one). Safe to run any number of times
 * and at once: the partial unique index on registration_id keeps one valid ticket per registration
 * (INSERT ... ON CONFLICT DO NOTHING). An order that is not paid has no confirmed registrations, so
 * it gets nothing.
 */
export async function issueTickets(db: Executor, orderId: string, now: Date): Promise<OrderTicket[]> {
  const regs = await confirmedRegistrations(db, { orderId });
  const ids = regs.map((r) => r.registrationId);
  let rows = await ticketRowsOf(db, ids);
  for (let round = 0; round < ISSUE_ROUNDS; round++) {
    const have = new Set(rows.map((t) => t.registrationId));
    const missing = regs.filter((r) => !have.has(r.registrationId));
    if (missing.length === 0) break;
    await db
      .insert(tickets)
      .values(missing.map((r) => newTicketRow(r, now)))
      .onConflictDoNothing();
    rows = await ticketRowsOf(db, ids);
  }
  if (rows.length < regs.length) throw new Error(`tickets of order ${orderId} could not all be issued`);
  return withFacts(db, regs, rows);
}

/** The order's tickets as issued so far (one per registration, as issueTickets answers), without issuing any. */
export async function ticketsOfOrder(db: Executor, orderId: string): Promise<OrderTicket[]> {
  const regs = await confirmedRegistrations(db, { orderId });
  const rows = await db
    .select()
    .from(tickets)
    .where(eq(tickets.orderId, orderId))
    .orderBy(asc(tickets.createdAt), asc(tickets.id));
  return withFacts(db, regs, rows);
}

/** The valid ticket with this token, its registration still confirmed in a paid order; else null. */
export async function findValidTicket(
  db: Executor,
  token: string,
): Promise<{ ticket: OrderTicket; eventId: string; organizationId: string } | null> {
  const [row] = await db
    .select()
    .from(tickets)
    .where(and(eq(tickets.token, token), eq(tickets.status, 'valid')))
    .limit(1);
  if (!row) return null;
  const regs = await confirmedRegistrations(db, { registrationIds: [row.registrationId] });
  const [ticket] = await withFacts(db, regs, [row]);
  return ticket ? { ticket, eventId: row.eventId, organizationId: row.organizationId } : null;
}

/**
 * Whether the ticket of this token was voided by a transfer of its place (its registration holds a
 * newer valid ticket): the event it was for, to say so on its page without naming anyone.
 */
export async function findTransferredTicket(
  db: Executor,
  token: string,
): Promise<{ eventId: string } | null> {
  const [row] = await db
    .select()
    .from(tickets)
    .where(and(eq(tickets.token, token), eq(tickets.status, 'void')))
    .limit(1);
  if (!row) return null;
  const [replaced] = await db
    .select({ id: tickets.id })
    .from(tickets)
    .where(and(eq(tickets.registrationId, row.registrationId), eq(tickets.status, 'valid')))
    .limit(1);
  return replaced ? { eventId: row.eventId } : null;
}
