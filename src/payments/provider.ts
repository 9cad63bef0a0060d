// The payment provider port: what the rest of the service may ask a mobile-money network, and the
// answers it can get. Adapters (mtn-momo.ts, airtel.ts) speak the real APIs; the simulator speaks
// the same contracts, so both are always exercised over real HTTP. Nothing here touches the
// database: callers record attempts and decide what an answer means for an order.
import type { FailureKind } from '../orders/index.ts';
import { currencyExponent } from '../platform/index.ts';

export type { PaymentMethod } from './methods/catalogue.ts';

/** Why a payment failed, in the order's own words (order-state.ts); provider_error is retryable. */
export type ProviderFailureKind = Exclude<FailureKind, 'hold_expired'>;

export const PROVIDER_FAILURE_KINDS: readonly ProviderFailureKind[] = [
  'payment_declined',
  'payment_timeout',
  'insufficient_funds',
  'invalid_phone_number',
  'provider_error',
];

export interface PaymentRequest {
  /** our UUID v4, unique per attempt: MTN's X-Reference-Id, Airtel's transaction.id */
  reference: string;
  /** minor units (UGX has exponent 0) */
  amount: number;
  currency: string;
  /** 256XXXXXXXXX, as normalizePhone returns it; empty for a method paid on its own page (cards) */
  msisdn: string;
  /** where the provider may call back (MTN takes it per request; Airtel's is registered with Airtel) */
  callbackUrl: string;
  /** shown in the payer's history; cleaned and shortened to what each provider accepts */
  description: string;
  /** where a provider's hosted page sends the buyer back (methods paid on the provider's page) */
  returnUrl?: string;
  /** the buyer, as a provider's hosted page names them (its receipt goes to the email) */
  payer?: { email: string; name: string };
}

/** What we asked of a payment, which an answer must match to pay it (cards' verify). */
interface AskedPayment {
  /** minor units */
  amount: number;
  currency: string;
}

export type SubmitResult =
  /**
   * the prompt is out: learn the outcome with getStatus. providerReference: the provider's own id
   * of the payment when it assigns one (Daraja's CheckoutRequestID), which getStatus then needs.
   * redirectUrl: for a method paid on the provider's page, where the buyer pays
   */
  | { kind: 'submitted'; providerReference?: string; redirectUrl?: string }
  /** this reference was already sent (MTN 409, Airtel ESB000041): a resend of ours, so poll */
  | { kind: 'already_submitted' }
  /** refused at once and nothing was created: the attempt has failed */
  | { kind: 'rejected'; failureKind: ProviderFailureKind; message: string; providerCode?: string }
  /** timeout or lost response: the payment may exist, so poll (never send a new reference) */
  | { kind: 'unknown'; message: string };

/** A refusal on our side or the provider's that created nothing and is worth another try. */
export function providerError(message: string): Extract<SubmitResult, { kind: 'rejected' }> {
  return { kind: 'rejected', failureKind: 'provider_error', message };
}

export type StatusResult =
  | { status: 'pending' }
  | {
      status: 'successful';
      /**
       * What the provider reports, in minor units, so callers can check it against what they asked
       * for. Null when the provider does not report it: Airtel's status enquiry names no amount
       * (the simulator does); an unreadable amount is null too.
       */
      amount: number | null;
      currency: string | null;
      /** MTN financialTransactionId, Airtel airtel_money_id; null when the provider gave none */
      providerTransactionId: string | null;
    }
  | { status: 'failed'; failureKind: ProviderFailureKind; message: string; providerCode?: string }
  /** the provider has no payment under this reference (never created, or not recorded yet) */
  | { status: 'not_found' };

