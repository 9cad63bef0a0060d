// The per-client place limit of the hosted checkout page: the tickets one client IP takes for one
// event, in active unpaid holds and in free orders placed within the last hold period, may not
// pass a setting. A free place is paid at once and holds nothing, but without counting it one
// address could take every free place in a few posts. Counted in the order's transaction under a
// transaction-level advisory lock on (event, client), so that concurrent orders from one client
// are counted one after another and cannot pass the limit together.
import { createHash } from 'node:crypto';
import { and, asc, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import type { Clock, Executor, Tx } from '../platform/index.ts';
import { orders, registrations } from './orders.schema.ts';

/** First key of the two-key advisory locks this module takes (the ASCII of "Hold"). */
const HOLD_LOCK_CLASS = 0x486f6c64;

export interface HoldLimitCheck {
  eventId: string;
  /** the keyed hash of the client's IP that the order will carry (orders.client_ip_hash) */
  clientIpHash: string;
  /** tickets the new order would hold */
  tickets: number;
  limit: number;
  /** how long a free place counts after it is taken: the length of a hold */
  freeWindowMs: number;
  /** read once the lock is held: the holds counted were all placed before that moment */
  clock: Clock;
  /** the session placing the order: its own pending order is replaced, so it does not count */
  sessionId: string;
}

export type HoldRoom = { allowed: true } | { allowed: false; held: number; retryAfterSeconds: number };

/** The second advisory lock key: 32 bits of (event, client); a rare collision only serializes. */
function lockKey(eventId: string, clientIpHash: string): number {
  return createHash('sha256').update(`${eventId}\n${clientIpHash}`).digest().readInt32BE(0);
}

/**
 * Whether the client may take `tickets` more for the event, and if not, in how many seconds
 * enough of its holds lapse or free places age out. Takes the lock first: it is held to the end of the caller's
 * transaction, which must then write the order (with the same client_ip_hash) or nothing.
 */
export async function checkHoldLimit(tx: Tx, check: HoldLimitCheck): Promise<HoldRoom> {
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(${HOLD_LOCK_CLASS}::int, ${lockKey(check.eventId, check.clientIpHash)}::int)`,
  );
  // A new statement after the lock: under READ COMMITTED it sees every order committed by the
  // transactions that held the lock before. The time is read after the lock too, so that a wait
  // never exceeds a hold's length however long the lock took.
  const now = check.clock.now();
  const freeSince = new Date(now.getTime() - check.freeWindowMs);
  // Each counted order with the moment it stops counting: a hold when it lapses, a free place one
  // window after it was taken.
  const until = sql<Date | string>`CASE WHEN ${orders.status} = 'pending' THEN ${orders.holdExpiresAt}
    ELSE ${orders.createdAt} + ${`${check.freeWindowMs} milliseconds`}::interval END`;
  const holds = await tx
    .select({ until, tickets: sql<number>`count(*)::int` })
    .from(orders)
    .innerJoin(registrations, eq(registrations.orderId, orders.id))
    .where(
      and(
        eq(orders.eventId, check.eventId),
        eq(orders.clientIpHash, check.clientIpHash),
        or(
          and(
            eq(orders.status, 'pending'),
            gt(orders.holdExpiresAt, now),
            or(isNull(orders.checkoutSessionId), ne(orders.checkoutSessionId, check.sessionId)),
          ),
          and(eq(orders.status, 'paid'), eq(orders.total, 0), gt(orders.createdAt, freeSince)),
        ),
      ),
    )
    .groupBy(orders.id)
    .orderBy(asc(until));
  const held = holds.reduce((sum, h) => sum + Number(h.tickets), 0);
  const excess = held + check.tickets - check.limit;
  if (excess <= 0) return { allowed: true };
  // The earliest moment enough of the client's holds have lapsed for this order to fit.
  let freed = 0;
  let fitsAt = now;
  for (const hold of holds) {
    freed += Number(hold.tickets);
    fitsAt = new Date(hold.until);
    if (freed >= excess) break;
  }
  const retryAfterSeconds = Math.max(1, Math.ceil((fitsAt.getTime() - now.getTime()) / 1000));
  return { allowed: false, held, retryAfterSeconds };
}

/**
 * Per ticket type of the event with unpaid holds, when the first of those holds ends: the checkout
 * tells a buyer who finds a type held in full when some may free up.
 */
export async function firstHoldEnds(db: Executor, eventId: string, now: Date): Promise<Map<string, Date>> {
  const rows = await db
    .select({
      ticketTypeId: registrations.ticketTypeId,
      endsAt: sql<Date | string>`min(${orders.holdExpiresAt})`,
    })
    .from(orders)
    .innerJoin(registrations, eq(registrations.orderId, orders.id))
    .where(and(eq(orders.eventId, eventId), eq(orders.status, 'pending'), gt(orders.holdExpiresAt, now)))
    .groupBy(registrations.ticketTypeId);
  return new Map(rows.map((r) => [r.ticketTypeId, new Date(r.endsAt)]));
}
