// Asking for a refund: of a whole paid order (refundOrder), or of a payment that bought nothing
// (refundPayment: paid after expiry, or a second payment). Each writes the refund, its audit entry
// and its job in one transaction, refusing what cannot be refunded with nothing changed; the
// provider is then asked at once (process-refund.ts), and the job follows a pending refund.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { recordAudit, type AuditAction } from '../audit/index.ts';
import type { AppContext } from '../context.ts';
import { lockOrder, type OrderRow } from '../orders/index.ts';
import { ApiError, enqueueJob, newId, notFound, type Tx } from '../platform/index.ts';
import type { PaymentAttemptRow } from './payment-attempts.ts';
import { nextPollDelayMs } from './payment-schedule.ts';
import { paymentAttempts, refunds } from './payments.schema.ts';
import { processRefund, REFUND_JOB, type RefundRow } from './process-refund.ts';

/** Who asked: a signed-in member, or the operator (memberId null, label "operator"). */
interface RefundActor {
  memberId: string | null;
  /** the member's email, or "operator" */
  label: string;
}

export interface RefundOrderOptions {
  organizationId: string;
  orderId: string;
  actor: RefundActor;
  /** the client IP of the request; null from the CLI */
  ip: string | null;
}

export interface RefundPaymentOptions {
  organizationId: string;
  /** the payment attempt's reference, as listPaymentsNeedingRefund shows it */
  reference: string;
  actor: RefundActor;
  ip: string | null;
}

const refused = (message: string) => new ApiError('conflict', message);

/**
 * Refunds a paid order in full through the provider that took its payment. Refuses (409 conflict,
 * nothing changed) an order not paid, refunded already, being refunded, or paid without a payment
 * (free); another organization's order is not_found. Returns the refund: succeeded when the
 * provider settled it at once, else pending (the job follows it) or failed.
 */
export async function refundOrder(ctx: AppContext, options: RefundOrderOptions): Promise<RefundRow> {
  const now = ctx.clock.now();
  const refund = await ctx.database.transaction(async (tx) => {
    const order = await lockOrder(tx, options.orderId);
    if (!order || order.organizationId !== options.organizationId) throw notFound('order');
    if (order.status === 'refunded') throw refused('The order was refunded already.');
    if (order.status !== 'paid')
      throw refused(`Only a paid order can be refunded; this one is ${order.status}.`);
    const [paying] = await tx
      .select()
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.orderId, order.id), eq(paymentAttempts.status, 'successful')))
      .orderBy(asc(paymentAttempts.finalizedAt), asc(paymentAttempts.id))
      .limit(1);
    if (!paying) throw refused('The order was free: no payment was taken, so there is nothing to refund.');
    await refuseLiveRefund(
      tx,
      paying,
      'The order is being refunded already.',
      'The order was refunded already.',
    );
    return createRefund(ctx, tx, { ...options, order, attempt: paying, kind: 'order' }, now);
  });
  return askProvider(ctx, refund);
}

/**
 * Refunds a payment that bought nothing: one confirmed after its order stopped holding tickets
 * (paid_after_expiry) or a second payment for an order already paid (duplicate_payment). The
 * order is not changed. Refuses (409) a payment that paid its order, one not successful, and one
 * refunded or being refunded; another organization's payment is not_found.
 */
