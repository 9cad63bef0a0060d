// Collecting a payment for an order: send the prompt, then learn the outcome by status queries
// only, and settle the order in one transaction. Callbacks are hints: they may make a status query
// come sooner, never count against the job's schedule, and never end it. No double prompt for one
// order (a unique index allows one open attempt), no payment ever lost (the job asks for 24 hours;
// a late success is honoured or listed for refund), no amount accepted that differs from the order
// total, and none asked above the provider's per-payment maximum.
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { feeFor, type PaymentMethod } from '../events/fees.ts';
import { findOrganization } from '../organizations/organizations.ts';
import { networkOf, normalizePhone } from '../orders/contact.ts';
import { confirmOrderPaid, expireOrderHold, lockOrder } from '../orders/order-lifecycle.ts';
import type { OrderRow } from '../orders/order-out.ts';
import { transition, type FailureKind } from '../orders/order-state.ts';
import { orders, registrations } from '../orders/orders.schema.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJob, type OutsideJobHandler } from '../platform/jobs.ts';
import { paymentAttempts } from './payments.schema.ts';
import { isPaymentReference, MIN_AMOUNT, type PaymentProvider, type StatusResult } from './provider.ts';

export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;
/** One job per attempt: submits if the prompt was never sent, then asks on the schedule. */
export const PAYMENT_JOB = 'payment.reconcile';

export interface PaymentGateway {
  providers: Record<PaymentMethod, PaymentProvider>;
  /** multiplies the prompt window and the polling schedule (tests and demos run faster) */
  timeScale: number;
  /** public base of our callback routes, e.g. API_URL + /v1/payment-callbacks */
  callbackBase: string;
  /** the largest total one payment may ask of each provider, in minor units (UGX) */
  maxAmount: Record<PaymentMethod, number>;
  /** submissions and callback-triggered queries running in the background; awaited at shutdown */
  inflight: Set<Promise<unknown>>;
  /** callback-triggered status queries in flight in this process, by reference (one each) */
  hinted: Map<string, Promise<void>>;
}

/** The approval window of a prompt on the phone (MTN: 5 minutes); Airtel is given the same. */
export const PROMPT_WINDOW_MS = 5 * 60_000;
/** How long the job keeps asking the provider about an attempt, counted from its creation. */
export const RECONCILE_FOR_MS = 24 * 3600_000;
/** Least time between two status queries that callbacks trigger for one reference. */
export const CALLBACK_QUERY_SPACING_MS = 2_000;
/** Callback-triggered queries one process runs at once; past that, callbacks are left to the job. */
const MAX_CALLBACK_QUERIES = 256;

/** Attempts the provider may still settle: the job keeps asking about these. */
const UNSETTLED = ['pending', 'timed_out'] as const;

function isUnsettled(status: string): boolean {
  return (UNSETTLED as readonly string[]).includes(status);
}

const METHOD_NAMES: Record<PaymentMethod, string> = {
  momo: 'MTN Mobile Money',
  airtel: 'Airtel Money',
};

/**
 * Delay before the job's status query after `polls` earlier ones: 5, 10, 20 and 30 s after
 * submission, every 30 s through the prompt window, then growing (1, 2, 5, 10 and 30 minutes) and
 * hourly. The job stops RECONCILE_FOR_MS after the attempt began, not after a number of queries.
 */
export function nextPollDelayMs(polls: number): number {
  const early = [5_000, 5_000, 10_000, 10_000];
  if (polls < early.length) return early[polls]!;
  const windowPolls = Math.ceil((PROMPT_WINDOW_MS - 30_000) / 30_000);
  if (polls < early.length + windowPolls) return 30_000;
  const reconciling = [60_000, 120_000, 300_000, 600_000, 1_800_000];
  return reconciling[polls - early.length - windowPolls] ?? 3600_000;
}

function reconcileEnd(attempt: PaymentAttemptRow, timeScale: number): number {
  return attempt.createdAt.getTime() + RECONCILE_FOR_MS * timeScale;
}

/**
 * When the job asks next: on the schedule, but no later than the end of the prompt window (where
 * the buyer-facing timeout is decided) and the end of reconciliation (the last question).
 */
function nextQueryAt(attempt: PaymentAttemptRow, polls: number, now: Date, timeScale: number): Date {
  const times = [now.getTime() + nextPollDelayMs(polls) * timeScale, reconcileEnd(attempt, timeScale)];
  const windowEnd = attempt.promptExpiresAt.getTime();
  if (now.getTime() < windowEnd) times.push(windowEnd);
  return new Date(Math.min(...times));
}

