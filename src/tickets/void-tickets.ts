// Voiding the tickets of places that went back (a refund returned them): each registration's
// valid ticket becomes void, so its page and the check-in roster no longer take it. Issuing never
// replaces it, since only confirmed registrations are issued tickets.
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { tickets } from './tickets.schema.ts';

/** Voids the valid tickets of these registrations; answers the codes voided. */
export async function voidTickets(db: Executor, registrationIds: string[]): Promise<string[]> {
  if (registrationIds.length === 0) return [];
  const voided = await db
    .update(tickets)
    .set({ status: 'void' })
    .where(and(inArray(tickets.registrationId, registrationIds), eq(tickets.status, 'valid')))
    .returning({ code: tickets.code });
  return voided.map((t) => t.code);
}
