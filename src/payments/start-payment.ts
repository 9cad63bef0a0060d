// Starting a payment: check the buyer's number, re-price and record the attempt with its job in
// one transaction, then send the prompt in the background (submitAttempt; the job sends it if this
// process dies first).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { findOrganization } from '../organizations/index.ts';
import {
  expireOrderHold,
  extendHold,
  findOrder,
  lockOrder,
  normalizePhone,
  phoneWords,
  repriceOrder,
  type OrderRow,
} from '../orders/index.ts';
import {
  ApiError,
  enqueueJob,
  methodsForCurrency,
  payableUnit,
  newId,
  notFound,
  retryConflicts,
  warnUnlessUnreachable,
  type Tx,
} from '../platform/index.ts';
import {
  countAttemptEnd,
  failAttempt,
  findAttempt,
  openAttempt,
  type PaymentAttemptRow,
} from './payment-attempts.ts';
import { networkOf } from './methods/catalogue.ts';
import type { PaymentMethodDefinition } from './methods/registry.ts';
import { methodOf, providerOf, type PaymentGateway } from './payment-gateway.ts';
import { nextPollDelayMs, PAYMENT_JOB, PROMPT_WINDOW_MS } from './payment-schedule.ts';
import { paymentAttempts } from './payments.schema.ts';
import { MIN_AMOUNT } from './provider.ts';

/** The numbers a prompt can go to (methods' prefixes), as a developer reads them: "MTN 076, 077 or Airtel 070". */
function mobileMoneyPrefixes(methods: readonly PaymentMethodDefinition[]): string {
  return methods
    .filter((m) => m.prefixes.length > 0)
    .map((m) => `${m.labels.en.network} ${m.prefixes.map((p) => `0${p}`).join(', ')}`)
    .join(' or ');
}

export interface StartPaymentInput {
  organizationId: string;
  orderId: string;
  /** a method key; one the service does not take is validation_failed */
  method: string;
  /** the number the prompt goes to; unused by a method paid on the provider's page (cards) */
  phone: string;
}

/**
 * Starts (or continues) payment of a pending order: re-prices it for the chosen method, extends
 * the hold over the prompt window, records the attempt, and sends the prompt. A second call while
 * a prompt is outstanding sends nothing and returns the order as it is.
 */
export async function startPayment(ctx: AppContext, input: StartPaymentInput): Promise<OrderRow> {
  const gateway = ctx.gateway;
  const method = methodOf(gateway, input.method);
  const msisdn = checkPayerPhone(gateway, method, input.phone);
  // A deadlock with another writer of the order aborts the whole transaction: nothing was kept.
  const started = await retryConflicts(() =>
    ctx.database.transaction((tx) => openPaymentAttempt(ctx, tx, { gateway, method, input, msisdn })),
  );
  if (started.lapsed) {
    throw new ApiError('order_not_payable', 'The hold on this order has expired; start a new order.');
  }
  if (!started.attempt) return started.order;
  // A method paid on the provider's page needs its address before the buyer can go on; a prompt
  // goes out in the background so the caller gets its 202 at once.
  if (method.hostedPage) await submitOrLeaveToJob(ctx, started.attempt.reference);
  else submitInBackground(ctx, gateway, started.attempt.reference);
  return started.order;
}

/**
 * Refuses a method the order's currency does not take (an M-Pesa prompt for a UGX order), or one the
 * organization has not turned on (cards). The organization is read only when its choices matter:
 * for a method that needs turning on, or to name what it offers in a refusal.
 */
async function checkMethodTakes(
  tx: Tx,
  gateway: PaymentGateway,
  method: PaymentMethodDefinition,
  order: Pick<OrderRow, 'currency' | 'organizationId'>,
): Promise<void> {
  if (method.currencies.includes(order.currency) && !method.optIn) return;
  const optedIn = (await findOrganization(tx, order.organizationId))?.optedInMethods ?? [];
  const keys = methodsForCurrency(order.currency, gateway.methods, optedIn).map((m) => m.key);
  if (keys.includes(method.key)) return;
  const offered = keys.length ? `one of ${keys.join(', ')}` : `none: no method takes ${order.currency} here`;
  const why = method.currencies.includes(order.currency)
    ? `This organization does not take ${method.labels.en.name}`
    : `${method.labels.en.name} does not take ${order.currency}`;
  throw new ApiError('validation_failed', `${why}; payment_method must be ${offered}.`, {
    errors: [{ field: 'payment_method', message: `must be ${offered}` }],
  });
}

