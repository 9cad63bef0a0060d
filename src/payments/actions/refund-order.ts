// Asking for a refund: of a paid order, in full or in part (refundOrder: what is left, some
// runners' places, or an amount; payments/refund-amounts.ts says what each gives back), or of a
// payment that bought nothing (refundPayment: paid after expiry, or a second payment). Each writes
// the refund, its audit entry and its job in one transaction, refusing what cannot be refunded
// with nothing changed; the provider is then asked at once (process-refund.ts), and the job
// follows a pending refund.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { recordAudit, type AuditAction } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import {
  findOrder,
  lockOrder,
  registrationsOf,
  type OrderRow,
  type RegistrationRow,
} from '../../orders/index.ts';
import { ApiError, enqueueJob, newId, notFound, type Executor, type Tx } from '../../platform/index.ts';
import type { PaymentAttemptRow } from '../payment-attempts.ts';
import { nextPollDelayMs } from '../payment-schedule.ts';
import { paymentAttempts, refunds } from '../payments.schema.ts';
import { processRefund, REFUND_JOB, type RefundRow } from '../process-refund.ts';
import { discountShares, planRefund, type RefundPlan, type Returned } from '../refund-amounts.ts';

/** Who asked: a signed-in member, an API client or the operator (memberId null for both). */
interface RefundActor {
  memberId: string | null;
  /** the member's email, "API client cli_..." or "operator" */
  label: string;
}

export interface RefundOrderOptions {
  organizationId: string;
  orderId: string;
  actor: RefundActor;
  /** the client IP of the request; null from the CLI */
  ip: string | null;
  /** what to give back, minor units; absent: what the runners come to, or all that is left */
  amountMinor?: number | undefined;
  /** the runners whose places go back; absent: none, or all when no amount is given either */
  registrationIds?: string[] | undefined;
  /** why, in the asker's words (trimmed; 1 to 500 characters), or null */
  reason?: string | null | undefined;
}

export interface RefundPaymentOptions {
  organizationId: string;
  /** the payment attempt's reference, as listPaymentsNeedingRefund shows it */
  reference: string;
  actor: RefundActor;
  ip: string | null;
}

const refused = (message: string) => new ApiError('conflict', message);
/** An amount or runners that cannot be honoured: 422, never a silently different refund. */
const notPossible = (message: string) => new ApiError('refund_not_possible', message);

/**
 * Refunds a paid order, in full or in part, through the provider that took its payment (see
 * requestOrderRefund), then asks the provider at once. Returns the refund: succeeded when the
 * provider settled it at once, else pending (the job follows it) or failed.
 */
export async function refundOrder(ctx: AppContext, options: RefundOrderOptions): Promise<RefundRow> {
  const refund = await ctx.database.transaction((tx) => requestOrderRefund(ctx, tx, options));
  return sendRefund(ctx, refund);
}

/**
 * Writes the refund of a paid order in the caller's transaction (the partner API's runs under its
 * Idempotency-Key), pending; sendRefund asks the provider once it committed. Refuses, nothing
 * changed: another organization's order (not_found); an order not paid, refunded already, or with
 * a refund pending (409 conflict); an amount above what is left, runners not of the order or
 * refunded already, a free order, or a method that cannot give this back (422 refund_not_possible).
 */
export async function requestOrderRefund(
  ctx: AppContext,
  tx: Tx,
  options: RefundOrderOptions,
): Promise<RefundRow> {
  const now = ctx.clock.now();
  const order = await lockOrder(tx, options.orderId);
  if (!order || order.organizationId !== options.organizationId) throw notFound('order');
  const { paying, plan, regs } = await planOrderRefund(ctx, tx, order, options);
  const names = new Map(regs.map((r) => [r.id, r.participantName]));
  return createRefund(
    ctx,
    tx,
    {
      ...options,
      order,
      attempt: paying,
      kind: 'order',
      plan,
      reason: options.reason ?? null,
      runnerNames: plan.registrationIds.map((id) => names.get(id) ?? id),
    },
    now,
  );
}

/** What a refund of the order would give back, asked as the options say: the order page's preview. */
export interface RefundPreview {
  order: OrderRow;
  plan: RefundPlan;
  /** what is left to refund before this one */
  left: number;
  /** each runner, what its place alone would give back, and whether it went back already */
  runners: Array<{ registration: RegistrationRow; amount: number; refunded: boolean }>;
}

/**
 * The refund the options ask for, checked by the same rules as requestOrderRefund and refused the
 * same way, without writing anything (nor locking: the refund itself checks again).
 */
export async function previewOrderRefund(
  ctx: AppContext,
  options: Pick<RefundOrderOptions, 'organizationId' | 'orderId' | 'amountMinor' | 'registrationIds'>,
): Promise<RefundPreview> {
  const db = ctx.database.db;
  const order = await findOrder(db, options.organizationId, options.orderId);
  if (!order) throw notFound('order');
  const { plan, regs, returned } = await planOrderRefund(ctx, db, order, options);
  const shares = discountShares(
    order.discountTotal,
    regs.map((r) => r.priceMinor),
  );
  return {
    order,
    plan,
    left: order.total - returned.amount,
    runners: regs.map((registration, i) => ({
      registration,
      amount: registration.priceMinor + registration.feeMinor - shares[i]!,
      refunded: isRefunded(registration),
    })),
  };
}

