// Daraja's STK push query answers -> the port's status results. Pure functions, table-tested.
// Daraja names each outcome by a ResultCode; the buyer's own words are kept apart from the service's
// failure kinds (a reason per code), so a page can say "you cancelled" rather than "declined".
import type { ProviderFailureKind, StatusResult } from '../../provider.ts';

/** Why an M-Pesa payment failed, finer than the failure kind: what the buyer is told. */
export type DarajaReason =
  | 'cancelled_by_buyer'
  | 'wrong_pin'
  | 'insufficient_funds'
  | 'phone_unreachable'
  | 'expired'
  | 'subscriber_busy'
  | 'provider_error';

interface DarajaFailure {
  failureKind: ProviderFailureKind;
  reason: DarajaReason;
  message: string;
}

/** Documented STK ResultCodes (Daraja's M-Pesa Express pages); any other is provider_error. */
export const STK_RESULT_CODES: Readonly<Record<string, DarajaFailure>> = {
  '1': {
    failureKind: 'insufficient_funds',
    reason: 'insufficient_funds',
    message: "The buyer's M-Pesa balance is too low.",
  },
  '1032': {
    failureKind: 'payment_declined',
    reason: 'cancelled_by_buyer',
    message: 'The buyer cancelled the M-Pesa prompt.',
  },
  '2001': {
    failureKind: 'payment_declined',
    reason: 'wrong_pin',
    message: 'M-Pesa refused the authorisation (the initiator information is invalid: usually a wrong PIN).',
  },
  '1037': {
    failureKind: 'payment_timeout',
    reason: 'phone_unreachable',
    message: "The buyer's phone could not be reached, or did not answer the prompt in time.",
  },
  '1019': {
    failureKind: 'payment_timeout',
    reason: 'expired',
    message: 'The M-Pesa transaction expired before the buyer answered.',
  },
  // Another M-Pesa session was open on the buyer's phone: worth another try shortly.
  '1001': {
    failureKind: 'provider_error',
    reason: 'subscriber_busy',
    message: 'M-Pesa was busy with another transaction of the buyer.',
  },
  '1025': {
    failureKind: 'provider_error',
    reason: 'provider_error',
    message: 'M-Pesa could not send the prompt.',
  },
  '9999': {
    failureKind: 'provider_error',
    reason: 'provider_error',
    message: 'M-Pesa could not send the prompt.',
  },
};

/** The port's status result, with the buyer-facing reason on a failure. */
export type DarajaStatus =
  | Exclude<StatusResult, { status: 'failed' }>
  | (Extract<StatusResult, { status: 'failed' }> & { reason: DarajaReason; providerCode: string });

/** Daraja's error body while the buyer has not answered the prompt yet. */
const STILL_PROCESSING = '500.001.1001';
/** Daraja's error code for a request it could not read, a CheckoutRequestID it does not know among them. */
const BAD_REQUEST = '400.002.02';

/** A ResultCode (a string in the query, a number in the callback) -> a final status. */
export function mapStkResultCode(code: string | number, description?: string): DarajaStatus {
  const key = String(code).trim();
  if (key === '0') {
    // The query names neither amount nor receipt: those come in the callback only.
    return { status: 'successful', amount: null, currency: null, providerTransactionId: null };
  }
  const known = STK_RESULT_CODES[key];
  const providerCode = key.slice(0, 60);
  if (known) return { status: 'failed', ...known, providerCode };
  const said = typeof description === 'string' && description ? `: ${description.slice(0, 120)}` : '';
  return {
    status: 'failed',
    failureKind: 'provider_error',
    reason: 'provider_error',
    message: `M-Pesa reported the payment failed (${providerCode}${said}).`,
    providerCode,
  };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * An STK push query's answer (HTTP status and body) -> a status; null when the answer says nothing
 * about the payment (refused token, wrong password, server trouble), which the caller reports as
 * a PaymentProviderError. "Being processed" is pending, never a failure: the buyer may still pay.
 */
export function mapStkQuery(httpStatus: number, body: unknown): DarajaStatus | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const errorCode = text(b.errorCode);
  if (errorCode === STILL_PROCESSING && /being processed/i.test(text(b.errorMessage))) {
    return { status: 'pending' };
  }
  if (errorCode === BAD_REQUEST && /CheckoutRequestID/i.test(text(b.errorMessage))) {
    return { status: 'not_found' };
  }
  if (httpStatus !== 200 || errorCode) return null;
  const resultCode = b.ResultCode;
  if (typeof resultCode === 'number' || (typeof resultCode === 'string' && /^\d+$/.test(resultCode.trim()))) {
    return mapStkResultCode(resultCode, text(b.ResultDesc));
  }
  return null;
}
