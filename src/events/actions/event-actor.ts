// The event an action acts on, found within the actor's organization (ActingOn).
import { withinReach, type ActingOn } from '../../audit/index.ts';
import type { Executor } from '../../platform/index.ts';
import { findEvent, type EventWithTickets } from '../events.ts';

export type { ActingOn };

export async function findEventFor(
  db: Executor,
  on: ActingOn,
  eventId: string,
): Promise<EventWithTickets | undefined> {
  const found = await findEvent(db, eventId);
  return found && withinReach(on, found.event) ? found : undefined;
}
