// The wait page's data, and the 429 a buyer limit answers with (Retry-After, a log line, the page
// with the message on its field), for the handlers that send payment prompts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { feeFor, methodFee } from '../../events/index.ts';
import { registrationsOf, type OrderRow } from '../../orders/index.ts';
import {
  FAILED_PAYMENTS_PER_ORDER,
  failedPaymentsOf,
  resendOpensAt,
  type PaymentAttemptRow,
  type PaymentMethod,
} from '../../payments/index.ts';
import { offerOf } from '../offer-words.ts';
import { promptLimitMessage, type PromptSlot } from '../buyer-limits.ts';
import { isOpen, renderWaitPage, type WaitView } from '../views/status-pages.ts';
import { sendPage, type Loaded } from './page-replies.ts';

/**
 * The wait page for the order and its latest attempt, as read together (loadSessionPayment): an
 * attempt read again here could be settled on a still pending order, and the page would offer to pay.
 */
export async function waitView(
  ctx: AppContext,
  {
    loaded,
    order,
    attempt,
    ...extra
  }: { loaded: Loaded; order: OrderRow; attempt: PaymentAttemptRow | null } & Partial<WaitView>,
): Promise<WaitView> {
  const db = ctx.database.db;
  const regs = (await registrationsOf(db, [order.id])).get(order.id) ?? [];
  const fees = loaded.found.organization.fees;
  const base = order.subtotal - order.discountTotal + order.donationTotal;
  const offer = offerOf(loaded.found);
  const totals = Object.fromEntries(
    offer.methods.map((m) => [
      m.key,
      base + regs.reduce((sum, r) => sum + feeFor(r.priceMinor, methodFee(fees, m), offer.unit), 0),
    ]),
  ) as Partial<Record<PaymentMethod, number>>;
  const failed = order.status === 'cancelled' ? await failedPaymentsOf(db, order.id) : 0;
  return {
    failedPayments: failed >= FAILED_PAYMENTS_PER_ORDER ? failed : null,
    resendAt: attempt && isOpen(attempt) ? resendOpensAt(ctx, attempt) : null,
    session: loaded.session,
    found: loaded.found,
    order,
    attempt,
    totals,
    now: ctx.clock.now(),
    ...extra,
  };
}

export interface Refusal {
  code: 'hold_limit_reached' | 'prompt_limit_reached';
  retryAfterSeconds: number;
  message: string;
}

/** A 429 for a buyer limit: Retry-After, and the log line the error handler would write. */
export function refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): void {
  reply.header('Retry-After', String(refusal.retryAfterSeconds));
  request.log.info({ error_code: refusal.code }, refusal.message);
}

export interface PromptRefused {
  loaded: Loaded;
  order: OrderRow;
  /** the order's latest attempt, read with it */
  attempt: PaymentAttemptRow | null;
  slot: Extract<PromptSlot, { allowed: false }>;
  /** what the buyer asked for, back in the retry form */
  retry: { method: string; phone: string };
}

/** The wait page, answering 429 prompt_limit_reached, with the number's field in error. */
export async function sendPromptRefused(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  refused: PromptRefused,
) {
  const { loaded, order, attempt, slot, retry } = refused;
  const message = promptLimitMessage(slot.retryAfterSeconds);
  refuse(request, reply, {
    code: 'prompt_limit_reached',
    retryAfterSeconds: slot.retryAfterSeconds,
    message,
  });
  const view = await waitView(ctx, {
    loaded,
    order,
    attempt,
    errors: [{ field: 'payment_phone', message }],
    retry,
    errorCode: 'prompt_limit_reached',
  });
  return sendPage(reply, 429, renderWaitPage(view));
}