function gatewayOf(ctx: AppContext): PaymentGateway {
  if (!ctx.payments) throw new Error('payments are not configured');
  return ctx.payments;
}

async function openAttempt(db: Executor, orderId: string): Promise<PaymentAttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentAttempts)
    .where(
      and(eq(paymentAttempts.orderId, orderId), inArray(paymentAttempts.status, ['submitting', 'pending'])),
    );
  return row;
}

export interface StartPaymentInput {
  organizationId: string;
  orderId: string;
  method: PaymentMethod;
  phone: string;
}

/**
 * Starts (or continues) payment of a pending order: re-prices it for the chosen method, extends
 * the hold over the prompt window, records the attempt, and sends the prompt. A second call while
 * a prompt is outstanding sends nothing and returns the order as it is.
 */
export async function startPayment(ctx: AppContext, input: StartPaymentInput): Promise<OrderRow> {
  const gateway = gatewayOf(ctx);
  const msisdn = normalizePhone(input.phone);
  if (msisdn === null) {
    throw new ApiError('validation_failed', 'phone must be a Ugandan mobile number such as 0772 123456.', {
      errors: [{ field: 'phone', message: 'must be a Ugandan mobile number such as 0772 123456' }],
    });
  }
  const network = networkOf(msisdn);
  if (network !== null && network !== input.method) {
    const name = network === 'momo' ? 'MTN Mobile Money (momo)' : 'Airtel Money (airtel)';
    throw new ApiError('validation_failed', `This number is on ${name}; choose that payment method.`, {
      errors: [{ field: 'phone', message: `is a ${name} number, not ${input.method}` }],
    });
  }
  const started = await ctx.database.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const order = await lockOrder(tx, input.orderId);
    if (!order || order.organizationId !== input.organizationId) throw notFound('order');
    const outstanding = await openAttempt(tx, order.id);
    if (outstanding) return { order, attempt: null, lapsed: false };
    if (order.status === 'pending' && order.holdExpiresAt && order.holdExpiresAt.getTime() <= now.getTime()) {
      // Settle the lapsed hold (committed), then refuse below.
      await expireOrderHold(tx, order.id, now);
      return { order, attempt: null, lapsed: true };
    }
    if (order.status !== 'pending') {
      throw new ApiError('order_not_payable', `This order is ${order.status} and cannot be paid.`);
    }
    const repriced = await repriceOrder(tx, order, input.method, now);
    const minimum = MIN_AMOUNT[repriced.currency] ?? 0;
    if (repriced.total < minimum) {
      throw new ApiError(
        'amount_below_minimum',
        `Mobile money needs at least ${minimum} ${repriced.currency}; this order totals ${repriced.total}.`,
      );
    }
    // Refused before any prompt: the provider would refuse it only after the buyer approved.
    const maximum = gateway.maxAmount[input.method];
    if (repriced.total > maximum) {
      throw new ApiError(
        'amount_too_large',
        `${METHOD_NAMES[input.method]} takes at most ${maximum} ${repriced.currency} in one payment; this order totals ${repriced.total}.`,
      );
    }
    const promptExpiresAt = new Date(now.getTime() + PROMPT_WINDOW_MS * gateway.timeScale);
    // The hold covers the whole approval window (plus a margin), so a success never finds its seats released.
    const holdUntil = new Date(promptExpiresAt.getTime() + 60_000 * gateway.timeScale);
    const [extended] = await tx
      .update(orders)
      .set({
        holdExpiresAt: sql`greatest(${orders.holdExpiresAt}, ${holdUntil.toISOString()}::timestamptz)`,
        updatedAt: now,
      })
      .where(eq(orders.id, order.id))
      .returning();
    const [attempt] = await tx
      .insert(paymentAttempts)
      .values({
        id: newId('pay'),
        reference: randomUUID(),
        orderId: order.id,
        organizationId: order.organizationId,
        method: input.method,
        msisdn,
        amount: repriced.total,
        currency: repriced.currency,
        status: 'submitting',
        promptExpiresAt,
        createdAt: now,
      })
      .returning();
    // Durable intent: if this process dies before or while submitting, the job submits (a resend
    // with the same reference is harmless), then polls on the schedule.
    await enqueueJob(tx, {
      kind: PAYMENT_JOB,
      payload: { reference: attempt!.reference },
      runAt: new Date(now.getTime() + nextPollDelayMs(0) * gateway.timeScale),
      dedupeKey: `payment:${attempt!.reference}`,
      // Provider outages are retried with backoff (capped at an hour) for more than a day.
      maxAttempts: 60,
    });
    return { order: extended!, attempt: attempt!, lapsed: false };
  });
  if (started.lapsed) {
    throw new ApiError('order_not_payable', 'The hold on this order has expired; start a new order.');
  }
  if (started.attempt) {
    // The prompt goes out in the background so the caller gets its 202 at once even when a
    // provider is slow; the attempt's job submits it anyway if this process dies first.
    const reference = started.attempt.reference;
    const submission = submitAttempt(ctx, reference)
      .catch((error) =>
        ctx.log.warn({ err: error, reference }, 'payment submission failed; the job will retry'),
      )
      .finally(() => gateway.inflight.delete(submission));
    gateway.inflight.add(submission);
  }
  return started.order;
}