/** Returning a successful payment, in full or in part, to the payer's wallet. */
export interface RefundRequest {
  /** our UUID v4 for the refund: MTN's X-Reference-Id, Airtel's transaction.id */
  reference: string;
  /** the payment attempt's reference (MTN referenceIdToRefund) */
  paymentReference: string;
  /** the provider's id of the payment (Airtel airtel_money_id; MTN financialTransactionId) */
  providerTransactionId: string | null;
  /** minor units: what goes back, the payment's whole amount or a part of it (a partial refund) */
  amount: number;
  /** minor units: the whole payment, so an adapter knows a part (Airtel sends a part another way) */
  paymentAmount: number;
  /** the payer's number, 256XXXXXXXXX (Airtel pays a part back to it as a disbursement) */
  msisdn: string;
  currency: string;
  /** shown in the payer's history */
  description: string;
  /**
   * our route for this refund's asynchronous result (Daraja's ResultURL and QueueTimeOutURL below
   * it); providers that are asked instead ignore it
   */
  callbackUrl?: string;
  /** the provider's ids of the refund as its submission answered them (Daraja's conversation ids) */
  providerIds?: Readonly<Record<string, string>> | null;
  /** the result its callback carried (refunds-callback.ts), for a provider that cannot be asked */
  providerResult?: unknown;
}

export type RefundSubmitResult =
  /**
   * taken: learn the outcome with getRefundStatus. providerIds: the provider's own ids of the
   * refund when it assigns them (Daraja's ConversationID), which its result callback names
   */
  | { kind: 'submitted'; providerIds?: Record<string, string> }
  /** refused at once and nothing was moved: the refund has failed */
  | { kind: 'rejected'; message: string; providerCode?: string }
  /** timeout or lost response: the refund may exist, so ask (never send it again under a new reference) */
  | { kind: 'unknown'; message: string };

export type RefundStatusResult =
  | { status: 'pending' }
  /** providerReference: MTN financialTransactionId, Airtel airtel_money_id of the refund; null when none given */
  | { status: 'succeeded'; providerReference: string | null }
  | { status: 'failed'; message: string; providerCode?: string }
  | { status: 'not_found' };

export interface PaymentProvider {
  /** the key of the method it serves (methods/registry.ts) */
  readonly method: string;
  /**
   * Why this adapter cannot give back a part of a payment as configured (a setting missing), said
   * to the asker as the 422; absent when it can (or when its method refunds only whole payments).
   */
  readonly partialRefundsRefused?: string;
  /**
   * Why this payment cannot be refunded through the provider at all (M-Pesa without the payment's
   * receipt or a reversal initiator), said to the asker as the 422; null when it can.
   */
  refundRefused?(
    payment: { providerTransactionId: string | null; amount: number },
    refundAmount: number,
  ): string | null;
  /** Sends a refund of a successful payment. Never throws for provider trouble: see RefundSubmitResult. */
  requestRefund(req: RefundRequest): Promise<RefundSubmitResult>;
  /** The refund's outcome; rejects with PaymentProviderError when the provider could not be asked. */
  getRefundStatus(req: RefundRequest): Promise<RefundStatusResult>;
  /** Sends the prompt to the payer's phone. Never throws for provider trouble: see SubmitResult. */
  requestPayment(req: PaymentRequest): Promise<SubmitResult>;
  /**
   * Asks the provider for the outcome. Rejects with PaymentProviderError when the provider could
   * not be asked (unreachable, timeout, 5xx, refused credentials, unreadable answer): that is no
   * answer about the payment, so the caller asks again later. providerReference: what the
   * submission returned, null when it returned none (a provider that needs it answers not_found).
   * asked: what the attempt asked, for a provider whose answer counts only when it matches (cards).
   */
  getStatus(
    reference: string,
    providerReference?: string | null,
    asked?: AskedPayment,
  ): Promise<StatusResult>;
  /**
   * A provider whose notices come to one address for every payment (Flutterwave's webhook): the
   * reference a notice names, when it proves itself ours (its secret hash); null otherwise. Like
   * any callback, it only prompts a status query.
   */
  readWebhook?(headers: Readonly<Record<string, string | undefined>>, body: unknown): string | null;
}

export type ProviderErrorKind = 'auth_failed' | 'unreachable' | 'timeout' | 'server_error' | 'bad_response';

/** The provider could not be asked. Messages never contain credentials or tokens. */
export class PaymentProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly method: string;
  readonly httpStatus: number | undefined;

  constructor(method: string, kind: ProviderErrorKind, message: string, httpStatus?: number) {
    super(message);
    this.name = 'PaymentProviderError';
    this.method = method;
    this.kind = kind;
    this.httpStatus = httpStatus;
  }
}