/**
 * The payer's number, normalized; refused (validation_failed;
 * docs/decisions/network-and-phone-checks.md) when it is not a number of the method's country,
 * when it cannot receive mobile money (a landline, a network we do not take), or when it is on
 * another method's network. Every prompt goes through here: the partner API's pay route and the
 * hosted checkout alike.
 */
function checkPayerPhone(gateway: PaymentGateway, method: PaymentMethodDefinition, phone: string): string {
  const { country } = method;
  // Paid on the provider's page: no number is asked or kept.
  if (country === null) return '';
  const msisdn = normalizePhone(phone, country);
  if (msisdn === null) {
    const words = phoneWords(country);
    throw new ApiError('validation_failed', `phone must be ${words}.`, {
      errors: [{ field: 'phone', message: `must be ${words}` }],
    });
  }
  const sameCountry = gateway.methods.filter((m) => m.country === country);
  const network = networkOf(msisdn, sameCountry);
  if (network === null) {
    const prefixes = mobileMoneyPrefixes(sameCountry);
    throw new ApiError(
      'validation_failed',
      `phone must be a mobile money number: ${prefixes}. Landlines and other networks cannot receive the prompt.`,
      { errors: [{ field: 'phone', message: `must be a mobile money number: ${prefixes}` }] },
    );
  }
  if (network !== method.key) {
    const owner = methodOf(gateway, network);
    const name = `${owner.labels.en.name} (${owner.key})`;
    throw new ApiError('validation_failed', `This number is on ${name}; choose that payment method.`, {
      errors: [{ field: 'phone', message: `is a ${name} number, not ${method.key}` }],
    });
  }
  return msisdn;
}

interface OpenPaymentAttempt {
  gateway: PaymentGateway;
  method: PaymentMethodDefinition;
  input: StartPaymentInput;
  msisdn: string;
}

/**
 * In the caller's transaction: the locked order, and the attempt recorded for it (null when a
 * prompt is already out, or when its hold had lapsed: then the hold is settled and `lapsed` set).
 */
