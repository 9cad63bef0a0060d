// What the orders table holds, in all organizations: the check an operator makes of a restored
// database (cli db restore).
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/index.ts';
import { orders } from './orders.schema.ts';

export interface OrderCounts {
  orders: number;
  paid_orders: number;
  /** the newest order's created_at as PostgreSQL writes it; null when there is none */
  latest_order_at: string | null;
}

export async function countOrders(database: Database): Promise<OrderCounts> {
  const [row] = await database.rows<OrderCounts>(sql`
    SELECT count(*)::int AS orders,
      (count(*) FILTER (WHERE ${orders.status} = 'paid'))::int AS paid_orders,
      max(${orders.createdAt})::text AS latest_order_at
    FROM ${orders}`);
  return row!;
}
