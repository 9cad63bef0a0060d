// Replaces an event's bib number ranges, audited, after checkRanges. Under the event's bib lock, so
// an assignment at the same moment numbers from the old ranges or the new ones, never from both.
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import {
  checkRanges,
  lockEventBibs,
  writeBibRanges,
  type BibRange,
  type RangeInput,
} from '../bib-numbers.ts';
import { findEventFor } from '../../events/index.ts';
import { ticketTypeNames, type ActingOn } from './race-actor.ts';

export interface SaveBibRangesOptions extends ActingOn {
  eventId: string;
  /** each ticket type's range as typed; a ticket type left out, or with both ends empty, has none */
  ranges: RangeInput[];
}

export async function saveBibRanges(
  ctx: AppContext,
  { eventId, ranges: inputs, ...on }: SaveBibRangesOptions,
): Promise<Outcome<BibRange[]>> {
  const race = await findEventFor(ctx.database.db, on, eventId);
  if (!race) return notThere;
  const nameOf = ticketTypeNames(race);
  const foreign = inputs.filter((i) => !nameOf.has(i.ticketTypeId));
  if (foreign.length > 0) {
    return invalid(
      foreign.map((i) => ({
        field: `first_${i.ticketTypeId}`,
        message: 'This is not a ticket type of the event.',
      })),
    );
  }
  const checked = checkRanges(race, inputs);
  if (!checked.ok) {
    return invalid(Object.entries(checked.errors).map(([field, message]) => ({ field, message })));
  }
  const now = ctx.clock.now();
  await ctx.database.transaction(async (tx) => {
    await lockEventBibs(tx, race.event.id);
    await writeBibRanges(tx, race, checked.ranges, now);
    await recordAudit(
      tx,
      {
        organizationId: race.event.organizationId,
        actor: on.actor,
        action: 'event.bib_ranges_changed',
        targetType: 'event',
        targetId: race.event.id,
        details: {
          ranges: checked.ranges.map((r) => ({
            ticket_type: nameOf.get(r.ticketTypeId),
            first: r.first,
            last: r.last,
          })),
        },
      },
      now,
    );
  });
  return { done: checked.ranges };
}
