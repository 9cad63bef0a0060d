// A provider's callback as a hint: it may start one spaced status query in the background, whose
// final answer only is applied; it never moves or ends the attempt's job.
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { warnUnlessUnreachable } from '../platform/index.ts';
import { findAttempt, isUnsettled, UNSETTLED } from './payment-attempts.ts';
import { providerOf } from './payment-gateway.ts';
import { paymentAttempts } from './payments.schema.ts';
import { isPaymentReference } from './provider.ts';
import { applyFinalStatus } from './settle-payment.ts';

/** Least time between two status queries that callbacks trigger for one reference. */
export const CALLBACK_QUERY_SPACING_MS = 2_000;

/** Callback-triggered queries one process runs at once; past that, callbacks are left to the job. */
const MAX_CALLBACK_QUERIES = 256;

/**
 * A callback arrived for `reference`. It is never proof and never waited for: it may start one
 * status query in the background, and only a final answer of that query is applied, so callbacks
 * cannot move or end the job's schedule. Returns at once and the same way whatever the reference
 * (known, unknown or malformed), so a caller learns nothing from the answer.
 */
export function noteCallback(ctx: AppContext, method: string, reference: string): void {
  const { gateway } = ctx;
  if (!Object.hasOwn(gateway.providers, method) || !isPaymentReference(reference)) return;
  // At most one in flight per reference in this process, and a bounded number in all.
  if (gateway.hinted.has(reference) || gateway.hinted.size >= MAX_CALLBACK_QUERIES) return;
  const query: Promise<void> = queryAfterCallback(ctx, method, reference)
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
}

async function queryAfterCallback(ctx: AppContext, method: string, reference: string): Promise<void> {
  const gateway = ctx.gateway;
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
    .returning({ providerReference: paymentAttempts.providerReference });
  if (!claimed) return;
  const status = await providerOf(gateway, method).getStatus(reference, claimed.providerReference);
  if (status.status !== 'successful' && status.status !== 'failed') return;
  await ctx.database.transaction(async (tx) => {
    const locked = await findAttempt(tx, reference, true);
    if (!locked || !isUnsettled(locked.status)) return;
    await applyFinalStatus(ctx, tx, locked, status, ctx.clock.now());
  });
}