/**
 * The smallest amount an adapter submits, per currency, in minor units. Callers refuse smaller
 * totals before calling; the adapters refuse them too. A currency missing here is not supported.
 */
export const MIN_AMOUNT: Readonly<Record<string, number>> = Object.freeze({
  UGX: 500,
  // M-Pesa's least payment is one shilling.
  KES: 100,
});

/** The currencies we submit, with their exponents (platform/currency.ts): minor = major x 10^exponent. */
export const CURRENCY_EXPONENT: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(Object.keys(MIN_AMOUNT).map((currency) => [currency, currencyExponent(currency)])),
);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Our payment references are UUID v4 (MTN requires it for X-Reference-Id). */
export function isPaymentReference(value: unknown): value is string {
  return typeof value === 'string' && UUID_V4.test(value);
}

/** Minor units -> the provider's decimal string in major units ("1500" for UGX 1500). */
export function formatMajorAmount(minor: number, exponent: number): string {
  if (exponent === 0) return String(minor);
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * A provider's amount in major units (a decimal string or a number) -> minor units; null when it is
 * not a plain non-negative decimal or has more decimals than the currency allows (beyond zeros).
 */
export function parseMajorAmount(value: unknown, exponent: number): number | null {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return null;
  const match = /^(\d{1,15})(?:\.(\d{1,10}))?$/.exec(text.trim());
  if (!match) return null;
  const [, whole, fraction = ''] = match;
  const kept = fraction.slice(0, exponent).padEnd(exponent, '0');
  if (/[^0]/.test(fraction.slice(exponent))) return null;
  return Number(`${whole}${kept}`);
}

/**
 * The check MTN's and Airtel's adapters share, for Ugandan numbers in the currencies their method
 * takes: refuse before any network call.
 */
export function checkPaymentRequest(
  req: PaymentRequest,
  currencies: readonly string[],
): Extract<SubmitResult, { kind: 'rejected' }> | null {
  if (!isPaymentReference(req.reference)) {
    // A bug in the caller, not a payment outcome: every attempt must carry a fresh UUID v4.
    throw new TypeError(`payment reference must be a UUID v4, got "${String(req.reference).slice(0, 64)}"`);
  }
  const minimum = MIN_AMOUNT[req.currency];
  const exponent = CURRENCY_EXPONENT[req.currency];
  if (minimum === undefined || exponent === undefined || !currencies.includes(req.currency)) {
    return providerError(`currency ${req.currency} is not supported`);
  }
  if (!Number.isSafeInteger(req.amount)) {
    return providerError('amount must be a whole number of minor units');
  }
  if (req.amount < minimum) {
    return providerError('amount below the provider minimum');
  }
  if (!/^256\d{9}$/.test(req.msisdn)) {
    return {
      kind: 'rejected',
      failureKind: 'invalid_phone_number',
      message: 'the phone number must be 256 followed by 9 digits',
    };
  }
  return null;
}

/**
 * Payer-visible text: providers refuse some characters (MTN rejects "&", for one) and long notes,
 * so keep letters, digits and plain punctuation, and cut to `max` characters.
 */
export function cleanDescription(text: string, max: number): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9 .,:;\-_#/()']/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return (cleaned || 'Payment').slice(0, max).trim();
}

/** A provider-neutral check of a refund, before any network call (a bad reference is a caller bug). */
export function checkRefundRequest(
  req: RefundRequest,
): Extract<RefundSubmitResult, { kind: 'rejected' }> | null {
  if (!isPaymentReference(req.reference) || !isPaymentReference(req.paymentReference)) {
    throw new TypeError('refund and payment references must be UUID v4');
  }
  if (CURRENCY_EXPONENT[req.currency] === undefined) {
    return { kind: 'rejected', message: `currency ${req.currency} is not supported` };
  }
  if (!Number.isSafeInteger(req.amount) || req.amount <= 0) {
    return { kind: 'rejected', message: 'amount must be a positive whole number of minor units' };
  }
  return null;
}
