// The organizer's view of orders: filtered by event, status, channel (a partner's API call, the
// hosted page or the embedded checkout), partner client and creation dates, and searched by order
// code, name (the buyer's or a participant's), e-mail or phone. Newest first, by keyset, so a page
// and the CSV export read the same way at any depth. Event and client names come from their own
// modules: the caller looks them up by id.
import { and, desc, eq, gte, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { normalizePhone } from './contact.ts';
import { orders, registrations } from './orders.schema.ts';

export const ORDER_STATUSES = ['pending', 'paid', 'expired', 'cancelled', 'refunded'] as const;
/** api: created by a partner's server; hosted and embedded: through a checkout session. */
export const ORDER_CHANNELS = ['api', 'hosted', 'embedded'] as const;
export type OrderChannel = (typeof ORDER_CHANNELS)[number];

export interface OrderSearch {
  eventId?: string;
  status?: string;
  channel?: OrderChannel;
  clientId?: string;
  /** created at or after this instant */
  from?: Date;
  /** created before this instant */
  to?: Date;
  /** an order code, a name, an e-mail or a phone number */
  q?: string;
}

export interface OrderListRow {
  id: string;
  orderCode: string;
  status: string;
  createdAt: Date;
  total: number;
  currency: string;
  paymentMethod: string | null;
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
  eventId: string;
  apiClientId: string | null;
  channel: OrderChannel;
  tickets: number;
}

/** Where the next page starts: after this order, in newest-first order. */
export interface OrderKey {
  createdAt: Date;
  id: string;
}

/** The outer query's order id inside a subquery (Drizzle leaves a lone table's columns unqualified). */
const ORDER_ID = sql.raw('"orders"."id"');

/** LIKE's own characters in what the organizer typed match themselves. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The orders whose code, phone, buyer name or e-mail, or a participant's name match: one branch per
 * way of matching, each served by its own index (the code's unique index, organization and phone,
 * and pg_trgm indexes for contains-matching text), joined by UNION rather than OR, which the
 * planner could only answer by reading every order of the organization.
 */
function searchCondition(organizationId: string, q: string): SQL {
  const text = q.trim().slice(0, 100);
  const pattern = likePattern(text.toLowerCase());
  const msisdn = text.replace(/\D/g, '').length >= 9 ? normalizePhone(text) : null;
  const phone = msisdn
    ? sql`UNION SELECT id FROM ${orders} WHERE organization_id = ${organizationId} AND buyer_phone = ${msisdn}`
    : sql``;
  return sql`${ORDER_ID} IN (
    SELECT id FROM ${orders} WHERE order_code = ${text.toUpperCase()} AND organization_id = ${organizationId}
    UNION SELECT id FROM ${orders} WHERE organization_id = ${organizationId}
      AND lower(buyer_name || ' ' || buyer_email) LIKE ${pattern}
    UNION SELECT order_id FROM ${registrations} WHERE organization_id = ${organizationId}
      AND lower(participant_name) LIKE ${pattern}
    ${phone})`;
}

function conditions(organizationId: string, search: OrderSearch, after?: OrderKey): SQL {
  const where: (SQL | undefined)[] = [eq(orders.organizationId, organizationId)];
  if (search.eventId) where.push(eq(orders.eventId, search.eventId));
  if (search.status) where.push(eq(orders.status, search.status));
  if (search.clientId) where.push(eq(orders.apiClientId, search.clientId));
  if (search.channel === 'api') where.push(isNull(orders.checkoutMode));
  if (search.channel === 'hosted') where.push(eq(orders.checkoutMode, 'redirect'));
  if (search.channel === 'embedded') where.push(eq(orders.checkoutMode, 'embedded'));
  if (search.from) where.push(gte(orders.createdAt, search.from));
  if (search.to) where.push(lt(orders.createdAt, search.to));
  if (search.q && search.q.trim() !== '') where.push(searchCondition(organizationId, search.q));
  if (after) {
    where.push(
      or(
        lt(orders.createdAt, after.createdAt),
        and(eq(orders.createdAt, after.createdAt), lt(orders.id, after.id)),
      ),
    );
  }
  return and(...where)!;
}

/** Up to `limit` orders after `after`, newest first. */
export async function searchOrders(
  db: Executor,
  organizationId: string,
  search: OrderSearch,
  page: { limit: number; after?: OrderKey },
): Promise<OrderListRow[]> {
  const rows = await db
    .select({
      id: orders.id,
      orderCode: orders.orderCode,
      status: orders.status,
      createdAt: orders.createdAt,
      total: orders.total,
      currency: orders.currency,
      paymentMethod: orders.paymentMethod,
      buyerName: orders.buyerName,
      buyerEmail: orders.buyerEmail,
      buyerPhone: orders.buyerPhone,
      eventId: orders.eventId,
      apiClientId: orders.apiClientId,
      checkoutMode: orders.checkoutMode,
      tickets: sql<number>`(SELECT count(*)::int FROM ${registrations} r WHERE r.order_id = ${ORDER_ID})`,
    })
    .from(orders)
    .where(conditions(organizationId, search, page.after))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(page.limit);
  return rows.map(({ checkoutMode, ...row }) => ({
    ...row,
    tickets: Number(row.tickets),
    channel: checkoutMode === null ? 'api' : checkoutMode === 'embedded' ? 'embedded' : 'hosted',
  }));
}

/** Every order of a search, a batch at a time: the CSV export never holds them all. */
export async function* orderBatches(
  db: Executor,
  organizationId: string,
  search: OrderSearch,
  batchSize = 1000,
): AsyncGenerator<OrderListRow[]> {
  let after: OrderKey | undefined;
  for (;;) {
    const batch = await searchOrders(db, organizationId, search, {
      limit: batchSize,
      ...(after && { after }),
    });
    if (batch.length > 0) yield batch;
    if (batch.length < batchSize) return;
    const last = batch.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