const isRefunded = (r: RegistrationRow) => r.refundId !== null || r.status !== 'confirmed';

/** The rules of an order's refund, on the order as read: the payment, the plan, or the refusal. */
async function planOrderRefund(
  ctx: AppContext,
  db: Executor,
  order: OrderRow,
  asked: Pick<RefundOrderOptions, 'amountMinor' | 'registrationIds'>,
): Promise<{ paying: PaymentAttemptRow; plan: RefundPlan; regs: RegistrationRow[]; returned: Returned }> {
  if (order.status === 'refunded') throw refused('The order was refunded already.');
  if (order.status !== 'paid')
    throw refused(`Only a paid order can be refunded; this one is ${order.status}.`);
  const [[paying], [pending], [returned], regs] = await Promise.all([
    db
      .select()
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.orderId, order.id), eq(paymentAttempts.status, 'successful')))
      .orderBy(asc(paymentAttempts.finalizedAt), asc(paymentAttempts.id))
      .limit(1),
    db
      .select({ id: refunds.id })
      .from(refunds)
      .where(and(eq(refunds.orderId, order.id), eq(refunds.kind, 'order'), eq(refunds.status, 'pending')))
      .limit(1),
    db
      .select({
        amount: sql<number>`coalesce(sum(${refunds.amount}), 0)::int`,
        fee: sql<number>`coalesce(sum(${refunds.feeAmount}), 0)::int`,
        donation: sql<number>`coalesce(sum(${refunds.donationAmount}), 0)::int`,
      })
      .from(refunds)
      .where(and(eq(refunds.orderId, order.id), eq(refunds.kind, 'order'), eq(refunds.status, 'succeeded'))),
    registrationsOf(db, [order.id]).then((byOrder) => byOrder.get(order.id) ?? []),
  ]);
  if (pending) throw refused('The order is being refunded already: wait for that refund to end.');
  if (!paying) throw notPossible('The order was free: no payment was taken, so there is nothing to refund.');
  const method = ctx.gateway.methods.find((m) => m.key === paying.method);
  if (method?.supportsRefunds !== true) {
    throw notPossible(`${paying.method} payments cannot be refunded through the network.`);
  }
  const plan = planRefund(
    order,
    regs.map((r) => ({ id: r.id, priceMinor: r.priceMinor, feeMinor: r.feeMinor, refunded: isRefunded(r) })),
    returned!,
    { amountMinor: asked.amountMinor, registrationIds: asked.registrationIds },
  );
  if ('refusal' in plan) throw notPossible(plan.refusal);
  if (plan.amount !== paying.amount && !method.supportsPartialRefunds) {
    throw notPossible(
      `${method.provider} refunds a payment only in full (${paying.amount} ${paying.currency}); refund the whole order instead.`,
    );
  }
  // A method that can give back a part may still lack what its adapter needs for it (Airtel's PIN).
  const partialRefused = ctx.gateway.providers[paying.method]?.partialRefundsRefused;
  if (plan.amount !== paying.amount && partialRefused) throw notPossible(partialRefused);
  // Or lack what any refund of this payment needs (M-Pesa: the payment's receipt, an initiator).
  const whyNot = ctx.gateway.providers[paying.method]?.refundRefused?.(paying, plan.amount);
  if (whyNot) throw notPossible(whyNot);
  return { paying, plan, regs, returned: returned! };
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
    const whyNot = ctx.gateway.providers[attempt!.method]?.refundRefused?.(attempt!, attempt!.amount);
    if (whyNot) throw notPossible(whyNot);
    const plan: RefundPlan = {
      amount: attempt!.amount,
      fee: 0,
      donation: 0,
      registrationIds: [],
      completes: false,
    };
    return createRefund(ctx, tx, { ...options, order, attempt: attempt!, kind, plan, reason: null }, now);
  });
  return sendRefund(ctx, refund);
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
    plan: RefundPlan;
    reason: string | null;
    /** the runners' names, for the audit entry */
    runnerNames?: string[];
  },
  now: Date,
): Promise<RefundRow> {
  const { order, attempt, actor, plan } = options;
  if (ctx.gateway.methods.find((m) => m.key === attempt.method)?.supportsRefunds !== true) {
    throw notPossible(`${attempt.method} payments cannot be refunded through the network.`);
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
      amount: plan.amount,
      feeAmount: plan.fee,
      donationAmount: plan.donation,
      currency: attempt.currency,
      reason: options.reason,
      registrationIds: plan.registrationIds,
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
        amount_minor: plan.amount,
        currency: attempt.currency,
        method: attempt.method,
        ...(options.kind === 'order' && {
          reason: options.reason,
          runners: options.runnerNames ?? [],
        }),
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
export async function sendRefund(ctx: AppContext, refund: RefundRow): Promise<RefundRow> {
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
