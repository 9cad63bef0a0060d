// The record of confirmation mails (order_mails): what was sent or tried for an order, read by the
// organizer app's order page and by the senders to stay idempotent and to pace resends.
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { orderMails } from './confirmations.schema.ts';

export type OrderMailRow = typeof orderMails.$inferSelect;
/** paid, resent: the confirmation; transfer_away, transfer_to: the two mails of a transferred place */
type OrderMailKind = 'paid' | 'resent' | 'transfer_away' | 'transfer_to' | 'refund';
type OrderMailOutcome = 'sending' | 'sent' | 'failed';

/** An order's confirmation mails, oldest first (the order page's timeline). */
export async function listOrderMails(
  db: Executor,
  organizationId: string,
  orderId: string,
): Promise<OrderMailRow[]> {
  return db
    .select()
    .from(orderMails)
    .where(and(eq(orderMails.organizationId, organizationId), eq(orderMails.orderId, orderId)))
    .orderBy(asc(orderMails.createdAt), asc(orderMails.id));
}

/** Whether the paid confirmation of the order has gone out already. */
export async function paidMailSent(db: Executor, orderId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: orderMails.id })
    .from(orderMails)
    .where(and(eq(orderMails.orderId, orderId), eq(orderMails.kind, 'paid'), eq(orderMails.outcome, 'sent')))
    .limit(1);
  return row !== undefined;
}

/** Whether the refund's mail has gone out already. */
export async function refundMailSent(db: Executor, refundId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: orderMails.id })
    .from(orderMails)
    .where(
      and(eq(orderMails.refundId, refundId), eq(orderMails.kind, 'refund'), eq(orderMails.outcome, 'sent')),
    )
    .limit(1);
  return row !== undefined;
}

/** The order's latest resend, to pace the next one. */
export async function lastResend(db: Executor, orderId: string): Promise<OrderMailRow | undefined> {
  const [row] = await db
    .select()
    .from(orderMails)
    .where(and(eq(orderMails.orderId, orderId), eq(orderMails.kind, 'resent')))
    .orderBy(desc(orderMails.createdAt), desc(orderMails.id))
    .limit(1);
  return row;
}

export interface NewOrderMail {
  organizationId: string;
  orderId: string;
  kind: OrderMailKind;
  to: string;
  outcome: OrderMailOutcome;
  error?: string | null;
  requestedBy?: { memberId: string | null; label: string } | null;
  createdAt: Date;
  sentAt?: Date | null;
  /** the refund a refund mail tells of */
  refundId?: string | null;
}

/**
 * Records one mail. A second sent paid mail of an order is dropped by the unique index (a job
 * that ran twice): returns null then.
 */
export async function recordOrderMail(db: Executor, mail: NewOrderMail): Promise<OrderMailRow | null> {
  const [row] = await db
    .insert(orderMails)
    .values({
      organizationId: mail.organizationId,
      orderId: mail.orderId,
      kind: mail.kind,
      to: mail.to,
      outcome: mail.outcome,
      error: mail.error ?? null,
      requestedByLabel: mail.requestedBy?.label.slice(0, 320) ?? null,
      requestedByMemberId: mail.requestedBy?.memberId ?? null,
      createdAt: mail.createdAt,
      sentAt: mail.sentAt ?? null,
      refundId: mail.refundId ?? null,
    })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

/** Settles a resend recorded as sending: sent (with when) or failed (with why). */
export async function settleOrderMail(
  db: Executor,
  id: number,
  result: { outcome: 'sent'; sentAt: Date } | { outcome: 'failed'; error: string },
): Promise<OrderMailRow> {
  const [row] = await db
    .update(orderMails)
    .set(
      result.outcome === 'sent'
        ? { outcome: 'sent', sentAt: result.sentAt }
        : { outcome: 'failed', error: result.error },
    )
    .where(eq(orderMails.id, id))
    .returning();
  return row!;
}
