// The organizer's view of orders: filtered by event, status, channel (a partner's API call, the
// hosted page or the embedded checkout), partner client and creation dates, and searched by order
// code, name (the buyer's or a participant's), e-mail or phone. Newest first, by keyset, so a page
// and the CSV export read the same way at any depth. Event and client names come from their own
// modules: the caller looks them up by id.
import { and, desc, eq, gte, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { normalizePhone, PHONE_COUNTRIES } from './contact.ts';
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

interface SearchTerms {
  text: string;
  pattern: string;
  /** the number as stored, when the text is a phone number: a local 07... one of each country */
  msisdns: string[];
}

function termsOf(q: string): SearchTerms {
  const text = q.trim().slice(0, 100);
  const phone = text.replace(/\D/g, '').length >= 9;
  const msisdns = phone ? PHONE_COUNTRIES.flatMap((country) => normalizePhone(text, country) ?? []) : [];
  return { text, pattern: likePattern(text.toLowerCase()), msisdns: [...new Set(msisdns)] };
}

/**
 * The orders whose code, phone, buyer name or e-mail, or a participant's name match: one branch per
 * way of matching, each served by its own index (the code's unique index, organization and phone,
 * and pg_trgm indexes for contains-matching text), joined by UNION rather than OR, which the
 * planner could only answer by reading every order of the organization. The matches are gathered
 * into an array first and read by primary key: as `IN (...)` the planner, expecting a thousand,
 * hashed them against a read of every order of the organization (35 against 11 ms for a full name
 * at 100,000 orders). Its cost grows with the number of matches: the way to find a few among many.
 */
function matchingIds(organizationId: string, terms: SearchTerms): SQL {
  const { text, pattern, msisdns } = terms;
  const phone = msisdns.length
    ? sql`UNION SELECT id FROM ${orders} WHERE organization_id = ${organizationId}
      AND buyer_phone IN (${sql.join(
        msisdns.map((m) => sql`${m}`),
        sql`, `,
      )})`
    : sql``;
  return sql`${ORDER_ID} = ANY(ARRAY(
    SELECT id FROM ${orders} WHERE order_code = ${text.toUpperCase()} AND organization_id = ${organizationId}
    UNION SELECT id FROM ${orders} WHERE organization_id = ${organizationId}
      AND lower(buyer_name || ' ' || buyer_email) LIKE ${pattern}
    UNION SELECT order_id FROM ${registrations} WHERE organization_id = ${organizationId}
      AND lower(participant_name) LIKE ${pattern}
    ${phone}))`;
}

/** The same test on one order of `source` (a table or subquery with the orders' columns). */
function matchesRow(terms: SearchTerms, source: string): SQL {
  const o = (column: string) => sql.raw(`"${source}"."${column}"`);
  return sql`(${o('order_code')} = ${terms.text.toUpperCase()}
    OR lower(${o('buyer_name')} || ' ' || ${o('buyer_email')}) LIKE ${terms.pattern}
    OR EXISTS (SELECT 1 FROM ${registrations} r WHERE r.order_id = ${o('id')}
      AND lower(r.participant_name) LIKE ${terms.pattern}))`;
}

function filterConditions(organizationId: string, search: OrderSearch, after?: OrderKey): SQL {
  const where: (SQL | undefined)[] = [eq(orders.organizationId, organizationId)];
  if (search.eventId) where.push(eq(orders.eventId, search.eventId));
  if (search.status) where.push(eq(orders.status, search.status));
  if (search.clientId) where.push(eq(orders.apiClientId, search.clientId));
  if (search.channel === 'api') where.push(isNull(orders.checkoutMode));
  if (search.channel === 'hosted') where.push(eq(orders.checkoutMode, 'redirect'));
  if (search.channel === 'embedded') where.push(eq(orders.checkoutMode, 'embedded'));
  if (search.from) where.push(gte(orders.createdAt, search.from));
  if (search.to) where.push(lt(orders.createdAt, search.to));
  // A row comparison, which the (…, created_at, id) indexes answer as a range: an OR of the two
  // cases is only a filter, and every page or batch would read all the newer orders again.
  if (after)
    where.push(
      sql`(${orders.createdAt}, ${orders.id}) < (${after.createdAt.toISOString()}::timestamptz, ${after.id})`,
    );
  return and(...where)!;
}

/**
 * Orders read newest first, per row asked for, before the search stops walking and looks its
 * matches up: a text in one order of 20 or more fills a page by walking (a surname with its
 * runners is one in 10); rarer ones cost the walk of 1,020 orders (a few ms) before the indexes
 * (bench B6: bench/measurements/back-office.md).
 */
const WALK_PER_ROW = 20;

const ticketsOf = (source: string) =>
  sql<number>`(SELECT count(*)::int FROM ${registrations} r WHERE r.order_id = ${sql.raw(`"${source}"."id"`)})`;

function toListRow(row: Omit<OrderListRow, 'channel'> & { checkoutMode: string | null }): OrderListRow {
  const { checkoutMode, ...rest } = row;
  return {
    ...rest,
    tickets: Number(rest.tickets),
    channel: checkoutMode === null ? 'api' : checkoutMode === 'embedded' ? 'embedded' : 'hosted',
  };
}

/**
 * Up to `limit` orders after `after`, newest first.
 *
 * A search is answered one of two ways, whichever is cheap for it: a common word ("gmail", a
 * surname) matches thousands of orders, and reading the newest orders in index order finds a page
 * of matches within a few hundred; a rare one (a full name, a code) matches a handful, which the
 * search indexes find at once. The walk goes first, over at most 20 orders per row asked for; when
 * it found a whole page, those are the newest matches; when not, the indexes answer. A phone
 * number goes to its index straight away.
 */
export async function searchOrders(
  db: Executor,
  organizationId: string,
  search: OrderSearch,
  page: { limit: number; after?: OrderKey },
): Promise<OrderListRow[]> {
  const where = filterConditions(organizationId, search, page.after);
  const terms = search.q && search.q.trim() !== '' ? termsOf(search.q) : null;
  if (terms && terms.msisdns.length === 0) {
    const walked = db
      .select(listColumns(orders))
      .from(orders)
      .where(where)
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(page.limit * WALK_PER_ROW)
      .as('walked');
    const found = await db
      .select({ ...listColumns(walked), tickets: ticketsOf('walked') })
      .from(walked)
      .where(matchesRow(terms, 'walked'))
      .orderBy(desc(walked.createdAt), desc(walked.id))
      .limit(page.limit);
    if (found.length === page.limit) return found.map(toListRow);
  }
  const rows = await db
    .select({ ...listColumns(orders), tickets: ticketsOf('orders') })
    .from(orders)
    .where(terms ? and(where, matchingIds(organizationId, terms)) : where)
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(page.limit);
  return rows.map(toListRow);
}

type ListColumn =
  | 'id'
  | 'orderCode'
  | 'status'
  | 'createdAt'
  | 'total'
  | 'currency'
  | 'paymentMethod'
  | 'buyerName'
  | 'buyerEmail'
  | 'buyerPhone'
  | 'eventId'
  | 'apiClientId'
  | 'checkoutMode';

/** The columns a list row shows, of the orders table or of a subquery of it. */
function listColumns<T extends Record<ListColumn, unknown>>(source: T): Pick<T, ListColumn> {
  return {
    id: source.id,
    orderCode: source.orderCode,
    status: source.status,
    createdAt: source.createdAt,
    total: source.total,
    currency: source.currency,
    paymentMethod: source.paymentMethod,
    buyerName: source.buyerName,
    buyerEmail: source.buyerEmail,
    buyerPhone: source.buyerPhone,
    eventId: source.eventId,
    apiClientId: source.apiClientId,
    checkoutMode: source.checkoutMode,
  };
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