async function openPaymentAttempt(
  ctx: AppContext,
  tx: Tx,
  { gateway, method, input, msisdn }: OpenPaymentAttempt,
): Promise<{ order: OrderRow; attempt: PaymentAttemptRow | null; lapsed: boolean }> {
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
  // The locked order's currency, and its organization's choices, say which methods may pay it.
  await checkMethodTakes(tx, gateway, method, order);
  const repriced = await repriceOrder(tx, order, method, now);
  checkAmount(gateway, method, repriced);
  const promptExpiresAt = new Date(now.getTime() + PROMPT_WINDOW_MS * gateway.timeScale);
  // The hold covers the whole approval window (plus a margin), so a success never finds its seats released.
  const holdUntil = new Date(promptExpiresAt.getTime() + 60_000 * gateway.timeScale);
  const extended = await extendHold(tx, order.id, holdUntil, now);
  const [attempt] = await tx
    .insert(paymentAttempts)
    .values({
      id: newId('pay'),
      reference: randomUUID(),
      orderId: order.id,
      organizationId: order.organizationId,
      method: method.key,
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
  return { order: extended, attempt: attempt!, lapsed: false };
}

/** Refuses a re-priced total below mobile money's minimum or above the method's per-payment maximum. */
function checkAmount(
  gateway: PaymentGateway,
  method: PaymentMethodDefinition,
  repriced: { total: number; currency: string },
): void {
  const minimum = MIN_AMOUNT[repriced.currency] ?? 0;
  if (repriced.total < minimum) {
    throw new ApiError(
      'amount_below_minimum',
      `Mobile money needs at least ${minimum} ${repriced.currency}; this order totals ${repriced.total}.`,
    );
  }
  const unit = payableUnit(repriced.currency);
  if (repriced.total % unit !== 0) {
    throw new ApiError(
      'validation_failed',
      `${method.labels.en.name} takes whole amounts of ${repriced.currency} only; this order totals ${repriced.total} minor units.`,
    );
  }
  // Refused before any prompt: the provider would refuse it only after the buyer approved.
  const maximum = gateway.maxAmount[method.key]?.[repriced.currency] ?? 0;
  if (repriced.total > maximum) {
    throw new ApiError(
      'amount_too_large',
      `${method.labels.en.name} takes at most ${maximum} ${repriced.currency} in one payment; this order totals ${repriced.total}.`,
    );
  }
}

/** Submits the attempt; a failure to reach the provider is left to the attempt's job, which retries. */
function submitOrLeaveToJob(ctx: AppContext, reference: string): Promise<void> {
  return submitAttempt(ctx, reference).catch((error: unknown) =>
    warnUnlessUnreachable(
      ctx.outage,
      ctx.log,
      error,
      { reference },
      'payment submission failed; the job will retry',
    ),
  );
}

/**
 * The prompt goes out in the background so the caller gets its 202 at once even when a provider
 * is slow; the attempt's job submits it anyway if this process dies first.
 */
function submitInBackground(ctx: AppContext, gateway: PaymentGateway, reference: string): void {
  const submission = submitOrLeaveToJob(ctx, reference).finally(() => gateway.inflight.delete(submission));
  gateway.inflight.add(submission);
}

/** The buyer as a provider's hosted page names them, and where it sends them back. */
async function hostedPageOf(ctx: AppContext, attempt: PaymentAttemptRow) {
  const order = await findOrder(ctx.database.db, attempt.organizationId, attempt.orderId);
  if (!order) throw new Error(`order ${attempt.orderId} of payment ${attempt.reference} not found`);
  return {
    returnUrl: `${ctx.gateway.returnBase}/${attempt.reference}`,
    payer: { email: order.buyerEmail, name: order.buyerName },
  };
}

/** Sends the prompt for an attempt in state `submitting` and records what the provider said. */
export async function submitAttempt(ctx: AppContext, reference: string): Promise<void> {
  const gateway = ctx.gateway;
  const attempt = await findAttempt(ctx.database.db, reference);
  if (!attempt || attempt.status !== 'submitting') return;
  const provider = providerOf(gateway, attempt.method);
  const paidOnItsPage = gateway.methods.find((m) => m.key === attempt.method)?.hostedPage;
  const hosted = paidOnItsPage ? await hostedPageOf(ctx, attempt) : {};
  const asked = { amount: attempt.amount, currency: attempt.currency };
  const result = await provider.requestPayment({
    reference,
    ...asked,
    msisdn: attempt.msisdn,
    callbackUrl: `${gateway.callbackBase}/${attempt.method}/${reference}`,
    description: `Order payment ${attempt.orderId}`,
    ...hosted,
  });
  // A provider error on submit says "nothing created", but a payment created despite it must not
  // be orphaned: ask once, and if it exists, follow it like any other.
  const created =
    result.kind === 'rejected' && result.failureKind === 'provider_error'
      ? await provider.getStatus(reference, null, asked).then(
          (status) => status.status !== 'not_found',
          () => false,
        )
      : false;
  await ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    const locked = await findAttempt(tx, reference, true);
    // Closed by the buyer while it was being sent: a refusal settles it (quietly: failAttempt shows
    // a closed attempt's failure to nobody); anything else leaves it closed for the job to follow.
    if (locked?.status === 'closed' && result.kind === 'rejected' && !created) {
      await failAttempt(tx, locked, result.failureKind, result.message, now);
      countAttemptEnd(ctx, locked, result.failureKind);
      return;
    }
    if (!locked || locked.status !== 'submitting') return;
    if (result.kind === 'rejected' && !created) {
      await failAttempt(tx, locked, result.failureKind, result.message, now);
      countAttemptEnd(ctx, locked, result.failureKind);
      return;
    }
    // submitted, already_submitted (a resend of ours) or unknown (lost response): learn by polling.
    if (result.kind === 'unknown')
      ctx.log.warn({ reference, message: result.message }, 'payment submission outcome unknown');
    const providerReference = result.kind === 'submitted' ? (result.providerReference ?? null) : null;
    const redirectUrl = result.kind === 'submitted' ? (result.redirectUrl ?? null) : null;
    await tx
      .update(paymentAttempts)
      .set({
        status: 'pending',
        ...(providerReference ? { providerReference } : {}),
        ...(redirectUrl ? { redirectUrl } : {}),
      })
      .where(eq(paymentAttempts.id, locked.id));
  });
}
