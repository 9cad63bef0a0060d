// Airtel Money Open API answers -> the port's results. Pure functions, table-tested.
import type { Failure } from '../momo/mtn-momo-status.ts';
import {
  CURRENCY_EXPONENT,
  parseMajorAmount,
  type RefundStatusResult,
  type RefundSubmitResult,
  type StatusResult,
  type SubmitResult,
} from '../../provider.ts';

/** What an Airtel response code says about a payment. */
export type AirtelCodeMeaning =
  { kind: 'success' } | { kind: 'pending' } | { kind: 'not_found' } | ({ kind: 'failed' } & Failure);

const failed = (failureKind: Failure['failureKind'], message: string): AirtelCodeMeaning => ({
  kind: 'failed',
  failureKind,
  message,
});

/** Airtel's DP008000010xx response codes (collection and transaction enquiry). */
export const AIRTEL_RESPONSE_CODES: Readonly<Record<string, AirtelCodeMeaning>> = {
  // "Ambiguous": Airtel itself does not know yet; ask again.
  DP00800001000: { kind: 'pending' },
  DP00800001001: { kind: 'success' },
  DP00800001002: failed('payment_declined', 'The payer entered a wrong PIN.'),
  DP00800001003: failed('payment_declined', "The payment is over the payer's Airtel Money limit."),
  DP00800001004: failed('provider_error', 'Airtel refused the amount.'),
  DP00800001005: failed('provider_error', 'Airtel refused the transaction id.'),
  DP00800001006: { kind: 'pending' },
  DP00800001007: failed('insufficient_funds', "The payer's Airtel Money balance is too low."),
  DP00800001008: failed('payment_declined', 'The payer declined the payment.'),
  DP00800001010: failed(
    'payment_declined',
    'The number is not registered for Airtel Money, or may not make this payment.',
  ),
  DP00800001024: failed('payment_timeout', 'The payer did not approve the payment in time.'),
  DP00800001025: { kind: 'not_found' },
  DP00800001029: failed('payment_timeout', 'The payment request expired before the payer approved it.'),
};

/** A response code -> its meaning; codes we do not know are a failure on Airtel's side (retryable). */
export function mapAirtelResponseCode(code: unknown): AirtelCodeMeaning {
  const known = typeof code === 'string' ? AIRTEL_RESPONSE_CODES[code] : undefined;
  if (known) return known;
  return failed(
    'provider_error',
    typeof code === 'string' && code
      ? `Airtel reported the payment failed (${code.slice(0, 40)}).`
      : 'Airtel reported the payment failed.',
  );
}

interface AirtelEnvelope {
  data?: { transaction?: Record<string, unknown> } | null;
  status?: {
    code?: unknown;
    message?: unknown;
    result_code?: unknown;
    response_code?: unknown;
    success?: unknown;
  };
}

