// Publishes, closes or cancels an event, audited with where it came from. What each change may
// start from is stated here, so a confirmation page and the write refuse the same cases; the
// status is read again under the event's status lock, so two changes at once cannot both pass.
import { sql } from 'drizzle-orm';
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome } from '../../platform/index.ts';
import { findEvent, patchEvent, type EventRow } from '../events.ts';
import { findEventFor, type ActingOn } from './event-actor.ts';

const STATUS_CHANGES = {
  publish: { to: 'open', from: ['draft', 'closed'] },
  close: { to: 'closed', from: ['open'] },
  /** for good: nothing leaves cancelled */
  cancel: { to: 'cancelled', from: ['draft', 'open', 'closed'] },
} as const satisfies Record<string, { to: string; from: readonly string[] }>;
export type StatusChange = keyof typeof STATUS_CHANGES;
export const STATUS_CHANGE_NAMES = Object.keys(STATUS_CHANGES) as StatusChange[];

/** Whether `change` may be made to an event whose status is `status`. */
export function statusChangeAllowed(change: StatusChange, status: string): boolean {
  return (STATUS_CHANGES[change].from as readonly string[]).includes(status);
}

/** First key of the two-key advisory lock on an event's status (the ASCII of "Stat"). */
const STATUS_LOCK_CLASS = 0x53746174;

export interface ChangeEventStatusOptions extends ActingOn {
  eventId: string;
  change: StatusChange;
}

export interface StatusNotAllowed {
  refused: 'status_not_allowed';
  /** the status the event has, from which the change may not be made */
  from: string;
}

export async function changeEventStatus(
  ctx: AppContext,
  { eventId, change, ...on }: ChangeEventStatusOptions,
): Promise<Outcome<EventRow, StatusNotAllowed>> {
  const found = await findEventFor(ctx.database.db, on, eventId);
  if (!found) return notThere;
  const { to } = STATUS_CHANGES[change];
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx): Promise<Outcome<EventRow, StatusNotAllowed>> => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${STATUS_LOCK_CLASS}::int, hashtext(${eventId}))`);
    const from = (await findEvent(tx, eventId))?.event.status ?? found.event.status;
    if (!statusChangeAllowed(change, from)) return { refused: 'status_not_allowed', from };
    const row = await patchEvent(tx, eventId, { status: to }, now);
    if (!row) return notThere;
    await recordAudit(
      tx,
      {
        organizationId: row.organizationId,
        actor: on.actor,
        action: 'event.status_changed',
        targetType: 'event',
        targetId: eventId,
        details: { from, to },
      },
      now,
    );
    return { done: row };
  });
}
