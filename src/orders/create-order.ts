// Creating an order: the one domain function behind POST /v1/orders and the hosted checkout page.
// Validates everything, holds the tickets, and pays free orders at once, in the caller's transaction.
import type { AppContext } from '../context.ts';
import type { Tx } from '../platform/index.ts';
import { countTickets, holdTickets, isCapacityRefusal, takePaidIfAvailable } from '../events/index.ts';
import { expireLapsedHolds } from './order-lifecycle.ts';
import { planOrder, soldOut, type CreateOrderOptions, type OrderPlan } from './plan-order.ts';
import { writeOrders, type CreatedOrder } from './write-orders.ts';

/**
 * Runs a transaction that creates an order (`run` passes `takeFirst` on to createOrder): once as
 * createOrder prefers, and once more, taking the tickets first, when the capacity CHECK refused
 * the tickets it counted last (other buyers took the room after the event was read). The second
 * run ends in an order or in sold_out, never in that refusal.
 */
export async function runOrderTransaction<T>(run: (takeFirst: boolean) => Promise<T>): Promise<T> {
  try {
    return await run(false);
  } catch (error) {
    if (!isCapacityRefusal(error)) throw error;
    return run(true);
  }
}

/** planOrder, then createPlannedOrder. */
export async function createOrder(
  ctx: AppContext,
  tx: Tx,
  options: CreateOrderOptions,
): Promise<CreatedOrder> {
  return createPlannedOrder(ctx, tx, planOrder(ctx, options));
}

/**
 * Creates a planned order in the caller's transaction. The ticket type row is what every buyer of
 * the event contends for, and its lock is held from the update that counts the tickets to COMMIT:
 * nothing may wait on Node while it is held. When the event as read showed room (countLast), the
 * tickets are counted last, by unconditional updates that the capacity CHECK backs, and COMMIT
 * follows on the wire without waiting for them: the lock is held for no round trip. If other
 * orders took the room in between, the CHECK fails the transaction and runOrderTransaction runs
 * it once more with takeFirst. Otherwise the tickets are taken first, by one conditional UPDATE
 * per ticket type (never read-then-write), so that a sold-out order costs no writes and seats of
 * lapsed holds not yet swept can be freed. A free order's tickets are counted as paid at once,
 * instead of held and then converted.
 */
export async function createPlannedOrder(ctx: AppContext, tx: Tx, plan: OrderPlan): Promise<CreatedOrder> {
  if (!plan.countLast) await takeTicketsFirst(tx, plan);
  const [created] = writeOrders(ctx, tx, [plan]) as [CreatedOrder];
  if (!plan.countLast) return created;
  const counted = [...plan.quantities].map(([id, n]) => countTickets(tx, id, countsOf(plan, n)));
  const written = Promise.all([created.written, ...counted]);
  written.catch(() => {}); // whoever commits awaits them
  return { ...created, written };
}

/** `n` tickets of a plan as countTickets counts them: paid at once when the order is free */
export function countsOf(plan: OrderPlan, n: number): { held: number; paid: number } {
  return plan.free ? { held: 0, paid: n } : { held: n, paid: 0 };
}

async function takeTicketsFirst(tx: Tx, plan: OrderPlan): Promise<void> {
  const { found, free, now } = plan;
  // (an order sold out as read, with no hold that could lapse, was refused by planOrder)
  const take = (ticketTypeId: string, n: number) =>
    free ? takePaidIfAvailable(tx, new Map([[ticketTypeId, n]])) : holdTickets(tx, ticketTypeId, n);
  for (const [id, n] of plan.quantities) {
    if (await take(id, n)) continue;
    // Seats held by lapsed orders not yet swept are free in truth: release them, try once more.
    if ((await expireLapsedHolds(tx, id, now)) > 0 && (await take(id, n))) continue;
    throw soldOut(found, id, n);
  }
}
