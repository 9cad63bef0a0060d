// A refund's result POSTed by its provider to the route naming our refund
// (/v1/payment-callbacks/<method>/refunds/<reference>/<kind>): Daraja's reversal and B2C results,
// which no query can give. The route is unauthenticated, so a result is recorded only when its ids
// are the ones the provider answered the refund's submission with (refunds.provider_ids); the
// method's own code reads it (readRefundResult) and checks them again when it settles the refund.
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { warnUnlessUnreachable } from '../platform/index.ts';
import { refunds } from './payments.schema.ts';
import { processRefund } from './process-refund.ts';
import { isPaymentReference } from './provider.ts';

/** Results one process follows at once; past that, a result is dropped (the refund stays pending). */
const MAX_RESULTS_IN_FLIGHT = 256;
/** How often to look for the submission's ids when the result outran the provider's answer to it. */
const IDS_POLL_MS = 50;

interface RefundResult {
  method: string;
  reference: string;
  ids: Record<string, string>;
  recorded: unknown;
}

/**
 * A refund result arrived for refund `reference`. Returns at once, whatever the input; in the
 * background, a result whose ids match the refund's is recorded and the refund settled from it.
 */
export function noteRefundResult(
  ctx: AppContext,
  method: string,
  reference: string,
  kind: string,
  body: unknown,
): void {
  const { gateway } = ctx;
  const read = gateway.methods.find((m) => m.key === method)?.readRefundResult?.(kind, body);
  if (!read || !isPaymentReference(reference) || gateway.inflight.size >= MAX_RESULTS_IN_FLIGHT) return;
  const task: Promise<void> = recordResult(ctx, { method, reference, ...read })
    .catch((error: unknown) =>
      warnUnlessUnreachable(
        ctx.outage,
        ctx.log,
        error,
        { refund_reference: reference },
        'refund result not recorded; the refund stays pending',
      ),
    )
    .finally(() => gateway.inflight.delete(task));
  gateway.inflight.add(task);
}

const sameIds = (kept: Readonly<Record<string, string>>, named: Record<string, string>) =>
  Object.keys(kept).length === Object.keys(named).length &&
  Object.entries(named).every(([key, value]) => kept[key] === value);

async function recordResult(
  ctx: AppContext,
  { method, reference, ids, recorded }: RefundResult,
): Promise<void> {
  const db = ctx.database.db;
  // The provider may POST the result before our client has read its answer to the refund, whose
  // ids it must match: wait for them as long as that answer may take, no longer.
  const deadline = Date.now() + ctx.config.payments.httpTimeoutMs;
  for (;;) {
    const [refund] = await db.select().from(refunds).where(eq(refunds.reference, reference));
    if (!refund || refund.method !== method || refund.status !== 'pending') return;
    if (refund.providerResult !== null) return; // the first matching result stands
    if (refund.providerIds) {
      if (!sameIds(refund.providerIds, ids)) {
        ctx.log.warn({ refund_id: refund.id }, 'refund result with other ids ignored');
        return;
      }
      break;
    }
    if (refund.submittedAt === null || Date.now() >= deadline) return;
    await sleep(IDS_POLL_MS);
  }
  const [kept] = await db
    .update(refunds)
    .set({ providerResult: recorded })
    .where(
      and(eq(refunds.reference, reference), eq(refunds.status, 'pending'), isNull(refunds.providerResult)),
    )
    .returning({ id: refunds.id });
  if (kept) await processRefund(ctx, kept.id);
}
