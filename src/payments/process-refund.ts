// Following a refund to its end: send it once (a resend names the same reference, so the provider
// takes it at most once), ask for its status on the payment schedule, and settle it in one
// transaction: an order refund adds to the order's refunded_total, returns its places (tickets
// void, places free again) and makes the order refunded once all was given back (an
// order.refunded webhook each time); a failure leaves the order as it was and the refund failed,
// listed as needing attention. Provider calls happen
// outside any transaction.
import { and, asc, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '../audit/index.ts';
import type { AppContext } from '../context.ts';
import { markOrderRefunded } from '../orders/index.ts';
import type { Executor, OutsideJobHandler } from '../platform/index.ts';
import { voidTickets } from '../tickets/index.ts';
import { providerOf } from './payment-gateway.ts';
import { nextPollDelayMs, RECONCILE_FOR_MS } from './payment-schedule.ts';
import { paymentAttempts, refunds } from './payments.schema.ts';
import type { RefundRequest } from './provider.ts';

export type RefundRow = typeof refunds.$inferSelect;

/** One job per refund: sends it if it was never sent, then asks until it is final. */
export const REFUND_JOB = 'payment.refund';

/**
 * Sends the refund if it was never sent, then asks the provider once. Returns when to ask next,
 * or null when the refund is final. Throws when the provider cannot be asked (the job retries).
 */
export async function processRefund(ctx: AppContext, refundId: string): Promise<Date | null> {
  const db = ctx.database.db;
  const [refund] = await db.select().from(refunds).where(eq(refunds.id, refundId));
  if (!refund || refund.status !== 'pending') return null;
  const [attempt] = await db.select().from(paymentAttempts).where(eq(paymentAttempts.id, refund.attemptId));
  const provider = providerOf(ctx.gateway, refund.method);
  const request: RefundRequest = {
    reference: refund.reference,
    paymentReference: attempt!.reference,
    providerTransactionId: attempt!.providerTransactionId,
    amount: refund.amount,
    paymentAmount: attempt!.amount,
    msisdn: attempt!.msisdn,
    currency: refund.currency,
    description: 'Refund of your ticket payment',
    callbackUrl: `${ctx.gateway.callbackBase}/${refund.method}/refunds/${refund.reference}`,
    providerIds: refund.providerIds,
    providerResult: refund.providerResult,
  };
  // Claimed by one conditional update, so two processes never both send it.
  const [claimed] = await db
    .update(refunds)
    .set({ submittedAt: ctx.clock.now() })
    .where(and(eq(refunds.id, refund.id), isNull(refunds.submittedAt)))
    .returning({ id: refunds.id });
  if (claimed) {
    const sent = await provider.requestRefund(request);
    if (sent.kind === 'rejected') return finish(ctx, refund.id, { status: 'failed', message: sent.message });
    if (sent.kind === 'submitted' && sent.providerIds) {
      // Kept before anything else: the result callback is matched against them (refunds-callback.ts).
      await db
        .update(refunds)
        .set({ providerIds: sent.providerIds })
        .where(and(eq(refunds.id, refund.id), isNull(refunds.providerIds)));
      request.providerIds = sent.providerIds;
    }
  }
  let status = await provider.getRefundStatus(request);
  if (status.status === 'not_found') {
    // Claimed but never taken (a lost request, or a process that died): send it again, under
    // the same reference, which the provider takes at most once.
    const sent = await provider.requestRefund(request);
    if (sent.kind === 'rejected') return finish(ctx, refund.id, { status: 'failed', message: sent.message });
    status = { status: 'pending' };
  }
  if (status.status === 'succeeded' || status.status === 'failed') return finish(ctx, refund.id, status);
  const now = ctx.clock.now();
  const timeScale = ctx.gateway.timeScale;
  if (now.getTime() >= refund.createdAt.getTime() + RECONCILE_FOR_MS * timeScale) {
    return finish(ctx, refund.id, {
      status: 'failed',
      message: 'no final answer from the provider within 24 hours: check with the provider',
    });
  }
  await db
    .update(refunds)
    .set({ polls: refund.polls + 1 })
    .where(eq(refunds.id, refund.id));
  return new Date(now.getTime() + nextPollDelayMs(refund.polls + 1) * timeScale);
}

async function finish(
  ctx: AppContext,
  refundId: string,
  outcome: { status: 'succeeded'; providerReference: string | null } | { status: 'failed'; message: string },
): Promise<null> {
  await ctx.database.transaction(async (tx) => {
    const [refund] = await tx.select().from(refunds).where(eq(refunds.id, refundId)).for('update');
    if (!refund || refund.status !== 'pending') return; // settled meanwhile: duplicates are harmless
    const now = ctx.clock.now();
    const succeeded = outcome.status === 'succeeded';
    await tx
      .update(refunds)
      .set({
        status: outcome.status,
        providerReference: succeeded ? outcome.providerReference : null,
        failureReason: succeeded ? null : outcome.message.slice(0, 500),
        finalizedAt: now,
      })
      .where(eq(refunds.id, refund.id));
    if (succeeded && refund.kind === 'order') {
      const marked = await markOrderRefunded(
        tx,
        refund.orderId,
        {
          id: refund.id,
          amount_minor: refund.amount,
          currency: refund.currency,
          method: refund.method,
          reason: refund.reason,
          registrationIds: refund.registrationIds,
          refunded_at: now.toISOString(),
          provider_reference: outcome.providerReference,
        },
        now,
      );
      if (!marked)
        ctx.log.error({ refund_id: refund.id, order_id: refund.orderId }, 'refunded order was not paid');
      else await voidTickets(tx, marked.registrationIds);
    }
    if (!succeeded) {
      ctx.log.error(
        { refund_id: refund.id, order_id: refund.orderId, reason: outcome.message },
        'refund failed: needs attention',
      );
    }
    await recordAudit(
      tx,
      {
        organizationId: refund.organizationId,
        actor: {
          memberId: null,
          label: ctx.gateway.methods.find((m) => m.key === refund.method)?.provider ?? refund.method,
          ip: null,
        },
        action: succeeded ? 'refund.succeeded' : 'refund.failed',
        targetType: 'refund',
        targetId: refund.id,
        details: {
          order_id: refund.orderId,
          kind: refund.kind,
          amount_minor: refund.amount,
          currency: refund.currency,
          ...(succeeded
            ? { provider_reference: outcome.providerReference }
            : { failure_reason: outcome.message }),
        },
      },
      now,
    );
  });
  return null;
}

/** Failed refunds of the organization, oldest first: money still owed (refunds_failed_idx). */
export async function listFailedRefunds(
  db: Executor,
  organizationId: string,
  limit = 500,
): Promise<RefundRow[]> {
  return db
    .select()
    .from(refunds)
    .where(and(eq(refunds.organizationId, organizationId), eq(refunds.status, 'failed')))
    .orderBy(asc(refunds.createdAt))
    .limit(limit);
}

/** An order's refunds, oldest first (the organizer's order page). */
export async function refundsOfOrder(
  db: Executor,
  organizationId: string,
  orderId: string,
): Promise<RefundRow[]> {
  return db
    .select()
    .from(refunds)
    .where(and(eq(refunds.organizationId, organizationId), eq(refunds.orderId, orderId)))
    .orderBy(asc(refunds.createdAt));
}

export function refundJobHandlers(ctx: AppContext): Record<string, OutsideJobHandler> {
  return {
    [REFUND_JOB]: {
      outsideTransaction: true,
      run: async ({ job }) => {
        const next = await processRefund(ctx, String(job.payload.refund_id));
        return next ? { retryAt: next } : undefined;
      },
    },
  };
}
