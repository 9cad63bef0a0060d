// The webhook backlog as metrics read it: outbox events not yet sent, and deliveries not yet
// done. Each count walks a table or partial index that holds only those rows, and stops at `limit`.
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/index.ts';
import { outboxEvents, outboxQueue, webhookDeliveries } from './webhooks.schema.ts';

/** Events whose first attempts are not recorded yet (taken ones included); at most `limit` are counted. */
export async function countUndispatchedEvents(database: Database, limit: number): Promise<number> {
  const [row] = await database.rows<{ events: unknown }>(sql`
    SELECT count(*) AS events FROM (
      SELECT 1 FROM ${outboxQueue} LIMIT ${limit}
    ) AS waiting`);
  // int8: a string from postgres.js, a number from PGlite
  return Number(row?.events ?? 0);
}

export interface PendingDeliveries {
  /** pending deliveries, retries scheduled later included; at most the limit */
  pending: number;
  /**
   * when the delivery due longest ago was due, a queued event's first ones counting as due since
   * the event was written; null when none is due
   */
  oldestDueAt: Date | null;
}

/** Deliveries still to be sent, counted in next_attempt_at order up to `limit`. */
export async function readPendingDeliveries(
  database: Database,
  now: Date,
  limit: number,
): Promise<PendingDeliveries> {
  const [row] = await database.rows<{ pending: unknown; oldest_due: unknown }>(sql`
    SELECT count(*) AS pending, extract(epoch FROM least(min(next_attempt_at), (
      SELECT e.created_at FROM ${outboxQueue} q JOIN ${outboxEvents} e ON e.id = q.event_id
      ORDER BY q.seq LIMIT 1
    ))) AS oldest_due FROM (
      SELECT next_attempt_at FROM ${webhookDeliveries} WHERE status = 'pending'
      ORDER BY next_attempt_at LIMIT ${limit}
    ) AS waiting`);
  const oldest =
    row?.oldest_due === null || row?.oldest_due === undefined ? null : Number(row.oldest_due) * 1000;
  return {
    pending: Number(row?.pending ?? 0),
    oldestDueAt: oldest !== null && oldest <= now.getTime() ? new Date(Math.round(oldest)) : null,
  };
}

/** Deliveries still pending and events still queued, all counted (cli db restore's check). */
export async function countWebhookBacklog(
  database: Database,
): Promise<{ webhook_deliveries_pending: number; outbox_events_queued: number }> {
  const [row] = await database.rows<{ webhook_deliveries_pending: number; outbox_events_queued: number }>(sql`
    SELECT (SELECT count(*)::int FROM ${webhookDeliveries} WHERE ${webhookDeliveries.status} = 'pending')
        AS webhook_deliveries_pending,
      (SELECT count(*)::int FROM ${outboxQueue}) AS outbox_events_queued`);
  return row!;
}
