// Pending orders whose hold has not lapsed, for the active-holds metric: counted on
// orders_pending_hold_idx (hold_expires_at of pending orders only), so the cost follows the number
// of pending orders, not of all orders.
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/index.ts';
import { orders } from './orders.schema.ts';

/** Pending orders holding tickets at `now`; at most `limit` are counted. */
export async function countActiveHolds(database: Database, now: Date, limit: number): Promise<number> {
  const [row] = await database.rows<{ holds: unknown }>(sql`
    SELECT count(*) AS holds FROM (
      SELECT 1 FROM ${orders}
      WHERE ${orders.status} = 'pending' AND ${orders.holdExpiresAt} > ${now.toISOString()}::timestamptz
      LIMIT ${limit}
    ) AS held`);
  // int8: a string from postgres.js, a number from PGlite
  return Number(row?.holds ?? 0);
}