/** Sets the fee of the chosen method on the order and its registrations. */
async function repriceOrder(tx: Tx, order: OrderRow, method: PaymentMethod, now: Date): Promise<OrderRow> {
  const organization = await findOrganization(tx, order.organizationId);
  const regs = await tx
    .select()
    .from(registrations)
    .where(eq(registrations.orderId, order.id))
    .orderBy(asc(registrations.position));
  let lacesFee = 0;
  for (const reg of regs) {
    const fee = feeFor(reg.priceMinor, organization!.fees[method]);
    lacesFee += fee;
    if (fee !== reg.feeMinor)
      await tx.update(registrations).set({ feeMinor: fee }).where(eq(registrations.id, reg.id));
  }
  const total = order.subtotal - order.discountTotal + order.donationTotal + lacesFee;
  const [row] = await tx
    .update(orders)
    .set({ paymentMethod: method, lacesFee, total, updatedAt: now })
    .where(eq(orders.id, order.id))
    .returning();
  return row!;
}

async function findAttempt(
  db: Executor,
  reference: string,
  lock = false,
): Promise<PaymentAttemptRow | undefined> {
  const query = db.select().from(paymentAttempts).where(eq(paymentAttempts.reference, reference));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Sends the prompt for an attempt in state `submitting` and records what the provider said. */
export async function submitAttempt(ctx: AppContext, reference: string): Promise<void> {
  const gateway = gatewayOf(ctx);
  const attempt = await findAttempt(ctx.database.db, reference);
  if (!attempt || attempt.status !== 'submitting') return;
  const provider = gateway.providers[attempt.method as PaymentMethod];
  const result = await provider.requestPayment({
    reference,
    amount: attempt.amount,
    currency: attempt.currency,
    msisdn: attempt.msisdn,
    callbackUrl: `${gateway.callbackBase}/${attempt.method}/${reference}`,
    description: `Order payment ${attempt.orderId}`,
  });
  // A provider error on submit says "nothing created", but a payment created despite it must not
  // be orphaned: ask once, and if it exists, follow it like any other.
  const created =
    result.kind === 'rejected' && result.failureKind === 'provider_error'
      ? await provider.getStatus(reference).then(
          (status) => status.status !== 'not_found',
          () => false,
        )
      : false;
  await ctx.database.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const locked = await findAttempt(tx, reference, true);
    if (!locked || locked.status !== 'submitting') return;
    if (result.kind === 'rejected' && !created) {
      await failAttempt(tx, locked, result.failureKind, result.message, now);
      return;
    }
    // submitted, already_submitted (a resend of ours) or unknown (lost response): learn by polling.
    if (result.kind === 'unknown')
      ctx.log.warn({ reference, message: result.message }, 'payment submission outcome unknown');
    await tx.update(paymentAttempts).set({ status: 'pending' }).where(eq(paymentAttempts.id, locked.id));
  });
}

