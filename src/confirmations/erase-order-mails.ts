// Confirmations' part of retention and erasure (src/privacy/ drives both): the record of an order's
// confirmation mails keeps when and how each went, not to whom once the buyer's data is erased.
import { and, inArray, sql } from 'drizzle-orm';
import { ERASED, type Executor } from '../platform/index.ts';
import { orderMails } from './confirmations.schema.ts';

/** Replaces the recipient of these orders' mail records with the marker; counts the rows changed. */
export async function redactOrderMails(tx: Executor, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  const changed = await tx
    .update(orderMails)
    .set({ to: ERASED })
    .where(and(inArray(orderMails.orderId, orderIds), sql`${orderMails.to} <> ${ERASED}`))
    .returning({ id: orderMails.id });
  return changed.length;
}

/** Deletes these orders' mail records, for orders deleted after they ended unpaid; counts them. */
export async function deleteOrderMails(tx: Executor, orderIds: string[]): Promise<number> {
  if (orderIds.length === 0) return 0;
  const deleted = await tx
    .delete(orderMails)
    .where(inArray(orderMails.orderId, orderIds))
    .returning({ id: orderMails.id });
  return deleted.length;
}
