// The names a start list action's audit entries give the ticket types; the event itself is found
// within the actor's organization by the events module's findEventFor.
import type { ActingOn } from '../../audit/index.ts';
import type { RaceEvent } from '../race-event.ts';

export type { ActingOn };

export function ticketTypeNames(race: RaceEvent): Map<string, string> {
  return new Map(race.ticketTypes.map((t) => [t.id, t.name]));
}
