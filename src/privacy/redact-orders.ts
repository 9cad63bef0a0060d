// The buyer data of a set of orders erased everywhere the service keeps a copy, in the caller's
// transaction: the orders and their registrations, the payer's number of their payment attempts,
// the recipient of their confirmation mails, the prefill of their checkout sessions, the payloads
// of the webhook events about them (and what receivers answered), and, for an erasure, the stored
// idempotent responses that would replay them. Retention (retention-pass.ts) and the erasure of
// one buyer (erase-buyer.ts) both come here, so the two cannot differ.
import { clearPrefill } from '../checkout/index.ts';
import { redactOrderMails } from '../confirmations/index.ts';
import { redactOrderJson, redactOrders, type OrderRef } from '../orders/index.ts';
import { redactPayerNumbers } from '../payments/index.ts';
import { rewriteStoredResponses, type Executor } from '../platform/index.ts';
import { rewriteEventPayloads } from '../webhooks/index.ts';

export { ERASED } from '../platform/index.ts';

/** What an erasure or a retention pass changed, row by row. */
export interface ErasureCounts {
  orders: number;
  registrations: number;
  paymentAttempts: number;
  orderMails: number;
  checkoutSessions: number;
  webhookEvents: number;
  webhookResponses: number;
  storedResponses: number;
  developmentMails: number;
}

export function noErasures(): ErasureCounts {
  return {
    orders: 0,
    registrations: 0,
    paymentAttempts: 0,
    orderMails: 0,
    checkoutSessions: 0,
    webhookEvents: 0,
    webhookResponses: 0,
    storedResponses: 0,
    developmentMails: 0,
  };
}

export function addErasures(into: ErasureCounts, more: Partial<ErasureCounts>): ErasureCounts {
  for (const [key, n] of Object.entries(more) as [keyof ErasureCounts, number][]) into[key] += n;
  return into;
}

/** The counts as the admin API answers them and the audit log keeps them (snake_case). */
export function countsOut(counts: ErasureCounts) {
  return {
    orders: counts.orders,
    registrations: counts.registrations,
    payment_attempts: counts.paymentAttempts,
    order_mails: counts.orderMails,
    checkout_sessions: counts.checkoutSessions,
    webhook_events: counts.webhookEvents,
    webhook_responses: counts.webhookResponses,
    stored_responses: counts.storedResponses,
    development_mails: counts.developmentMails,
  };
}

/** Rewrites a webhook payload ({type, timestamp, data}) whose data is an Order. */
function redactPayload(payload: Record<string, unknown>): Record<string, unknown> {
  return { ...payload, data: redactOrderJson(payload.data) };
}

/**
 * Erases the personal data of these orders (a bounded batch) wherever it is kept; counts the rows
 * changed, none when they were erased already. `storedResponses`: also rewrite the idempotent
 * responses of the last 24 hours (an erasure; retention comes long after they are gone).
 */
export async function redactOrderSet(
  tx: Executor,
  refs: OrderRef[],
  options: { storedResponses: boolean },
): Promise<ErasureCounts> {
  const counts = noErasures();
  if (refs.length === 0) return counts;
  const ids = refs.map((r) => r.id);
  const sessionIds = [...new Set(refs.flatMap((r) => (r.checkoutSessionId ? [r.checkoutSessionId] : [])))];
  const changed = await redactOrders(tx, ids);
  counts.orders = changed.orders;
  counts.registrations = changed.registrations;
  counts.paymentAttempts = await redactPayerNumbers(tx, ids);
  counts.orderMails = await redactOrderMails(tx, ids);
  counts.checkoutSessions = await clearPrefill(tx, sessionIds);
  const webhooks = await rewriteEventPayloads(tx, { subjectIds: ids, rewrite: redactPayload });
  counts.webhookEvents = webhooks.events;
  counts.webhookResponses = webhooks.responses;
  if (options.storedResponses) {
    counts.storedResponses = await rewriteStoredResponses(tx, { dataIds: ids, rewrite: redactOrderJson });
  }
  return counts;
}
