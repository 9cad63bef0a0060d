// Money that moved through the networks, for the organizer's money page and reconciliation file
// (src/sales/): refunds summed per network, and each payment and refund of some orders with the
// network's reference, to match against MTN MoMo and Airtel Money statements.
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { paymentAttempts, refunds } from './payments.schema.ts';

export interface MethodRefunds {
  method: string;
  refunds: number;
  amountMinor: number;
  /** the part of it that was service fees */
  feesMinor: number;
  donationsMinor: number;
}

/**
 * Succeeded refunds of orders (kind order: not those of payments that bought nothing, which no
 * sale counted), of the orders `orderIds` selects, per network.
 */
export async function orderRefundsByMethod(
  db: Executor,
  organizationId: string,
  orderIds: SQL,
): Promise<MethodRefunds[]> {
  const rows = await db
    .select({
      method: refunds.method,
      refunds: sql<number>`count(*)::int`,
      amountMinor: sql<number>`coalesce(sum(${refunds.amount}), 0)::bigint`,
      feesMinor: sql<number>`coalesce(sum(${refunds.feeAmount}), 0)::bigint`,
      donationsMinor: sql<number>`coalesce(sum(${refunds.donationAmount}), 0)::bigint`,
    })
    .from(refunds)
    .where(
      and(
        eq(refunds.organizationId, organizationId),
        sql`${refunds.kind} = 'order' AND ${refunds.status} = 'succeeded'`,
        sql`${refunds.orderId} IN ${orderIds}`,
      ),
    )
    .groupBy(refunds.method);
  return rows.map((r) => ({
    method: r.method,
    refunds: Number(r.refunds),
    amountMinor: Number(r.amountMinor),
    feesMinor: Number(r.feesMinor),
    donationsMinor: Number(r.donationsMinor),
  }));
}

export interface MoneyMovement {
  type: 'payment' | 'refund';
  orderId: string;
  /** when the network confirmed it */
  at: Date;
  method: string;
  amountMinor: number;
  currency: string;
  /** ours: the request id the network was sent (MTN X-Reference-Id, Airtel transaction id) */
  reference: string;
  /** the network's own id of the transaction, as its statement shows it */
  providerReference: string | null;
  /** for a refund: order (of the order), paid_after_expiry or duplicate_payment */
  refundKind: string | null;
}

/**
 * Every successful payment and succeeded refund of these orders, each order's in the order they
 * happened: payment_attempts_order_idx and refunds_order_idx find them.
 */
export async function movementsOfOrders(
  db: Executor,
  organizationId: string,
  orderIds: string[],
): Promise<MoneyMovement[]> {
  if (orderIds.length === 0) return [];
  const [paid, returned] = await Promise.all([
    db
      .select()
      .from(paymentAttempts)
      .where(
        and(
          eq(paymentAttempts.organizationId, organizationId),
          inArray(paymentAttempts.orderId, orderIds),
          eq(paymentAttempts.status, 'successful'),
        ),
      )
      .orderBy(asc(paymentAttempts.finalizedAt), asc(paymentAttempts.id)),
    db
      .select()
      .from(refunds)
      .where(
        and(
          eq(refunds.organizationId, organizationId),
          inArray(refunds.orderId, orderIds),
          eq(refunds.status, 'succeeded'),
        ),
      )
      .orderBy(asc(refunds.finalizedAt), asc(refunds.id)),
  ]);
  const movements: MoneyMovement[] = [
    ...paid.map((a) => ({
      type: 'payment' as const,
      orderId: a.orderId,
      at: a.finalizedAt ?? a.createdAt,
      method: a.method,
      amountMinor: a.amount,
      currency: a.currency,
      reference: a.reference,
      providerReference: a.providerTransactionId,
      refundKind: null,
    })),
    ...returned.map((r) => ({
      type: 'refund' as const,
      orderId: r.orderId,
      at: r.finalizedAt ?? r.createdAt,
      method: r.method,
      amountMinor: r.amount,
      currency: r.currency,
      reference: r.reference,
      providerReference: r.providerReference,
      refundKind: r.kind,
    })),
  ];
  return movements.sort((a, b) => a.at.getTime() - b.at.getTime());
}