function envelopeOf(body: unknown): AirtelEnvelope | null {
  return body && typeof body === 'object' ? (body as AirtelEnvelope) : null;
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * GET /standard/v1/payments/{id} body -> StatusResult. The transaction status decides (TS success;
 * TIP, TA, TI pending; TE expired; TF failed, why from the response code); without one, the
 * response code decides (DP00800001025: not found). Null when neither says anything usable.
 */
export function mapAirtelEnquiry(body: unknown): StatusResult | null {
  const envelope = envelopeOf(body);
  if (!envelope) return null;
  const tx = envelope.data && typeof envelope.data === 'object' ? envelope.data.transaction : undefined;
  const code = str(envelope.status?.response_code);
  const txStatus = str(tx?.status)?.toUpperCase();
  if (txStatus === 'TS') {
    const currency = str(tx?.currency) ?? null;
    const exponent = currency === null ? undefined : CURRENCY_EXPONENT[currency];
    return {
      status: 'successful',
      amount: exponent === undefined ? null : parseMajorAmount(tx?.amount, exponent),
      currency,
      providerTransactionId: str(tx?.airtel_money_id) ?? null,
    };
  }
  if (txStatus === 'TIP' || txStatus === 'TA' || txStatus === 'TI') return { status: 'pending' };
  if (txStatus === 'TE') {
    const meaning = code ? mapAirtelResponseCode(code) : undefined;
    if (meaning?.kind === 'failed' && meaning.failureKind === 'payment_timeout') {
      return {
        status: 'failed',
        failureKind: 'payment_timeout',
        message: meaning.message,
        providerCode: code,
      };
    }
    return {
      status: 'failed',
      failureKind: 'payment_timeout',
      message: 'The payment request expired before the payer approved it.',
      providerCode: code ?? 'TE',
    };
  }
  if (txStatus === 'TF') {
    const meaning = mapAirtelResponseCode(code);
    if (meaning.kind === 'failed') {
      return {
        status: 'failed',
        failureKind: meaning.failureKind,
        message: meaning.message,
        providerCode: code,
      };
    }
    if (meaning.kind === 'not_found') return { status: 'not_found' };
    // TF with a success or in-process code contradicts itself: a failure on Airtel's side.
    return {
      status: 'failed',
      failureKind: 'provider_error',
      message: 'Airtel reported the payment failed.',
      providerCode: code,
    };
  }
  if (txStatus !== undefined) return { status: 'pending' }; // a status Airtel may add later: ask again
  if (!code) return null;
  const meaning = mapAirtelResponseCode(code);
  if (meaning.kind === 'not_found') return { status: 'not_found' };
  if (meaning.kind === 'pending') return { status: 'pending' };
  return null;
}

/** Result codes that mean the subscriber number itself was refused. */
const MSISDN_RESULT_CODES = new Set(['ESB000033', 'ESB000036']);

/**
 * POST /merchant/v1/payments/ answer (status 2xx or 4xx with Airtel's envelope) -> SubmitResult.
 * Airtel reports refusals with HTTP 200 and status.success false, so the envelope decides.
 * Null when there is no envelope to read.
 */
export function mapAirtelSubmit(body: unknown): SubmitResult | null {
  const envelope = envelopeOf(body);
  const status = envelope?.status;
  if (!status || typeof status !== 'object') return null;
  const resultCode = str(status.result_code);
  const responseCode = str(status.response_code);
  if (resultCode === 'ESB000041') return { kind: 'already_submitted' };
  const success = status.success === true || status.success === 'true';
  if (success) return { kind: 'submitted' };
  if (resultCode && MSISDN_RESULT_CODES.has(resultCode)) {
    return {
      kind: 'rejected',
      failureKind: 'invalid_phone_number',
      message: 'Airtel refused the phone number.',
      providerCode: resultCode,
    };
  }
  if (responseCode) {
    const meaning = mapAirtelResponseCode(responseCode);
    if (meaning.kind === 'failed') {
      return {
        kind: 'rejected',
        failureKind: meaning.failureKind,
        message: meaning.message,
        providerCode: responseCode,
      };
    }
    // "not successful" yet "in process" or "ambiguous": the payment may exist, so poll.
    if (meaning.kind === 'pending' || meaning.kind === 'success') {
      return { kind: 'unknown', message: `Airtel gave a contradictory answer (${responseCode}).` };
    }
  }
  const message = str(status.message)?.slice(0, 120);
  return {
    kind: 'rejected',
    failureKind: 'provider_error',
    message: `Airtel refused the payment request${message ? ` (${message})` : ''}.`,
    ...(resultCode ? { providerCode: resultCode } : {}),
  };
}

/**
 * POST /standard/v1/payments/refund answer -> RefundSubmitResult. As for a payment, Airtel refuses
 * with HTTP 200 and status.success false; ESB000041 (the id was used) is our own resend; a code
 * that means pending or success without success contradicts itself and is asked about.
 */
export function mapAirtelRefundSubmit(body: unknown): RefundSubmitResult | null {
  return mapSubmit(body, 'refund', (code) => {
    const meaning = mapAirtelResponseCode(code).kind;
    return meaning === 'pending' || meaning === 'success';
  });
}

/** A refund's or disbursement's submit answer: `undecided` codes without success are asked about. */
function mapSubmit(
  body: unknown,
  what: 'refund' | 'disbursement',
  undecided: (responseCode: string) => boolean,
): RefundSubmitResult | null {
  const status = envelopeOf(body)?.status;
  if (!status || typeof status !== 'object') return null;
  const resultCode = str(status.result_code);
  if (resultCode === 'ESB000041') return { kind: 'submitted' };
  if (status.success === true || status.success === 'true') return { kind: 'submitted' };
  const responseCode = str(status.response_code);
  if (responseCode && undecided(responseCode)) {
    return { kind: 'unknown', message: `Airtel gave a contradictory answer (${responseCode}).` };
  }
  const message = str(status.message)?.slice(0, 120);
  const code = responseCode ?? resultCode;
  return {
    kind: 'rejected',
    message: `Airtel refused the ${what}${message ? ` (${message})` : ''}.`,
    ...(code ? { providerCode: code } : {}),
  };
}

/**
 * The refund's transaction enquiry (GET /standard/v1/payments/{refund id}) -> RefundStatusResult:
 * the payment enquiry's reading, in refund words (TS succeeded; TF and TE failed; TIP pending).
 */
export function mapAirtelRefundEnquiry(body: unknown): RefundStatusResult | null {
  const result = mapAirtelEnquiry(body);
  if (!result) return null;
  switch (result.status) {
    case 'successful':
      return { status: 'succeeded', providerReference: result.providerTransactionId };
    case 'failed':
      return {
        status: 'failed',
        message: `Airtel reported the refund failed${result.providerCode ? ` (${result.providerCode})` : ''}.`,
        ...(result.providerCode ? { providerCode: result.providerCode } : {}),
      };
    default:
      return result;
  }
}

/** Disbursement codes that, without success, contradict themselves: ambiguous, success, in process. */
const DISBURSEMENT_UNDECIDED = new Set(['DP00900001000', 'DP00900001001', 'DP00900001006']);

/**
 * POST /standard/v1/disbursements/ answer (a part of a payment paid back) -> RefundSubmitResult.
 * Refusals come with HTTP 200 and status.success false; ESB000041 (the id was used) is our own
 * resend; an undecided code without success is asked about rather than taken as a refusal.
 */
export function mapAirtelDisbursementSubmit(body: unknown): RefundSubmitResult | null {
  return mapSubmit(body, 'disbursement', (code) => DISBURSEMENT_UNDECIDED.has(code));
}

/** "Transaction not found" in Airtel's envelope: the result code, or a response code ending 1025. */
const isNotFound = (resultCode: string | undefined, responseCode: string | undefined) =>
  resultCode === 'ESB000045' || /^DP00[89]00001025$/.test(responseCode ?? '');

/**
 * GET /standard/v1/disbursements/{id} body -> RefundStatusResult: TS succeeded, TF failed, TIP and
 * TA pending (a status Airtel may add later too: ask again); without a status, "not found" is
 * not_found. Null when the body says nothing usable.
 */
export function mapAirtelDisbursementEnquiry(body: unknown): RefundStatusResult | null {
  const envelope = envelopeOf(body);
  if (!envelope) return null;
  const tx = envelope.data && typeof envelope.data === 'object' ? envelope.data.transaction : undefined;
  const responseCode = str(envelope.status?.response_code);
  const txStatus = str(tx?.status)?.toUpperCase();
  if (txStatus === 'TS') return { status: 'succeeded', providerReference: str(tx?.airtel_money_id) ?? null };
  if (txStatus === 'TF') {
    return {
      status: 'failed',
      message: `Airtel reported the disbursement failed${responseCode ? ` (${responseCode})` : ''}.`,
      ...(responseCode ? { providerCode: responseCode } : {}),
    };
  }
  if (txStatus !== undefined) return { status: 'pending' };
  if (isNotFound(str(envelope.status?.result_code), responseCode)) return { status: 'not_found' };
  return null;
}
