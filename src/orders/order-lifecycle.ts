// Order status changes after creation: paid, hold expired, cancelled, refunded. Each one locks the order row,
// asks the pure state machine, and moves inventory in the same transaction.
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { continueStoredTrace, type Executor } from '../platform/index.ts';
import { writeOutboxEvents, type OutboxEvent } from '../webhooks/index.ts';
import {
  convertHeldToPaid,
  countTickets,
  quantitiesOf,
  releaseTickets,
  takePaidIfAvailable,
} from '../events/index.ts';
import { loadOrderOut, type OrderOut, type OrderRow } from './order-out.ts';
import { transition, type FailureKind, type OrderEvent, type OrderState } from './order-state.ts';
import { orders, registrations } from './orders.schema.ts';

export async function lockOrder(db: Executor, orderId: string): Promise<OrderRow | undefined> {
  const [row] = await db.select().from(orders).where(eq(orders.id, orderId)).for('update');
  return row;
}

function stateOf(order: OrderRow): OrderState {
  return {
    status: order.status as OrderState['status'],
    failureKind: order.failureKind as FailureKind | null,
  };
}

async function ticketQuantities(db: Executor, orderId: string) {
  const rows = await db
    .select({ ticketTypeId: registrations.ticketTypeId })
    .from(registrations)
    .where(eq(registrations.orderId, orderId));
  return quantitiesOf(rows.map((r) => r.ticketTypeId));
}

async function applyState(
  db: Executor,
  order: OrderRow,
  event: OrderEvent,
  now: Date,
  extra: Partial<OrderRow> = {},
) {
  const result = transition(stateOf(order), event);
  if (!result.ok) return null;
  const [row] = await db
    .update(orders)
    .set({ status: result.next.status, failureKind: result.next.failureKind, updatedAt: now, ...extra })
    .where(eq(orders.id, order.id))
    .returning();
  return row!;
}

export type PayOutcome =
  | { kind: 'paid'; order: OrderRow }
  | { kind: 'already_paid'; order: OrderRow }
  /** confirmed after the hold lapsed with no capacity left, or for a cancelled order: recorded for refund */
  | { kind: 'paid_after_expiry'; order: OrderRow }
  | { kind: 'not_payable'; order: OrderRow };

/**
 * The order-paying transaction: order paid, registrations confirmed and an order.paid outbox row,
 * all in the caller's transaction; the caller completes the order's checkout session (payments'
 * settleOrderPaid). Safe to call twice (already_paid).
 * A payment confirmed after the hold expired is honoured if capacity remains, else recorded as
 * paid_after_expiry for refund; one for a cancelled order (its buyer started over while a timed-out
 * prompt was still being reconciled) is recorded the same way. It is never dropped.
 * With tracing on, the paying continues the order's trace (orders.trace_context), and so does its
 * order.paid delivery, whether a job of that trace, a provider's callback or anything else pays it.
 */
export async function confirmOrderPaid(db: Executor, orderId: string, now: Date): Promise<PayOutcome> {
  const order = await lockOrder(db, orderId);
  if (!order) throw new Error(`order ${orderId} not found`);
  if (order.status === 'paid' || order.status === 'refunded') return { kind: 'already_paid', order };
  return continueStoredTrace(order.traceContext, 'order paid', () => payLockedOrder(db, order, now));
}

/** confirmOrderPaid once the order is locked and not paid yet. */
async function payLockedOrder(db: Executor, order: OrderRow, now: Date): Promise<PayOutcome> {
  const quantities = await ticketQuantities(db, order.id);
  let paid: OrderRow | null = null;
  if (order.status === 'pending') {
    await convertHeldToPaid(db, quantities);
    paid = await applyState(db, order, { type: 'payment_confirmed' }, now, {
      paidAt: now,
      holdExpiresAt: null,
    });
  } else if (order.status === 'expired' || order.status === 'cancelled') {
    if (order.status === 'expired' && (await takePaidIfAvailable(db, quantities))) {
      // With an earlier payment flagged for refund, one of the two is still to be refunded: the
      // list of payments needing refund then shows the later one as a second payment.
      paid = await applyState(db, order, { type: 'late_payment_honoured' }, now, {
        paidAt: now,
        closedAt: null,
        paidAfterExpiry: false,
      });
    } else {
      const [flagged] = await db
        .update(orders)
        .set({ paidAfterExpiry: true, updatedAt: now })
        .where(eq(orders.id, order.id))
        .returning();
      return { kind: 'paid_after_expiry', order: flagged! };
    }
  }
  if (!paid) return { kind: 'not_payable', order };
  await db.update(registrations).set({ status: 'confirmed' }).where(eq(registrations.orderId, order.id));
  await recordOrderPaid(db, paid, await loadOrderOut(db, paid), now);
  return { kind: 'paid', order: paid };
}

/**
 * What every order that becomes paid writes besides itself and its registrations: one order.paid
 * outbox row whose data is the Order (`data`). Used by confirmOrderPaid and by createOrder for
 * free orders.
 */
async function recordOrderPaid(db: Executor, order: OrderRow, data: OrderOut, now: Date): Promise<void> {
  await writeOutboxEvents(db, orderPaidEvents([{ order, data, now }]));
}

/**
 * The outbox rows recordOrderPaid writes, for orders written paid at once (write-orders.ts): each
 * in the trace given, or the active span's.
 */
