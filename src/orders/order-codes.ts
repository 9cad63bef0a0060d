// Order codes by order id, for pages that name orders other modules recorded by id (the audit log).
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { orders } from './orders.schema.ts';

/** The codes of those of `ids` that are the organization's orders. */
export async function orderCodesOf(
  db: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: orders.id, code: orders.orderCode })
    .from(orders)
    .where(and(eq(orders.organizationId, organizationId), inArray(orders.id, [...ids])));
  return new Map(rows.map((r) => [r.id, r.code]));
}
