// The event an action acts on, found within the actor's organization (ActingOn).
import type { ActingOn } from '../../audit/audit-log.ts';
import type { Executor } from '../../platform/db.ts';
import { findEvent, type EventWithTickets } from '../events.ts';

export type { ActingOn };

export async function findEventFor(
  db: Executor,
  on: ActingOn,
  eventId: string,
): Promise<EventWithTickets | undefined> {
  const found = await findEvent(db, eventId);
  if (!found) return undefined;
  if (on.organizationId !== undefined && found.event.organizationId !== on.organizationId) return undefined;
  return found;
}