/** Records the order's failure for the buyer, who may pay again while the hold lasts. */
async function showFailure(tx: Tx, orderId: string, kind: FailureKind, now: Date) {
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

async function failAttempt(
  tx: Tx,
  attempt: PaymentAttemptRow,
  kind: FailureKind,
  message: string,
  now: Date,
) {
  await tx
    .update(paymentAttempts)
    .set({ status: 'failed', failureKind: kind, failureMessage: message.slice(0, 500), finalizedAt: now })
    .where(eq(paymentAttempts.id, attempt.id));
  // A timed-out attempt was already shown as a failure; the buyer may since have paid again.
  if (attempt.status !== 'timed_out') await showFailure(tx, attempt.orderId, kind, now);
}

/**
 * The prompt window ended with no answer: the buyer is told the payment timed out and may pay
 * again, but the attempt stays unsettled and the job keeps asking the provider.
 */
async function timeOutAttempt(tx: Tx, attempt: PaymentAttemptRow, now: Date) {
  await tx
    .update(paymentAttempts)
    .set({
      status: 'timed_out',
      failureKind: 'payment_timeout',
      failureMessage: 'not approved within the prompt window; still asking the provider',
    })
    .where(eq(paymentAttempts.id, attempt.id));
  await showFailure(tx, attempt.orderId, 'payment_timeout', now);
}

/**
 * Applies a final answer of a status query (from the job or after a callback). Only this marks an
 * order paid, and only when the amount and currency the provider reports equal what we asked for.
 */
async function applyFinalStatus(
  ctx: AppContext,
  tx: Tx,
  attempt: PaymentAttemptRow,
  status: Extract<StatusResult, { status: 'successful' | 'failed' }>,
  now: Date,
): Promise<void> {
  if (status.status === 'failed') {
    await failAttempt(tx, attempt, status.failureKind, status.message, now);
    return;
  }
  // A provider that reports no amount (Airtel's status enquiry) cannot contradict us; one that
  // reports a different amount or currency is never accepted.
  const amountDiffers = status.amount !== null && status.amount !== attempt.amount;
  const currencyDiffers = status.currency !== null && status.currency !== attempt.currency;
  if (amountDiffers || currencyDiffers) {
    ctx.log.error(
      {
        reference: attempt.reference,
        order_id: attempt.orderId,
        expected: { amount: attempt.amount, currency: attempt.currency },
        reported: { amount: status.amount, currency: status.currency },
      },
      'payment amount mismatch: not accepted, needs review',
    );
    await failAttempt(
      tx,
      attempt,
      'provider_error',
      'amount reported by the provider differs from the order total',
      now,
    );
    return;
  }
  await tx
    .update(paymentAttempts)
    .set({ status: 'successful', providerTransactionId: status.providerTransactionId, finalizedAt: now })
    .where(eq(paymentAttempts.id, attempt.id));
  const outcome = await confirmOrderPaid(tx, attempt.orderId, now);
  // Both are listed by listPaymentsNeedingRefund (admin API and CLI); the log says so at once.
  if (outcome.kind === 'paid_after_expiry') {
    ctx.log.error(
      { order_id: attempt.orderId, reference: attempt.reference },
      'payment arrived after the order stopped holding its tickets and capacity is gone: refund needed',
    );
  } else if (outcome.kind === 'already_paid') {
    ctx.log.error(
      { order_id: attempt.orderId, reference: attempt.reference },
      'a second payment for an order already paid: refund needed',
    );
  }
}

/**
 * Applies the job's status query. A final answer settles the attempt; a pending one counts one
 * poll, times the attempt out for the buyer once the prompt window has passed, and fails it only
 * when RECONCILE_FOR_MS has passed. Returns when to ask next, or null when the attempt is settled.
 */
export async function applyStatus(
  ctx: AppContext,
  tx: Tx,
  attempt: PaymentAttemptRow,
  status: StatusResult,
  now: Date,
): Promise<Date | null> {
  if (status.status === 'successful' || status.status === 'failed') {
    await applyFinalStatus(ctx, tx, attempt, status, now);
    return null;
  }
  // pending, or not_found (the provider has not recorded it yet): ask again later.
  const timeScale = gatewayOf(ctx).timeScale;
  const polls = attempt.polls + 1;
  await tx.update(paymentAttempts).set({ polls }).where(eq(paymentAttempts.id, attempt.id));
  if (now.getTime() >= reconcileEnd(attempt, timeScale)) {
    await failAttempt(
      tx,
      attempt,
      'payment_timeout',
      'no final answer from the provider within 24 hours',
      now,
    );
    return null;
  }
  if (attempt.status === 'pending' && now.getTime() >= attempt.promptExpiresAt.getTime()) {
    await timeOutAttempt(tx, attempt, now);
  }
  return nextQueryAt(attempt, polls, now, timeScale);
}

/**
 * The attempt's job: submits the prompt if it was never sent, then asks the provider for the
 * outcome. Returns when to ask next, or null when the attempt is settled.
 */
export async function reconcileAttempt(ctx: AppContext, reference: string): Promise<Date | null> {
  const gateway = gatewayOf(ctx);
  let attempt = await findAttempt(ctx.database.db, reference);
  if (attempt?.status === 'submitting') {
    await submitAttempt(ctx, reference);
    attempt = await findAttempt(ctx.database.db, reference);
    if (attempt && isUnsettled(attempt.status)) {
      return nextQueryAt(attempt, attempt.polls, ctx.clock.now(), gateway.timeScale);
    }
  }
  if (!attempt || !isUnsettled(attempt.status)) return null;
  let status: StatusResult;
  try {
    status = await gateway.providers[attempt.method as PaymentMethod].getStatus(reference);
  } catch (error) {
    // The provider cannot be asked (the runner retries with backoff); the buyer still hears of
    // the timeout when the prompt window is over.
    if (attempt.status === 'pending' && ctx.clock.now() >= attempt.promptExpiresAt) {
      await ctx.database.db.transaction(async (tx) => {
        const locked = await findAttempt(tx, reference, true);
        if (locked?.status === 'pending') await timeOutAttempt(tx, locked, ctx.clock.now());
      });
    }
    throw error;
  }
  return ctx.database.db.transaction(async (tx) => {
    const locked = await findAttempt(tx, reference, true);
    if (!locked || !isUnsettled(locked.status)) return null; // settled meanwhile: duplicates are harmless
    return applyStatus(ctx, tx, locked, status, ctx.clock.now());
  });
}

/**
 * A callback arrived for `reference`. It is never proof and never waited for: it may start one
 * status query in the background, and only a final answer of that query is applied, so callbacks
 * cannot move or end the job's schedule. Returns at once and the same way whatever the reference
 * (known, unknown or malformed), so a caller learns nothing from the answer.
 */
export function noteCallback(ctx: AppContext, method: string, reference: string): void {
  const gateway = ctx.payments;
  if (!gateway || !Object.hasOwn(gateway.providers, method) || !isPaymentReference(reference)) return;
  // At most one in flight per reference in this process, and a bounded number in all.
  if (gateway.hinted.has(reference) || gateway.hinted.size >= MAX_CALLBACK_QUERIES) return;
  const query: Promise<void> = queryAfterCallback(ctx, method as PaymentMethod, reference)
    .catch((error) =>
      ctx.log.warn({ err: error, reference }, 'status query after a callback failed; the job keeps asking'),
    )
    .finally(() => {
      gateway.hinted.delete(reference);
      gateway.inflight.delete(query);
    });
  gateway.hinted.set(reference, query);
  gateway.inflight.add(query);
}

async function queryAfterCallback(ctx: AppContext, method: PaymentMethod, reference: string): Promise<void> {
  const gateway = gatewayOf(ctx);
  const now = ctx.clock.now();
  const spacedFrom = new Date(now.getTime() - CALLBACK_QUERY_SPACING_MS * gateway.timeScale);
  // One conditional update claims the query, so processes sharing the database agree on the spacing.
  const [claimed] = await ctx.database.db
    .update(paymentAttempts)
    .set({ callbackQueryAt: now })
    .where(
      and(
        eq(paymentAttempts.reference, reference),
        eq(paymentAttempts.method, method),
        inArray(paymentAttempts.status, [...UNSETTLED]),
        or(
          isNull(paymentAttempts.callbackQueryAt),
          sql`${paymentAttempts.callbackQueryAt} <= ${spacedFrom.toISOString()}::timestamptz`,
        ),
      ),
    )
    .returning({ id: paymentAttempts.id });
  if (!claimed) return;
  const status = await gateway.providers[method].getStatus(reference);
  if (status.status !== 'successful' && status.status !== 'failed') return;
  await ctx.database.db.transaction(async (tx) => {
    const locked = await findAttempt(tx, reference, true);
    if (!locked || !isUnsettled(locked.status)) return;
    await applyFinalStatus(ctx, tx, locked, status, ctx.clock.now());
  });
}

/** The latest attempt of an order (for the wait screen and the order read). */
export async function latestAttempt(db: Executor, orderId: string): Promise<PaymentAttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId))
    .orderBy(desc(paymentAttempts.createdAt))
    .limit(1);
  return row;
}

export function paymentJobHandlers(ctx: AppContext): Record<string, OutsideJobHandler> {
  // Provider calls happen outside any transaction; the job row is rescheduled or removed after.
  return {
    [PAYMENT_JOB]: {
      outsideTransaction: true,
      run: async ({ job }) => {
        const next = await reconcileAttempt(ctx, String(job.payload.reference));
        return next ? { retryAt: next } : undefined;
      },
    },
  };
}
