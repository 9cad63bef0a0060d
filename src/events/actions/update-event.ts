// Changes an event's fields, audited with the names of the fields that changed. The cross-field
// rules run on the fields given merged over the stored event; ticket types change through their
// own actions.
import type { EventRow } from '../events.ts';
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, uniqueErrors, violates, type Outcome } from '../../platform/index.ts';
import { checkEventRules } from '../event-rules.ts';
import {
  EVENT_HANDLE_KEY,
  findEvent,
  patchEvent,
  type EventPatch,
  type EventWithTickets,
} from '../events.ts';
import { handleTaken } from './create-event.ts';
import { findEventFor, type ActingOn } from './event-actor.ts';

export interface UpdateEventOptions extends ActingOn {
  eventId: string;
  patch: EventPatch;
}

export async function updateEvent(
  ctx: AppContext,
  { eventId, patch, ...on }: UpdateEventOptions,
): Promise<Outcome<EventWithTickets>> {
  const current = await findEventFor(ctx.database.db, on, eventId);
  if (!current) return notThere;
  const stored = current.event;
  const date = (value: string | undefined, fallback: Date) =>
    value === undefined ? fallback : new Date(value);
  const errors = checkEventRules(patch, {
    startsAt: date(patch.starts_at, stored.startsAt),
    endsAt: date(patch.ends_at, stored.endsAt),
    regOpensAt: date(patch.reg_opens_at, stored.regOpensAt),
    regClosesAt: date(patch.reg_closes_at, stored.regClosesAt),
    waiverRequired: patch.waiver_required ?? stored.waiverRequired,
    waiverVersion: patch.waiver_version ?? stored.waiverVersion,
  });
  if (errors.length > 0) return invalid(uniqueErrors(errors));
  const now = ctx.clock.now();
  try {
    const updated = await ctx.database.transaction(async (tx) => {
      const row = await patchEvent(tx, stored.id, patch, now);
      if (!row) return undefined;
      await recordAudit(
        tx,
        {
          organizationId: stored.organizationId,
          actor: on.actor,
          action: 'event.updated',
          targetType: 'event',
          targetId: stored.id,
          details: { changed: changedFields(stored, row) },
        },
        now,
      );
      return findEvent(tx, stored.id);
    });
    return updated ? { done: updated } : notThere;
  } catch (error) {
    if (violates(error, '23505', EVENT_HANDLE_KEY)) return handleTaken(patch.handle);
    throw error;
  }
}

/** The fields whose stored value differs, by their API names (startsAt: starts_at). */
function changedFields(before: EventRow, after: EventRow): string[] {
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  return Object.keys(a)
    .filter((k) => k !== 'updatedAt' && JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
}
