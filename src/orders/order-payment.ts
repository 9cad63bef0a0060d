// What paying changes on an order, for the payments module (payments/start-payment.ts): the price for
// the chosen method, the hold stretched over a prompt, a failed attempt shown to the buyer.
import { asc, eq, sql } from 'drizzle-orm';
import { feeFor, methodFee, type PricedMethod } from '../events/index.ts';
import { findOrganization } from '../organizations/index.ts';
import { payableUnit, type Executor, type Tx } from '../platform/index.ts';
import { lockOrder } from './order-lifecycle.ts';
import type { OrderRow } from './order-out.ts';
import { transition, type FailureKind } from './order-state.ts';
import { orders, registrations } from './orders.schema.ts';

/** Sets the fee of the chosen method on the order and its registrations. */
export async function repriceOrder(
  tx: Tx,
  order: OrderRow,
  method: PricedMethod,
  now: Date,
): Promise<OrderRow> {
  const organization = await findOrganization(tx, order.organizationId);
  const regs = await tx
    .select()
    .from(registrations)
    .where(eq(registrations.orderId, order.id))
    .orderBy(asc(registrations.position));
  let lacesFee = 0;
  for (const reg of regs) {
    const fee = feeFor(reg.priceMinor, methodFee(organization!.fees, method), payableUnit(order.currency));
    lacesFee += fee;
    if (fee !== reg.feeMinor)
      await tx.update(registrations).set({ feeMinor: fee }).where(eq(registrations.id, reg.id));
  }
  const total = order.subtotal - order.discountTotal + order.donationTotal + lacesFee;
  const [row] = await tx
    .update(orders)
    .set({ paymentMethod: method.key, lacesFee, total, updatedAt: now })
    .where(eq(orders.id, order.id))
    .returning();
  return row!;
}

/** Holds the order's tickets until at least `until` (never shortens the hold). */
export async function extendHold(db: Executor, orderId: string, until: Date, now: Date): Promise<OrderRow> {
  const [extended] = await db
    .update(orders)
    .set({
      holdExpiresAt: sql`greatest(${orders.holdExpiresAt}, ${until.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(eq(orders.id, orderId))
    .returning();
  return extended!;
}

/** Records the order's failure for the buyer, who may pay again while the hold lasts. */
export async function showPaymentFailure(
  tx: Tx,
  orderId: string,
  kind: FailureKind,
  now: Date,
): Promise<void> {
  const order = await lockOrder(tx, orderId);
  if (!order) return;
  const next = transition(
    { status: order.status as 'pending', failureKind: order.failureKind as FailureKind | null },
    { type: 'payment_failed', failureKind: kind as Exclude<FailureKind, 'hold_expired'> },
  );
  if (next.ok) {
    await tx
      .update(orders)
      .set({ failureKind: next.next.failureKind, updatedAt: now })
      .where(eq(orders.id, order.id));
  }
}
