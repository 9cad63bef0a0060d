// The event whose start list an action changes, found within the actor's organization (ActingOn),
// and the names its audit entries give the ticket types.
import { withinReach, type ActingOn } from '../../audit/index.ts';
import { findEvent } from '../../events/index.ts';
import type { Executor } from '../../platform/index.ts';
import type { RaceEvent } from '../race-event.ts';

export type { ActingOn };

export async function findRaceEventFor(
  db: Executor,
  on: ActingOn,
  eventId: string,
): Promise<RaceEvent | undefined> {
  const found = await findEvent(db, eventId);
  const event = withinReach(on, found?.event);
  return event && found ? { event, ticketTypes: found.ticketTypes } : undefined;
}

export function ticketTypeNames(race: RaceEvent): Map<string, string> {
  return new Map(race.ticketTypes.map((t) => [t.id, t.name]));
}