export function orderPaidEvents(
  paid: Array<{ order: OrderRow; data: OrderOut; now: Date; traceContext?: string | null }>,
): OutboxEvent[] {
  return paid.map(({ order, data, now, traceContext }) => ({
    organizationId: order.organizationId,
    type: 'order.paid',
    data,
    at: now,
    ...(traceContext !== undefined && { traceContext }),
  }));
}

/**
 * Expires a pending order whose hold has lapsed, releasing its tickets. Returns the time to look
 * again when the hold was extended, 'done' otherwise (including when there was nothing to do).
 */
export async function expireOrderHold(
  db: Executor,
  orderId: string,
  now: Date,
): Promise<'done' | { retryAt: Date }> {
  const order = await lockOrder(db, orderId);
  if (!order || order.status !== 'pending') return 'done';
  if (order.holdExpiresAt && order.holdExpiresAt.getTime() > now.getTime())
    return { retryAt: order.holdExpiresAt };
  await releaseTickets(db, await ticketQuantities(db, order.id));
  await applyState(db, order, { type: 'hold_expired' }, now, { closedAt: now });
  await db.update(registrations).set({ status: 'cancelled' }).where(eq(registrations.orderId, order.id));
  return 'done';
}

/** Cancels a pending order and releases its tickets; false when the order was not pending. */
export async function cancelPendingOrder(db: Executor, orderId: string, now: Date): Promise<boolean> {
  const order = await lockOrder(db, orderId);
  if (!order || order.status !== 'pending') return false;
  await releaseTickets(db, await ticketQuantities(db, order.id));
  await applyState(db, order, { type: 'cancel' }, now, { closedAt: now });
  await db.update(registrations).set({ status: 'cancelled' }).where(eq(registrations.orderId, order.id));
  return true;
}

/**
 * Expires every pending order holding this ticket type whose hold has lapsed, so a buyer is never
 * refused for seats that are free in truth but not yet swept. Orders locked by someone else are
 * skipped (they are being settled right now).
 */
export async function expireLapsedHolds(db: Executor, ticketTypeId: string, now: Date): Promise<number> {
  const lapsed = await db
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.status, 'pending'),
        sql`${orders.holdExpiresAt} <= ${now.toISOString()}::timestamptz`,
        sql`EXISTS (SELECT 1 FROM ${registrations} WHERE ${registrations.orderId} = ${orders.id} AND ${registrations.ticketTypeId} = ${ticketTypeId})`,
      ),
    )
    .limit(200)
    .for('update', { skipLocked: true });
  let expired = 0;
  for (const { id } of lapsed) if ((await expireOrderHold(db, id, now)) === 'done') expired++;
  return expired;
}

/** The `refund` object of an order.refunded event (docs/partners/webhooks.md, "What your endpoint receives"). */
export interface OrderRefundOut {
  id: string;
  /** what this refund gave back */
  amount_minor: number;
  currency: string;
  method: string;
  reason: string | null;
  /** the runners whose places it returned; [] for an amount alone */
  registration_ids: string[];
  refunded_at: string;
  provider_reference: string | null;
}

/**
 * A refund of a paid order succeeded, in the caller's transaction: refunded_total grows by its
 * amount; the places it returns are cancelled, marked with the refund and free again (paid_count),
 * and once refunded_total reaches what was paid the order becomes refunded and every place left
 * goes with it; one order.refunded outbox row carries the Order with the refund. Null (nothing
 * changed) unless the order was paid. Answers the order and the registrations returned.
 */
export async function markOrderRefunded(
  db: Executor,
  orderId: string,
  refund: Omit<OrderRefundOut, 'registration_ids'> & { registrationIds: string[] },
  now: Date,
): Promise<{ order: OrderRow; registrationIds: string[] } | null> {
  const order = await lockOrder(db, orderId);
  if (!order || order.status !== 'paid') return null;
  const refundedTotal = order.refundedTotal + refund.amount_minor;
  const whole = refundedTotal >= order.total;
  const updated = whole
    ? await applyState(db, order, { type: 'refund' }, now, { closedAt: now, refundedTotal })
    : (
        await db
          .update(orders)
          .set({ refundedTotal, updatedAt: now })
          .where(eq(orders.id, order.id))
          .returning()
      )[0];
  if (!updated) return null;
  const asked = new Set(refund.registrationIds);
  const returned = await db
    .update(registrations)
    .set({ status: 'cancelled', refundId: refund.id })
    .where(
      and(
        eq(registrations.orderId, order.id),
        eq(registrations.status, 'confirmed'),
        isNull(registrations.refundId),
        whole ? undefined : inArray(registrations.id, [...asked, '']),
      ),
    )
    .returning({
      id: registrations.id,
      ticketTypeId: registrations.ticketTypeId,
      position: registrations.position,
    });
  returned.sort((a, b) => a.position - b.position);
  for (const [ticketTypeId, n] of quantitiesOf(returned.map((r) => r.ticketTypeId))) {
    await countTickets(db, ticketTypeId, { held: 0, paid: -n });
  }
  const { registrationIds: _asked, ...out } = refund;
  const registrationIds = returned.map((r) => r.id);
  const data = {
    ...(await loadOrderOut(db, updated)),
    refund: { ...out, registration_ids: registrationIds },
  };
  await writeOutboxEvents(db, [
    { organizationId: order.organizationId, type: 'order.refunded', data, at: now },
  ]);
  return { order: updated, registrationIds };
}
