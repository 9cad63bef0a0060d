// Orders' part of retention and erasure (src/privacy/ drives both): finding the orders whose
// buyer data goes, replacing that data with the marker (amounts, statuses, counts, ids and
// timestamps stay), the Order wire shape with its data replaced, and deleting unpaid orders that
// ended long ago. Every write takes the caller's transaction and a bounded list of ids.
import { and, asc, eq, gt, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import { ERASED, type Executor } from '../platform/index.ts';
import { orders, registrations } from './orders.schema.ts';

/** An order as retention and erasure handle it. */
export interface OrderRef {
  id: string;
  organizationId: string;
  checkoutSessionId: string | null;
  createdAt: Date;
}

const refColumns = {
  id: orders.id,
  organizationId: orders.organizationId,
  checkoutSessionId: orders.checkoutSessionId,
  createdAt: orders.createdAt,
};

/** The buyer's data is not all erased yet. */
const notRedacted = or(
  sql`${orders.buyerEmail} <> ${ERASED}`,
  sql`${orders.buyerName} <> ${ERASED}`,
  sql`${orders.buyerPhone} <> ${ERASED}`,
  isNotNull(orders.clientIpHash),
);

/**
 * A page of an event's orders whose buyer data is still there, after `after` in (created_at, id)
 * order: orders_org_event_created_idx walks the event's orders, so a page costs what it reads.
 */
export async function findUnredactedOrders(
  db: Executor,
  options: { organizationId: string; eventId: string; after: OrderRef | null; limit: number },
): Promise<OrderRef[]> {
  const { after } = options;
  return db
    .select(refColumns)
    .from(orders)
    .where(
      and(
        eq(orders.organizationId, options.organizationId),
        eq(orders.eventId, options.eventId),
        after
          ? or(
              gt(orders.createdAt, after.createdAt),
              and(eq(orders.createdAt, after.createdAt), gt(orders.id, after.id)),
            )
          : undefined,
        notRedacted,
      ),
    )
    .orderBy(asc(orders.createdAt), asc(orders.id))
    .limit(options.limit);
}

/** LIKE's own characters in an address match themselves. */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Up to `limit` orders whose buyer email is `email` (lower-cased and trimmed by the caller),
 * compared without regard to case, in one organization or in all. The LIKE lets the buyer search's
 * trigram index (orders_buyer_search_idx) find the few candidates; the equality decides.
 */
export async function findOrdersOfBuyer(
  db: Executor,
  options: { email: string; organizationId?: string | undefined; limit: number },
): Promise<OrderRef[]> {
  return db
    .select(refColumns)
    .from(orders)
    .where(
      and(
        options.organizationId === undefined ? undefined : eq(orders.organizationId, options.organizationId),
        sql`lower(${orders.buyerName} || ' ' || ${orders.buyerEmail}) LIKE ${`%${likeEscaped(options.email)}%`}`,
        sql`lower(btrim(${orders.buyerEmail})) = ${options.email}`,
      ),
    )
    .orderBy(asc(orders.id))
    .limit(options.limit);
}

/**
 * Replaces the personal data of these orders with the marker: the buyer's name, email and phone,
 * and each registration's participant name, date of birth, answers and (after a transfer) the
 * runner's email and phone; the keyed hash of the
 * buyer's address goes too. Counts the rows that changed (none the second time).
 */
export async function redactOrders(
  tx: Executor,
  orderIds: string[],
): Promise<{ orders: number; registrations: number }> {
  if (orderIds.length === 0) return { orders: 0, registrations: 0 };
  const changedOrders = await tx
    .update(orders)
    .set({ buyerName: ERASED, buyerEmail: ERASED, buyerPhone: ERASED, clientIpHash: null })
    .where(and(inArray(orders.id, orderIds), notRedacted))
    .returning({ id: orders.id });
  const changedRegistrations = await tx
    .update(registrations)
    .set({ participantName: ERASED, dateOfBirth: null, answers: {}, runnerEmail: null, runnerPhone: null })
    .where(
      and(
        inArray(registrations.orderId, orderIds),
        or(
          sql`${registrations.participantName} <> ${ERASED}`,
          isNotNull(registrations.dateOfBirth),
          sql`${registrations.answers} <> '{}'::jsonb`,
          isNotNull(registrations.runnerEmail),
        ),
      ),
    )
    .returning({ id: registrations.id });
  return { orders: changedOrders.length, registrations: changedRegistrations.length };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An Order in its wire shape (order-out.ts) with the personal data replaced as redactOrders
 * replaces it: for the copies kept elsewhere (webhook payloads, stored idempotent responses).
 * Anything that is not an Order comes back as it was.
 */
export function redactOrderJson(data: unknown): unknown {
  if (!isObject(data) || !isObject(data.buyer)) return data;
  const registrationsOut = Array.isArray(data.registrations)
    ? data.registrations.map((r: unknown) => (isObject(r) ? { ...r, participant_name: ERASED } : r))
    : data.registrations;
  return {
    ...data,
    buyer: { name: ERASED, email: ERASED, phone: ERASED },
    registrations: registrationsOut,
  };
}

/** Unpaid orders that ended: their hold lapsed, or they were cancelled before being paid. */
const endedUnpaid = and(inArray(orders.status, ['expired', 'cancelled']), eq(orders.paidAfterExpiry, false));

/**
 * A page, by id, of unpaid orders that ended (expired or cancelled) before `closedBefore`, never
 * one a late payment was recorded for (paid_after_expiry: money to refund).
 */
export async function findEndedUnpaidOrders(
  db: Executor,
  options: { closedBefore: Date; after: string | null; limit: number },
): Promise<OrderRef[]> {
  return db
    .select(refColumns)
    .from(orders)
    .where(
      and(
        options.after === null ? undefined : gt(orders.id, options.after),
        endedUnpaid,
        lt(orders.closedAt, options.closedBefore),
      ),
    )
    .orderBy(asc(orders.id))
    .limit(options.limit);
}

/**
 * Locks those of these orders that are still ended and unpaid, for deleting them in the same
 * transaction: a late payment settling meanwhile waits, then finds no order.
 */
export async function lockEndedUnpaidOrders(tx: Executor, orderIds: string[]): Promise<string[]> {
  if (orderIds.length === 0) return [];
  const rows = await tx
    .select({ id: orders.id })
    .from(orders)
    .where(and(inArray(orders.id, orderIds), endedUnpaid))
    .for('update');
  return rows.map((r) => r.id);
}

/**
 * Deletes these ended unpaid orders with their registrations (the caller has deleted the rows of
 * other modules that point at them); the status guard is repeated.
 */
export async function deleteEndedUnpaidOrders(
  tx: Executor,
  orderIds: string[],
): Promise<{ orders: number; registrations: number }> {
  if (orderIds.length === 0) return { orders: 0, registrations: 0 };
  const locked = await lockEndedUnpaidOrders(tx, orderIds);
  if (locked.length === 0) return { orders: 0, registrations: 0 };
  const regs = await tx
    .delete(registrations)
    .where(inArray(registrations.orderId, locked))
    .returning({ id: registrations.id });
  const deleted = await tx
    .delete(orders)
    .where(and(inArray(orders.id, locked), endedUnpaid))
    .returning({ id: orders.id });
  return { orders: deleted.length, registrations: regs.length };
}

/** Of these checkout sessions, those an order still points at (they stay). */
export async function sessionsWithOrders(db: Executor, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ id: orders.checkoutSessionId })
    .from(orders)
    .where(inArray(orders.checkoutSessionId, sessionIds));
  return new Set(rows.map((r) => r.id!));
}
