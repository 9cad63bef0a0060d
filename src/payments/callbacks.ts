// Reading providers' callbacks. A callback is unauthenticated input and never proof of payment:
// these helpers only pull out which payment it is about, so the caller can ask getStatus. Our
// reference is also in the callback URL path (/v1/payment-callbacks/{method}/{reference}).
import { isPaymentReference } from './provider.ts';

export interface CallbackHint {
  /** our payment reference, when the body names one that looks like ours (a UUID v4) */
  reference?: string;
}

function asObject(body: unknown): Record<string, unknown> | null {
  if (typeof body === 'string') {
    try {
      return asObject(JSON.parse(body));
    } catch {
      return null;
    }
  }
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}

/**
 * MTN PUTs the request-to-pay status body to our X-Callback-Url: {financialTransactionId,
 * externalId, amount, currency, payer, status, reason}. We send our reference as externalId.
 */
export function parseMtnCallback(body: unknown): CallbackHint {
  const object = asObject(body);
  const reference = object?.externalId ?? object?.referenceId;
  return isPaymentReference(reference) ? { reference } : {};
}

/** Airtel POSTs {transaction: {id, message, status_code, airtel_money_id}}; id is our reference. */
export function parseAirtelCallback(body: unknown): CallbackHint {
  const transaction = asObject(asObject(body)?.transaction);
  const reference = transaction?.id;
  return isPaymentReference(reference) ? { reference } : {};
}
