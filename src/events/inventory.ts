// Ticket type inventory: the held and paid counts on the ticket type rows, changed for orders'
// holds and payments. The paid plus held count of a ticket type never exceeds its capacity: every
// change is one conditional UPDATE on the ticket type row inside the order's transaction (never
// read-then-write), rows are always touched in id order so concurrent orders cannot deadlock,
// and a CHECK constraint backs it up.
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { ticketTypes } from './events.schema.ts';
import { violates, type Executor } from '../platform/index.ts';

/**
 * A ticket type without a limit of places has the largest capacity a column holds, so that every
 * guard above stays one comparison (docs/decisions/unlimited-places.md).
 */
export const UNLIMITED_CAPACITY = 2_147_483_647;

export function isUnlimited(capacity: number): boolean {
  return capacity >= UNLIMITED_CAPACITY;
}

/** ticket type id -> quantity, in id order */
export type Quantities = Map<string, number>;

export function quantitiesOf(ticketTypeIds: readonly string[]): Quantities {
  const counts = new Map<string, number>();
  for (const id of ticketTypeIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return new Map([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Holds `n` tickets if capacity allows; false when it does not (nothing changed). */
export async function holdTickets(db: Executor, ticketTypeId: string, n: number): Promise<boolean> {
  const rows = await db
    .update(ticketTypes)
    .set({ heldCount: sql`${ticketTypes.heldCount} + ${n}` })
    .where(
      and(
        eq(ticketTypes.id, ticketTypeId),
        sql`${ticketTypes.paidCount} + ${ticketTypes.heldCount} + ${n} <= ${ticketTypes.capacity}`,
      ),
    )
    .returning({ id: ticketTypes.id });
  return rows.length === 1;
}

const INVENTORY_CHECK = 'ticket_types_inventory_check';

/**
 * Counts more tickets as held and as paid with no condition of its own: when they do not fit, the
 * capacity CHECK refuses the update and fails the transaction (isCapacityRefusal). Its caller
 * needs no answer, so COMMIT can follow it on the wire.
 */
export async function countTickets(
  db: Executor,
  ticketTypeId: string,
  counts: { held: number; paid: number },
): Promise<void> {
  await db.execute(ticketCountUpdate(ticketTypeId, counts));
}

/** The statement countTickets runs, for a caller that sends it with other writes. */
export function ticketCountUpdate(ticketTypeId: string, counts: { held: number; paid: number }): SQL {
  return sql`UPDATE ${ticketTypes} SET held_count = held_count + ${counts.held},
    paid_count = paid_count + ${counts.paid} WHERE id = ${ticketTypeId}`;
}

/** True when `error` is the capacity CHECK refusing countTickets (SQLSTATE 23514). */
export function isCapacityRefusal(error: unknown): boolean {
  return violates(error, '23514', INVENTORY_CHECK);
}

/**
 * The refusal the capacity CHECK would give, for tickets found not to fit without sending the
 * update (isCapacityRefusal recognises it).
 */
export function capacityRefusal(ticketTypeId: string): Error {
  return Object.assign(new Error(`the tickets of ${ticketTypeId} do not fit its capacity`), {
    code: '23514',
    constraint: INVENTORY_CHECK,
  });
}

export interface LockedTicketType {
  id: string;
  capacity: number;
  paidCount: number;
  heldCount: number;
}

/** Locks ticket type rows (in id order, as every writer takes them) and reads their counts. */
export async function lockTicketTypes(db: Executor, ids: readonly string[]): Promise<LockedTicketType[]> {
  return db
    .select({
      id: ticketTypes.id,
      capacity: ticketTypes.capacity,
      paidCount: ticketTypes.paidCount,
      heldCount: ticketTypes.heldCount,
    })
    .from(ticketTypes)
    .where(inArray(ticketTypes.id, [...ids]))
    .orderBy(ticketTypes.id)
    .for('update');
}

/** Gives held tickets back (hold expired, order cancelled). */
export async function releaseTickets(db: Executor, quantities: Quantities): Promise<void> {
  for (const [id, n] of quantities) {
    await db
      .update(ticketTypes)
      .set({ heldCount: sql`${ticketTypes.heldCount} - ${n}` })
      .where(eq(ticketTypes.id, id));
  }
}

/** Turns held tickets into paid ones (payment confirmed). */
export async function convertHeldToPaid(db: Executor, quantities: Quantities): Promise<void> {
  for (const [id, n] of quantities) {
    await db
      .update(ticketTypes)
      .set({
        heldCount: sql`${ticketTypes.heldCount} - ${n}`,
        paidCount: sql`${ticketTypes.paidCount} + ${n}`,
      })
      .where(eq(ticketTypes.id, id));
  }
}

/**
 * Counts tickets as paid without a hold (a free order, paid at once; a late payment honoured
 * after its hold lapsed), only if capacity remains for all of them; false changes nothing.
 */
export async function takePaidIfAvailable(db: Executor, quantities: Quantities): Promise<boolean> {
  const done: Quantities = new Map();
  for (const [id, n] of quantities) {
    const rows = await db
      .update(ticketTypes)
      .set({ paidCount: sql`${ticketTypes.paidCount} + ${n}` })
      .where(
        and(
          eq(ticketTypes.id, id),
          sql`${ticketTypes.paidCount} + ${ticketTypes.heldCount} + ${n} <= ${ticketTypes.capacity}`,
        ),
      )
      .returning({ id: ticketTypes.id });
    if (rows.length === 0) {
      for (const [doneId, doneN] of done) {
        await db
          .update(ticketTypes)
          .set({ paidCount: sql`${ticketTypes.paidCount} - ${doneN}` })
          .where(eq(ticketTypes.id, doneId));
      }
      return false;
    }
    done.set(id, n);
  }
  return true;
}
