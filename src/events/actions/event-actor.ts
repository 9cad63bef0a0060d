// Who an event action acts for, and where: an organizer member within their organization, or the
// operator (admin API, CLI) in any. Another organization's event is not found.
import type { Actor } from '../../audit/audit-log.ts';
import type { Executor } from '../../platform/db.ts';
import { findEvent, type EventWithTickets } from '../events.ts';

export interface ActingOn {
  actor: Actor;
  /** the member's organization; absent for the operator, who acts in every organization */
  organizationId?: string;
}

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