export async function refundPayment(ctx: AppContext, options: RefundPaymentOptions): Promise<RefundRow> {
  const now = ctx.clock.now();
  const refund = await ctx.database.transaction(async (tx) => {
    const [found] = await tx
      .select()
      .from(paymentAttempts)
      .where(
        and(
          eq(paymentAttempts.reference, options.reference),
          eq(paymentAttempts.organizationId, options.organizationId),
        ),
      );
    if (!found) throw notFound('payment');
    // The order's lock serializes every refund of its payments (and its own refund).
    const order = (await lockOrder(tx, found.orderId))!;
    const [attempt] = await tx.select().from(paymentAttempts).where(eq(paymentAttempts.id, found.id));
    if (attempt!.status !== 'successful') throw refused('Only a successful payment can be refunded.');
    const [first] = await tx
      .select({ id: paymentAttempts.id })
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.orderId, order.id), eq(paymentAttempts.status, 'successful')))
      .orderBy(asc(paymentAttempts.finalizedAt), asc(paymentAttempts.id))
      .limit(1);
    const kind =
      first!.id !== attempt!.id
        ? 'duplicate_payment'
        : order.paidAfterExpiry && order.status !== 'paid'
          ? 'paid_after_expiry'
          : null;
    if (!kind) throw refused('This payment paid its order: refund the order instead.');
    await refuseLiveRefund(
      tx,
      attempt!,
      'The payment is being refunded already.',
      'The payment was refunded already.',
    );
    return createRefund(ctx, tx, { ...options, order, attempt: attempt!, kind }, now);
  });
  return askProvider(ctx, refund);
}

async function refuseLiveRefund(tx: Tx, attempt: PaymentAttemptRow, pending: string, succeeded: string) {
  const [live] = await tx
    .select({ status: refunds.status })
    .from(refunds)
    .where(and(eq(refunds.attemptId, attempt.id), inArray(refunds.status, ['pending', 'succeeded'])));
  if (live) throw refused(live.status === 'pending' ? pending : succeeded);
}

async function createRefund(
  ctx: AppContext,
  tx: Tx,
  options: {
    organizationId: string;
    actor: RefundActor;
    ip: string | null;
    order: OrderRow;
    attempt: PaymentAttemptRow;
    kind: 'order' | 'paid_after_expiry' | 'duplicate_payment';
  },
  now: Date,
): Promise<RefundRow> {
  const { order, attempt, actor } = options;
  if (ctx.gateway.methods.find((m) => m.key === attempt.method)?.supportsRefunds !== true) {
    throw refused(`${attempt.method} payments cannot be refunded through the network`);
  }
  const [refund] = await tx
    .insert(refunds)
    .values({
      id: newId('rfd'),
      organizationId: options.organizationId,
      orderId: order.id,
      attemptId: attempt.id,
      kind: options.kind,
      reference: randomUUID(),
      amount: attempt.amount,
      currency: attempt.currency,
      method: attempt.method,
      status: 'pending',
      requestedByMemberId: actor.memberId,
      requestedByLabel: actor.label,
      createdAt: now,
    })
    .returning();
  const action: AuditAction =
    options.kind === 'order' ? 'order.refund_requested' : 'payment.refund_requested';
  await recordAudit(
    tx,
    {
      organizationId: options.organizationId,
      actor: { ...actor, ip: options.ip },
      action,
      targetType: 'order',
      targetId: order.id,
      details: {
        refund_id: refund!.id,
        order_code: order.orderCode,
        kind: options.kind,
        amount_minor: attempt.amount,
        currency: attempt.currency,
        method: attempt.method,
      },
    },
    now,
  );
  // The job follows the refund if asking at once gives no final answer (or the process dies).
  await enqueueJob(tx, {
    kind: REFUND_JOB,
    payload: { refund_id: refund!.id },
    runAt: new Date(now.getTime() + nextPollDelayMs(0) * ctx.gateway.timeScale),
    dedupeKey: `refund:${refund!.id}`,
    // Provider outages are retried with backoff (capped at an hour) for more than a day, as for payments.
    maxAttempts: 60,
  });
  return refund!;
}

/** Sends the refund and asks once; provider trouble leaves it pending for the job. */
async function askProvider(ctx: AppContext, refund: RefundRow): Promise<RefundRow> {
  try {
    await processRefund(ctx, refund.id);
  } catch (error) {
    ctx.log.warn(
      { err: error, refund_id: refund.id },
      'refund: provider not reachable now; the job will ask',
    );
  }
  const [fresh] = await ctx.database.db.select().from(refunds).where(eq(refunds.id, refund.id));
  return fresh!;
}
