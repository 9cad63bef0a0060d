// Reading orders: one by id, or a page newest first with filters and an opaque cursor.
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { decodeCursor, encodeCursor, type Executor, type FieldError } from '../platform/index.ts';
import { registrationsOf, toOrderOut, type OrderOut, type OrderRow } from './order-out.ts';
import { orders } from './orders.schema.ts';

export interface OrderListFilters {
  event_id?: string;
  status?: string;
  created_after?: string;
  created_before?: string;
}

/** The shape of every order id; anything else cannot exist (and a NUL byte would fail the query). */
const ORDER_ID = /^ord_[A-Za-z0-9]+$/;
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Filter values the query string schema lets through but PostgreSQL cannot take: an event_id with a
 * NUL byte, a date-time that is no real instant (a leap second) or lies outside years 0001-9999.
 */
export function filterProblems(filters: OrderListFilters): FieldError[] {
  const errors: FieldError[] = [];
  if (filters.event_id?.includes('\u0000'))
    errors.push({ field: 'event_id', message: 'must not contain NUL' });
  for (const field of ['created_after', 'created_before'] as const) {
    const value = filters[field];
    if (value === undefined) continue;
    const ms = Date.parse(value);
    if (!(ms >= FIRST_INSTANT && ms <= LAST_INSTANT)) {
      errors.push({ field, message: 'must be a real point in time between the years 0001 and 9999' });
    }
  }
  return errors;
}

export async function findOrder(
  db: Executor,
  organizationId: string,
  orderId: string,
): Promise<OrderRow | undefined> {
  if (!ORDER_ID.test(orderId)) return undefined;
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.organizationId, organizationId)));
  return row;
}

/** A checkout session's order to show: the paid one when complete, else the latest attempt. */
export async function findSessionOrder(
  db: Executor,
  sessionId: string,
): Promise<{ id: string; status: string; code: string } | null> {
  const rows = await db
    .select({ id: orders.id, status: orders.status, code: orders.orderCode })
    .from(orders)
    .where(eq(orders.checkoutSessionId, sessionId))
    .orderBy(desc(orders.createdAt), desc(orders.id));
  return rows.find((o) => o.status === 'paid') ?? rows[0] ?? null;
}

/**
 * Locks a checkout session's pending orders (its caller holds the session's lock) and returns
 * their ids.
 */
export async function lockPendingSessionOrders(db: Executor, sessionId: string): Promise<string[]> {
  const pending = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.checkoutSessionId, sessionId), eq(orders.status, 'pending')))
    .for('update');
  return pending.map(({ id }) => id);
}

/** The organization's orders of these ids. */
export async function findOrders(db: Executor, organizationId: string, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(orders)
    .where(and(inArray(orders.id, ids), eq(orders.organizationId, organizationId)));
}

/**
 * The ids of the organization's orders paid after they stopped holding tickets (to be refunded),
 * as a subquery for `id IN (...)`.
 */
export function paidAfterExpiryOrderIds(organizationId: string): SQL {
  return sql`(SELECT ${orders.id} FROM ${orders}
    WHERE ${orders.organizationId} = ${organizationId} AND ${orders.paidAfterExpiry})`;
}

interface OrderCursorKey {
  c: number;
  i: string;
}

export async function listOrders(
  ctx: AppContext,
  options: { organizationId: string; filters: OrderListFilters; limit: number; cursor: string | undefined },
): Promise<{ orders: OrderOut[]; next_cursor: string | null; has_more: boolean } | 'invalid_cursor'> {
  const { organizationId, filters, limit } = options;
  const scope = { organizationId, resource: 'orders', filters: { ...filters } };
  const conditions: (SQL | undefined)[] = [eq(orders.organizationId, organizationId)];
  if (filters.event_id !== undefined) conditions.push(eq(orders.eventId, filters.event_id));
  if (filters.status !== undefined) conditions.push(eq(orders.status, filters.status));
  if (filters.created_after !== undefined)
    conditions.push(gte(orders.createdAt, new Date(filters.created_after)));
  if (filters.created_before !== undefined)
    conditions.push(lt(orders.createdAt, new Date(filters.created_before)));
  if (options.cursor !== undefined) {
    const key = decodeCursor(ctx.keys.cursor, scope, options.cursor) as OrderCursorKey | null;
    if (!key || typeof key.c !== 'number' || typeof key.i !== 'string') return 'invalid_cursor';
    // a row comparison: the (…, created_at, id) indexes answer it as a range, a deep page too
    conditions.push(
      sql`(${orders.createdAt}, ${orders.id}) < (${new Date(key.c).toISOString()}::timestamptz, ${key.i})`,
    );
  }
  const db = ctx.database.db;
  const rows = await db
    .select()
    .from(orders)
    .where(and(...conditions))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const regs = await registrationsOf(
    db,
    page.map((o) => o.id),
  );
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  return {
    orders: page.map((o) => toOrderOut(o, regs.get(o.id) ?? [])),
    next_cursor:
      hasMore && last
        ? encodeCursor(ctx.keys.cursor, scope, {
            c: last.createdAt.getTime(),
            i: last.id,
          } satisfies OrderCursorKey)
        : null,
    has_more: hasMore,
  };
}
