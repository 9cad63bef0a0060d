// Events that ended long enough ago, for retention (src/privacy/): the buyer data of their orders
// is kept RETENTION_BUYER_DATA_DAYS after the event's end (ends_at).
import { and, asc, gt, lt } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { events } from './events.schema.ts';

/** A page, by id, of the events (every organization's) that ended before `before`. */
export async function listEventsEndedBefore(
  db: Executor,
  options: { before: Date; after: string | null; limit: number },
): Promise<Array<{ id: string; organizationId: string }>> {
  return db
    .select({ id: events.id, organizationId: events.organizationId })
    .from(events)
    .where(
      and(
        options.after === null ? undefined : gt(events.id, options.after),
        lt(events.endsAt, options.before),
      ),
    )
    .orderBy(asc(events.id))
    .limit(options.limit);
}
