// A provider's callback as a hint: it may start one spaced status query in the background, whose
// final answer only is applied; it never moves or ends the attempt's job. A callback may also name
// the provider's own id of a payment whose submission's answer was lost (Daraja's
// CheckoutRequestID), adopted only by an attempt that has none, and a success callback may carry the
// payment's receipt, which the query does not give and a reversal needs: it is kept only for a
// payment the query confirmed, and only when it matches that payment.
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { violates, warnUnlessUnreachable } from '../platform/index.ts';
import type { CallbackHint } from './methods/registry.ts';
import { findAttempt, isUnsettled, UNSETTLED, type PaymentAttemptRow } from './payment-attempts.ts';
import { providerOf } from './payment-gateway.ts';
import { paymentAttempts } from './payments.schema.ts';
import { isPaymentReference } from './provider.ts';
import { applyFinalStatus } from './settle-payment.ts';

/** Least time between two status queries that callbacks trigger for one reference. */
export const CALLBACK_QUERY_SPACING_MS = 2_000;

/** How often a receipt looks for the CheckoutRequestID its callback outran. */
const RECEIPT_WAIT_STEP_MS = 50;
/** Status queries a callback's receipt may add when the first did not confirm its payment. */
const RECEIPT_QUERIES = 3;

/** Callback-triggered queries one process runs at once; past that, callbacks are left to the job. */
const MAX_CALLBACK_QUERIES = 256;

/**
 * A callback arrived for `reference`. It is never proof and never waited for: it may start one
 * status query in the background, and only a final answer of that query is applied, so callbacks
 * cannot move or end the job's schedule. Returns at once and the same way whatever the reference
 * (known, unknown or malformed), so a caller learns nothing from the answer.
 */
export function noteCallback(
  ctx: AppContext,
  method: string,
  reference: string,
  hint: CallbackHint = {},
): void {
  const { gateway } = ctx;
  if (!Object.hasOwn(gateway.providers, method) || !isPaymentReference(reference)) return;
  const receipt = hint.receipt ?? null;
  const earlier = gateway.hinted.get(reference);
  // A query in flight already: the receipt waits for its answer rather than being dropped with it.
  if (earlier && receipt) return keepAfter(ctx, earlier, reference, receipt);
  // At most one in flight per reference in this process, and a bounded number in all.
  if (earlier || gateway.hinted.size >= MAX_CALLBACK_QUERIES) return;
  const query: Promise<void> = queryAfterCallback(ctx, method, reference, hint.providerReference)
    .catch((error: unknown) =>
      warnUnlessUnreachable(
        ctx.outage,
        ctx.log,
        error,
        { reference },
        'status query after a callback failed; the job keeps asking',
      ),
    )
    .finally(() => {
      gateway.hinted.delete(reference);
      gateway.inflight.delete(query);
    });
  gateway.hinted.set(reference, query);
  gateway.inflight.add(query);
  if (receipt) keepAfter(ctx, query, reference, receipt);
}

async function queryAfterCallback(
  ctx: AppContext,
  method: string,
  reference: string,
  named?: string,
): Promise<void> {
  const gateway = ctx.gateway;
  const now = ctx.clock.now();
  const spacedFrom = new Date(now.getTime() - CALLBACK_QUERY_SPACING_MS * gateway.timeScale);
  if (named) await adopt(ctx, reference, named);
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
    .returning({
      providerReference: paymentAttempts.providerReference,
      amount: paymentAttempts.amount,
      currency: paymentAttempts.currency,
    });
  if (!claimed) return;
  const { providerReference, ...asked } = claimed;
  const status = await providerOf(gateway, method).getStatus(reference, providerReference, asked);
  if (status.status !== 'successful' && status.status !== 'failed') return;
  await ctx.database.transaction(async (tx) => {
    const locked = await findAttempt(tx, reference, true);
    if (!locked || !isUnsettled(locked.status)) return;
    await applyFinalStatus(ctx, tx, locked, status, ctx.clock.now());
  });
}

/**
 * The provider's id a callback named, taken by an attempt that has none (its submission's answer
 * was lost, so nothing else can name the payment to query). Our reference in the callback's path is
 * known to the provider alone, the id is unique among attempts (an attempt's own submission sets
 * it, over this), and the query still decides: a forged id pays nothing it does not name.
 */
async function adopt(ctx: AppContext, reference: string, named: string): Promise<void> {
  try {
    await ctx.database.db
      .update(paymentAttempts)
      .set({ providerReference: named })
      .where(
        and(
          eq(paymentAttempts.reference, reference),
          isNull(paymentAttempts.providerReference),
          // also while its submission waits for the answer that will not come
          inArray(paymentAttempts.status, ['submitting', ...UNSETTLED]),
        ),
      );
  } catch (error) {
    if (!violates(error, '23505', 'payment_attempts_provider_reference_key')) throw error;
  }
}

type StkReceipt = NonNullable<CallbackHint['receipt']>;

/** Keeps the receipt once `query` (the status query the callback started) has ended. */
function keepAfter(ctx: AppContext, query: Promise<void>, reference: string, receipt: StkReceipt): void {
  const task: Promise<void> = query
    .then(() => keepReceipt(ctx, reference, receipt))
    .catch((error: unknown) =>
      warnUnlessUnreachable(ctx.outage, ctx.log, error, { reference }, 'M-Pesa receipt not kept'),
    )
    .finally(() => ctx.gateway.inflight.delete(task));
  ctx.gateway.inflight.add(task);
}

/**
 * The receipt becomes the attempt's providerTransactionId only when the STK query confirmed the
 * payment (status successful: the query alone sets it), the callback names the attempt's own
 * CheckoutRequestID, its amount and number are the attempt's, and no receipt was kept before.
 */
async function keepReceipt(ctx: AppContext, reference: string, receipt: StkReceipt): Promise<void> {
  // The callback may outrun Daraja's answer to the push, leaving the first query nothing to ask
  // by, or meet a query spaced out: ask again a few times, no longer than that answer may take.
  const deadline = Date.now() + ctx.config.payments.httpTimeoutMs;
  const spacing = CALLBACK_QUERY_SPACING_MS * ctx.gateway.timeScale;
  for (let queries = 0; ;) {
    const attempt = await findAttempt(ctx.database.db, reference);
    if (!attempt) return;
    if (attempt.status === 'successful') return keepIfMatching(ctx, attempt, receipt);
    const open = attempt.status === 'submitting' || isUnsettled(attempt.status);
    if (!open || queries >= RECEIPT_QUERIES || Date.now() >= deadline) return;
    if (attempt.providerReference === null) {
      await sleep(RECEIPT_WAIT_STEP_MS);
      continue;
    }
    await sleep(spacing + RECEIPT_WAIT_STEP_MS);
    queries++;
    await queryAfterCallback(ctx, attempt.method, reference);
  }
}

async function keepIfMatching(ctx: AppContext, attempt: PaymentAttemptRow, receipt: StkReceipt) {
  if (attempt.providerTransactionId !== null || attempt.providerReference !== receipt.providerReference)
    return;
  if (receipt.amount !== attempt.amount || receipt.msisdn !== attempt.msisdn) {
    ctx.log.warn(
      { reference: attempt.reference },
      'M-Pesa callback does not match its payment: receipt not kept',
    );
    return;
  }
  await ctx.database.db
    .update(paymentAttempts)
    .set({ providerTransactionId: receipt.id })
    .where(
      and(
        eq(paymentAttempts.id, attempt.id),
        eq(paymentAttempts.status, 'successful'),
        isNull(paymentAttempts.providerTransactionId),
      ),
    );
}
