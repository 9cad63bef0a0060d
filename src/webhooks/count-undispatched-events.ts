// Outbox events the dispatcher has not yet fanned out to deliveries, for the webhook backlog
// metric: counted on outbox_events_undispatched_idx, which holds only those events.
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db.ts';
import { outboxEvents } from './webhooks.schema.ts';

/** Events waiting for the dispatcher; at most `limit` are counted. */
export async function countUndispatchedEvents(database: Database, limit: number): Promise<number> {
  const [row] = await database.rows<{ events: unknown }>(sql`
    SELECT count(*) AS events FROM (
      SELECT 1 FROM ${outboxEvents} WHERE ${outboxEvents.dispatchedAt} IS NULL LIMIT ${limit}
    ) AS waiting`);
  // int8: a string from postgres.js, a number from PGlite
  return Number(row?.events ?? 0);
}
