// An event's money as the orders hold it, for the organizer's money page (src/sales/): what buyers
// paid per payment method and what each ticket type sold, counting every order that took money
// (paid, or refunded since). Sums happen in SQL: a page reads a few rows however many orders.
import { and, asc, eq, gt, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { orders, registrations } from './orders.schema.ts';

/** orders that took money: paid ones, and those refunded since */
const TOOK_MONEY = ['paid', 'refunded'];

const tookMoney = (organizationId: string, eventId: string) =>
  and(
    eq(orders.organizationId, organizationId),
    eq(orders.eventId, eventId),
    inArray(orders.status, TOOK_MONEY),
  );

/** The ids of the event's orders that took money, as a subquery for `order_id IN (...)`. */
export function moneyOrderIds(organizationId: string, eventId: string): SQL {
  return sql`(SELECT ${orders.id} FROM ${orders}
    WHERE ${orders.organizationId} = ${organizationId} AND ${orders.eventId} = ${eventId}
      AND ${orders.status} IN ('paid', 'refunded'))`;
}

export interface MethodTakings {
  /** the payment method key, or null for free orders */
  paymentMethod: string | null;
  orders: number;
  /** what buyers paid: tickets, service fees and donations */
  paidMinor: number;
  feesMinor: number;
  donationsMinor: number;
}

/** What buyers paid for the event, per payment method (orders_event_status_idx). */
export async function takingsByMethod(
  db: Executor,
  options: { organizationId: string; eventId: string },
): Promise<MethodTakings[]> {
  const rows = await db
    .select({
      paymentMethod: orders.paymentMethod,
      orders: sql<number>`count(*)::int`,
      paidMinor: sql<number>`coalesce(sum(${orders.total}), 0)::bigint`,
      feesMinor: sql<number>`coalesce(sum(${orders.lacesFee}), 0)::bigint`,
      donationsMinor: sql<number>`coalesce(sum(${orders.donationTotal}), 0)::bigint`,
    })
    .from(orders)
    .where(tookMoney(options.organizationId, options.eventId))
    .groupBy(orders.paymentMethod);
  return rows.map((r) => ({
    paymentMethod: r.paymentMethod,
    orders: Number(r.orders),
    paidMinor: Number(r.paidMinor),
    feesMinor: Number(r.feesMinor),
    donationsMinor: Number(r.donationsMinor),
  }));
}

export interface TicketTypeTakings {
  ticketTypeId: string;
  /** places sold, refunded ones included */
  tickets: number;
  /** their prices */
  ticketMinor: number;
  feesMinor: number;
  /** places given back by a refund since */
  refundedTickets: number;
  /** the prices of those places */
  refundedTicketMinor: number;
}

/** What each ticket type of the event sold, and what of it was refunded runner by runner. */
export async function takingsByTicketType(
  db: Executor,
  options: { organizationId: string; eventId: string },
): Promise<TicketTypeTakings[]> {
  const refunded = sql`${registrations.refundId} IS NOT NULL`;
  const rows = await db
    .select({
      ticketTypeId: registrations.ticketTypeId,
      tickets: sql<number>`count(*)::int`,
      ticketMinor: sql<number>`coalesce(sum(${registrations.priceMinor}), 0)::bigint`,
      feesMinor: sql<number>`coalesce(sum(${registrations.feeMinor}), 0)::bigint`,
      refundedTickets: sql<number>`count(*) FILTER (WHERE ${refunded})::int`,
      refundedTicketMinor: sql<number>`coalesce(sum(${registrations.priceMinor}) FILTER (WHERE ${refunded}), 0)::bigint`,
    })
    .from(orders)
    .innerJoin(registrations, eq(registrations.orderId, orders.id))
    .where(tookMoney(options.organizationId, options.eventId))
    .groupBy(registrations.ticketTypeId);
  return rows.map((r) => ({
    ticketTypeId: r.ticketTypeId,
    tickets: Number(r.tickets),
    ticketMinor: Number(r.ticketMinor),
    feesMinor: Number(r.feesMinor),
    refundedTickets: Number(r.refundedTickets),
    refundedTicketMinor: Number(r.refundedTicketMinor),
  }));
}

export interface MoneyOrder {
  id: string;
  orderCode: string;
  status: string;
}

/**
 * The event's orders that took money, and those whose payment came after their hold ended (to be
 * refunded, but on the network's statement all the same), oldest first, `size` at a time: a keyset
 * walk along orders_org_event_created_idx, so a file of every one of them streams with flat memory.
 */
export async function* moneyOrderBatches(
  db: Executor,
  options: { organizationId: string; eventId: string },
  size = 500,
): AsyncGenerator<MoneyOrder[]> {
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const rows: (MoneyOrder & { createdAt: Date })[] = await db
      .select({
        id: orders.id,
        orderCode: orders.orderCode,
        status: orders.status,
        createdAt: orders.createdAt,
      })
      .from(orders)
      .where(
        and(
          eq(orders.organizationId, options.organizationId),
          eq(orders.eventId, options.eventId),
          or(inArray(orders.status, TOOK_MONEY), eq(orders.paidAfterExpiry, true)),
          after
            ? or(
                gt(orders.createdAt, after.createdAt),
                and(eq(orders.createdAt, after.createdAt), gt(orders.id, after.id)),
              )
            : undefined,
        ),
      )
      .orderBy(asc(orders.createdAt), asc(orders.id))
      .limit(size);
    if (rows.length === 0) return;
    yield rows.map(({ id, orderCode, status }) => ({ id, orderCode, status }));
    if (rows.length < size) return;
    const last = rows.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
