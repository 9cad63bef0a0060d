// Resending a paid order's confirmation from the organizer app: owners and admins, at most once a
// minute per order, each resend audited. The claim (order locked, pace checked, row and audit entry
// written) commits before the mail is handed over, so two clicks at once send one mail, and no
// transaction stays open while the SMTP server answers.
import { recordAudit, type Actor } from '../audit/index.ts';
import type { AppContext } from '../context.ts';
import { MailError } from '../mail/index.ts';
import { lockOrder } from '../orders/index.ts';
import { ApiError, isErased, notFound } from '../platform/index.ts';
import { lastResend, recordOrderMail, settleOrderMail, type OrderMailRow } from './order-mails.ts';
import { loadConfirmation, mailFailureText } from './send-confirmation.ts';

/** One resend per order in this long: a mis-click or an impatient organizer does not flood a buyer. */
const RESEND_INTERVAL_MS = 60_000;

export interface ResendOptions {
  organizationId: string;
  orderId: string;
  actor: Actor;
}

/**
 * Mails the order's confirmation again to its buyer. Refuses, with nothing changed, an order that
 * is not paid or whose buyer data was erased (409 conflict) and a second resend within RESEND_INTERVAL_MS (429 rate_limited);
 * another organization's order is not_found. Returns the recorded mail: sent, or failed with why.
 */
export async function resendConfirmation(ctx: AppContext, options: ResendOptions): Promise<OrderMailRow> {
  const now = ctx.clock.now();
  const claimed = await ctx.database.transaction(async (tx) => {
    // The order's lock serializes resends of one order, so the pace check cannot be raced.
    const order = await lockOrder(tx, options.orderId);
    if (!order || order.organizationId !== options.organizationId) throw notFound('order');
    if (order.status !== 'paid') {
      throw new ApiError(
        'conflict',
        `Only a paid order's confirmation email can be resent; this order is ${order.status}.`,
      );
    }
    if (isErased(order.buyerEmail)) {
      throw new ApiError(
        'conflict',
        "This order's buyer data was erased: there is no address to send the confirmation email to.",
      );
    }
    const last = await lastResend(tx, order.id);
    const wait = last ? last.createdAt.getTime() + RESEND_INTERVAL_MS - now.getTime() : 0;
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new ApiError(
        'rate_limited',
        `The confirmation email of this order was resent less than a minute ago. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    const mail = await recordOrderMail(tx, {
      organizationId: order.organizationId,
      orderId: order.id,
      kind: 'resent',
      to: order.buyerEmail,
      outcome: 'sending',
      requestedBy: { memberId: options.actor.memberId, label: options.actor.label },
      createdAt: now,
    });
    await recordAudit(
      tx,
      {
        organizationId: order.organizationId,
        actor: options.actor,
        action: 'order.confirmation_resent',
        targetType: 'order',
        targetId: order.id,
        details: { order_code: order.orderCode },
      },
      now,
    );
    return mail!;
  });
  const db = ctx.database.db;
  try {
    const loaded = await loadConfirmation(ctx, options.organizationId, options.orderId);
    await ctx.mailer.send(loaded!.message);
  } catch (error) {
    // The mailer logs its own failures; anything else (the database) is logged here.
    if (!(error instanceof MailError))
      ctx.log.warn({ err: error, order_id: options.orderId }, 'resend failed');
    return settleOrderMail(db, claimed.id, { outcome: 'failed', error: mailFailureText(error) });
  }
  return settleOrderMail(db, claimed.id, { outcome: 'sent', sentAt: ctx.clock.now() });
}
