// Aggregates of an event's paid orders for the organizer's sales overview (src/sales/): tickets
// per day per ticket type and money per payment method and client. Sums happen in SQL, so a page
// reads a few dozen rows however many orders there are.
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { orders, registrations } from './orders.schema.ts';

export interface DailyTicketCount {
  /** the calendar day in the event's time zone, YYYY-MM-DD */
  day: string;
  ticketTypeId: string;
  tickets: number;
}

/**
 * Confirmed tickets of the event's paid orders per day of payment (in `timeZone`, an IANA name)
 * and ticket type (`ticketTypeIds`: the event's). Both sides come from an index, joined by hash:
 * the tickets by registrations_ticket_type_idx, the paid orders by orders_event_status_idx.
 */
export async function paidTicketsPerDay(
  db: Executor,
  options: { organizationId: string; eventId: string; ticketTypeIds: string[]; timeZone: string },
): Promise<DailyTicketCount[]> {
  if (options.ticketTypeIds.length === 0) return [];
  const day = sql<string>`to_char(${orders.paidAt} AT TIME ZONE ${options.timeZone}, 'YYYY-MM-DD')`;
  const rows = await db
    .select({ day, ticketTypeId: registrations.ticketTypeId, tickets: sql<number>`count(*)::int` })
    .from(orders)
    .innerJoin(registrations, eq(registrations.orderId, orders.id))
    .where(
      and(
        eq(orders.organizationId, options.organizationId),
        eq(orders.eventId, options.eventId),
        eq(orders.status, 'paid'),
        inArray(registrations.ticketTypeId, options.ticketTypeIds),
        eq(registrations.status, 'confirmed'),
      ),
    )
    // by position: the day expression carries the zone as a parameter, which a repeated
    // expression would bind again as another one that PostgreSQL cannot match to the select's
    .groupBy(sql`1`, sql`2`)
    .orderBy(sql`1`, sql`2`);
  return rows.map((r) => ({ ...r, tickets: Number(r.tickets) }));
}

export interface PaidTotal {
  /** the payment method key, or null for a free order */
  paymentMethod: string | null;
  channel: string;
  apiClientId: string | null;
  currency: string;
  orders: number;
  /** what buyers paid, fees included, in minor units */
  totalMinor: number;
  feesMinor: number;
}

/** The event's paid orders summed per payment method, channel and API client (orders_event_status_idx). */
export async function paidTotals(
  db: Executor,
  options: { organizationId: string; eventId: string },
): Promise<PaidTotal[]> {
  const rows = await db
    .select({
      paymentMethod: orders.paymentMethod,
      channel: orders.channel,
      apiClientId: orders.apiClientId,
      currency: orders.currency,
      orders: sql<number>`count(*)::int`,
      totalMinor: sql<number>`coalesce(sum(${orders.total}), 0)::bigint`,
      feesMinor: sql<number>`coalesce(sum(${orders.lacesFee}), 0)::bigint`,
    })
    .from(orders)
    .where(
      and(
        eq(orders.organizationId, options.organizationId),
        eq(orders.eventId, options.eventId),
        eq(orders.status, 'paid'),
      ),
    )
    .groupBy(orders.paymentMethod, orders.channel, orders.apiClientId, orders.currency);
  return rows.map((r) => ({
    ...r,
    orders: Number(r.orders),
    totalMinor: Number(r.totalMinor),
    feesMinor: Number(r.feesMinor),
  }));
}

/**
 * The ids of the organization's pending orders, as a subquery for `order_id IN (...)`. Pending
 * orders are few at any time (a hold lasts minutes): orders_pending_hold_idx holds only them.
 */
export function pendingOrderIds(organizationId: string): SQL {
  return sql`(SELECT ${orders.id} FROM ${orders}
    WHERE ${orders.status} = 'pending' AND ${orders.organizationId} = ${organizationId})`;
}
