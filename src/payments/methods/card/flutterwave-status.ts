// Flutterwave answers -> our results. Pure functions, table-tested: verify-by-reference (the only
// answer that pays anything), the refund status, and the two hints (the buyer's return, the webhook).
import { safeEqual } from '../../../platform/index.ts';
import {
  CURRENCY_EXPONENT,
  isPaymentReference,
  parseMajorAmount,
  type ProviderFailureKind,
  type RefundStatusResult,
  type StatusResult,
} from '../../provider.ts';

/** What we asked for: a verify answer is successful only when it matches all three. */
export interface ExpectedPayment {
  reference: string;
  /** minor units */
  amount: number;
  currency: string;
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** An id Flutterwave gives as a number (or a numeric string) -> its text; undefined otherwise. */
const idOf = (value: unknown): string | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : str(value);

/**
 * The processor's words -> a failure kind. Card refusals by the issuer or the 3-D Secure step are
 * the buyer's bank saying no (declined); reasons we cannot read stay provider_error (retryable).
 */
export function failureKindOf(processorResponse: string | undefined): ProviderFailureKind {
  const text = (processorResponse ?? '').toLowerCase();
  if (/insufficient|not enough (funds|balance)/.test(text)) return 'insufficient_funds';
  if (
    /declin|do not honou?r|refer to (card )?issuer|stolen|lost card|restricted|pick ?up|otp|3ds|authenticat|incorrect pin|invalid (card|cvv|pin)|expired card|card expired/.test(
      text,
    )
  ) {
    return 'payment_declined';
  }
  if (/time ?out|timed out|expired|abandon/.test(text)) return 'payment_timeout';
  if (/invalid (phone|mobile|msisdn)/.test(text)) return 'invalid_phone_number';
  return 'provider_error';
}

export type VerifyReading =
  | StatusResult
  /** the answer names another payment, or says nothing readable: no word on ours */
  | { status: 'unreadable'; why: string };

/**
 * GET /v3/transactions/verify_by_reference answer (HTTP status and body) -> our result. Successful
 * only when Flutterwave says so AND the tx_ref is ours, the currency ours, and the amount at least
 * what we asked; a successful charge that does not match is a failure, never a payment.
 */
export function readVerify(httpStatus: number, body: unknown, expected: ExpectedPayment): VerifyReading {
  const envelope = record(body);
  const message = str(envelope?.message);
  if (httpStatus === 404 || (envelope?.status === 'error' && /no transaction/i.test(message ?? ''))) {
    return { status: 'not_found' };
  }
  const data = record(envelope?.data);
  if (envelope?.status !== 'success' || !data) {
    return { status: 'unreadable', why: 'no transaction in the answer' };
  }
  if (data.tx_ref !== expected.reference) {
    return { status: 'unreadable', why: 'the answer names another tx_ref' };
  }
  const state = str(data.status)?.toLowerCase();
  const processor = str(data.processor_response)?.slice(0, 200);
  const providerCode = idOf(data.id);
  if (state === 'successful') {
    const currency = str(data.currency) ?? null;
    const exponent = currency === null ? undefined : CURRENCY_EXPONENT[currency];
    const amount = exponent === undefined ? null : parseMajorAmount(data.amount, exponent);
    if (currency !== expected.currency || amount === null || amount < expected.amount) {
      return {
        status: 'failed',
        failureKind: 'provider_error',
        message: `Flutterwave reports ${currency ?? 'an unknown currency'} ${amount ?? String(data.amount)} paid where ${expected.currency} ${expected.amount} was asked; not a payment of this order.`,
        providerCode: 'amount_mismatch',
      };
    }
    return { status: 'successful', amount, currency, providerTransactionId: providerCode ?? null };
  }
  if (state === 'failed' || state === 'cancelled') {
    return {
      status: 'failed',
      failureKind: failureKindOf(processor),
      message: processor ?? `Flutterwave reported the payment ${state}.`,
      ...(providerCode ? { providerCode } : {}),
    };
  }
  // "pending", or a status Flutterwave may add later: ask again.
  return { status: 'pending' };
}

/** GET /v3/refunds/{id} body -> RefundStatusResult; null when the body says nothing usable. */
export function readRefundStatus(httpStatus: number, body: unknown): RefundStatusResult | null {
  const envelope = record(body);
  if (httpStatus === 404) return { status: 'not_found' };
  const data = record(envelope?.data);
  if (envelope?.status !== 'success' || !data) return null;
  const state = str(data.status)?.toLowerCase();
  if (state === 'completed' || state === 'successful') {
    return { status: 'succeeded', providerReference: idOf(data.id) ?? null };
  }
  if (state === 'failed') {
    const why = str(data.comment) ?? str(data.comments);
    return {
      status: 'failed',
      message: `Flutterwave reported the refund failed${why ? ` (${why.slice(0, 120)})` : ''}.`,
    };
  }
  return { status: 'pending' };
}

/** What the buyer's return says, as a hint only: the payment is known by verify alone. */
export interface ReturnHint {
  reference: string;
  /** as the redirect gave it: successful, cancelled, failed, pending... */
  status: string;
  transactionId: string | null;
}

/** The redirect's query (`status`, `tx_ref`, `transaction_id`); null without a tx_ref of ours. */
export function parseFlutterwaveReturn(query: URLSearchParams | string): ReturnHint | null {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const reference = params.get('tx_ref');
  if (!isPaymentReference(reference)) return null;
  const id = params.get('transaction_id');
  return {
    reference,
    status: (params.get('status') ?? '').slice(0, 32),
    transactionId: id && /^\d{1,20}$/.test(id) ? id : null,
  };
}

export type WebhookReading =
  /** the hash is missing or wrong: refuse, and read nothing */
  | { kind: 'refused' }
  /** a right hash but no charge of ours in it: answer 200, do nothing */
  | { kind: 'ignored' }
  /** a charge of ours changed: verify it (the webhook itself pays nothing) */
  | { kind: 'verify'; reference: string };

/** The `verif-hash` header against our secret hash, in constant time. */
export function webhookHashMatches(presented: string | undefined, secretHash: string): boolean {
  if (presented === undefined || presented === '' || secretHash === '') return false;
  return safeEqual(presented, secretHash);
}

/** A webhook (its `verif-hash` header and parsed body) -> what to do about it. */
export function readFlutterwaveWebhook(
  presentedHash: string | undefined,
  body: unknown,
  secretHash: string,
): WebhookReading {
  if (!webhookHashMatches(presentedHash, secretHash)) return { kind: 'refused' };
  const envelope = record(body);
  const reference = record(envelope?.data)?.tx_ref;
  if (envelope?.event !== 'charge.completed' || !isPaymentReference(reference)) return { kind: 'ignored' };
  return { kind: 'verify', reference };
}
