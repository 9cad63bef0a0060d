// Gives a bib number to every paid runner of the event still without one, from their ticket type's
// range, audited with how many each type got and how many are left waiting (no range, or full).
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome } from '../../platform/index.ts';
import { giveBibNumbers, lockEventBibs, type TypeAssignment } from '../bib-numbers.ts';
import { findEventFor } from '../../events/index.ts';
import { ticketTypeNames, type ActingOn } from './race-actor.ts';

export interface AssignBibsOptions extends ActingOn {
  eventId: string;
}

export async function assignBibs(
  ctx: AppContext,
  { eventId, ...on }: AssignBibsOptions,
): Promise<Outcome<TypeAssignment[]>> {
  const race = await findEventFor(ctx.database.db, on, eventId);
  if (!race) return notThere;
  const nameOf = ticketTypeNames(race);
  const now = ctx.clock.now();
  const results = await ctx.database.transaction(async (tx) => {
    await lockEventBibs(tx, race.event.id);
    const done = await giveBibNumbers(tx, race, now);
    await recordAudit(
      tx,
      {
        organizationId: race.event.organizationId,
        actor: on.actor,
        action: 'event.bibs_assigned',
        targetType: 'event',
        targetId: race.event.id,
        details: {
          assigned: done.reduce((sum, r) => sum + r.assigned, 0),
          ticket_types: done.map((r) => ({
            ticket_type: nameOf.get(r.ticketTypeId),
            assigned: r.assigned,
            without_number: r.left,
          })),
        },
      },
      now,
    );
    return done;
  });
  return { done: results };
}
