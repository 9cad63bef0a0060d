// The result of an M-Pesa reversal (or of a B2C payment, a part going back, which has its shape),
// POSTed by Daraja to the route naming our refund
// (/v1/payment-callbacks/mpesa/refunds/{reference}/result, or .../timeout when Daraja's queue
// dropped it). Daraja has no query for either, so this callback is the only answer; it is
// unauthenticated, so it is recorded only when its ids are the ones Daraja answered the refund's
// submission with (refunds.provider_ids), and the adapter checks them again when it reads it.
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { warnUnlessUnreachable } from '../platform/index.ts';
import { parseReversalResult, type ReversalResult } from './methods/mpesa/daraja-callbacks.ts';
import { refunds } from './payments.schema.ts';
import { processRefund } from './process-refund.ts';
import { isPaymentReference } from './provider.ts';

/** Where Daraja POSTs a reversal's outcome: ResultURL, or QueueTimeOutURL when it was never processed. */
export type ReversalCallbackKind = 'result' | 'timeout';

/** Results one process follows at once; past that, a result is dropped (the refund stays pending). */
const MAX_RESULTS_IN_FLIGHT = 256;
/** How often to look for the submission's ids when the result outran Daraja's answer to it. */
const IDS_POLL_MS = 50;

/**
 * A reversal result arrived for refund `reference`. Returns at once, whatever the input; in the
 * background, a result whose ids match the refund's is recorded and the refund settled from it.
 */
export function noteReversalResult(
  ctx: AppContext,
  reference: string,
  kind: ReversalCallbackKind,
  body: unknown,
): void {
  const result = parseReversalResult(body);
  const { gateway } = ctx;
  if (!result || !isPaymentReference(reference) || gateway.inflight.size >= MAX_RESULTS_IN_FLIGHT) return;
  const task: Promise<void> = recordResult(ctx, reference, kind, result)
    .catch((error: unknown) =>
      warnUnlessUnreachable(
        ctx.outage,
        ctx.log,
        error,
        { refund_reference: reference },
        'M-Pesa reversal result not recorded; the refund stays pending',
      ),
    )
    .finally(() => gateway.inflight.delete(task));
  gateway.inflight.add(task);
}

async function recordResult(
  ctx: AppContext,
  reference: string,
  kind: ReversalCallbackKind,
  result: ReversalResult,
): Promise<void> {
  const db = ctx.database.db;
  // Daraja may POST the result before our client has read its answer to the reversal, whose ids
  // it must match: wait for them as long as that answer may take, no longer.
  const deadline = Date.now() + ctx.config.payments.httpTimeoutMs;
  for (;;) {
    const [refund] = await db.select().from(refunds).where(eq(refunds.reference, reference));
    if (!refund || refund.method !== 'mpesa' || refund.status !== 'pending') return;
    if (refund.providerResult !== null) return; // the first matching result stands
    const ids = refund.providerIds;
    if (ids) {
      if (
        ids.conversation_id !== result.conversationId ||
        ids.originator_conversation_id !== result.originatorConversationId
      ) {
        ctx.log.warn({ refund_id: refund.id }, 'M-Pesa reversal result with other ids ignored');
        return;
      }
      break;
    }
    if (refund.submittedAt === null || Date.now() >= deadline) return;
    await sleep(IDS_POLL_MS);
  }
  // Kept in Daraja's shape, cut to what the adapter reads (mpesa-provider.ts refundResultStatus).
  const recorded = {
    via: kind,
    body: {
      Result: {
        ResultCode: result.resultCode,
        ResultDesc: result.message,
        OriginatorConversationID: result.originatorConversationId,
        ConversationID: result.conversationId,
        ...(result.transactionId ? { TransactionID: result.transactionId } : {}),
      },
    },
  };
  const [kept] = await db
    .update(refunds)
    .set({ providerResult: recorded })
    .where(
      and(eq(refunds.reference, reference), eq(refunds.status, 'pending'), isNull(refunds.providerResult)),
    )
    .returning({ id: refunds.id });
  if (kept) await processRefund(ctx, kept.id);
}
