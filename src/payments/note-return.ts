// The buyer back from a provider's hosted page (cards). Their return is a hint like any callback
// (anyone can type its query string), so it only prompts a status query; the buyer's page waits a
// moment for it, so that a payment the provider confirms shows its confirmation at once.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../context.ts';
import { noteCallback } from './note-callback.ts';
import { findAttempt } from './payment-attempts.ts';
import { isPaymentReference } from './provider.ts';

/** How long a return waits for the status query it prompted before the page shows what is known. */
const RETURN_WAIT_MS = 3_000;

/** The order a returning buyer paid for (null for a reference that is not an attempt's). */
export async function noteReturn(
  ctx: AppContext,
  reference: string,
): Promise<{ orderId: string; organizationId: string } | null> {
  if (!isPaymentReference(reference)) return null;
  const attempt = await findAttempt(ctx.database.db, reference);
  if (!attempt) return null;
  noteCallback(ctx, attempt.method, reference);
  const query = ctx.gateway.hinted.get(reference);
  if (query) await Promise.race([query, sleep(RETURN_WAIT_MS, undefined, { ref: false })]);
  return { orderId: attempt.orderId, organizationId: attempt.organizationId };
}
