// MTN MoMo Collection answers -> the port's results. Pure functions, table-tested.
import {
  CURRENCY_EXPONENT,
  parseMajorAmount,
  type ProviderFailureKind,
  type RefundStatusResult,
  type StatusResult,
} from '../../provider.ts';

export interface Failure {
  failureKind: ProviderFailureKind;
  message: string;
}

/**
 * MTN's request-to-pay failure reasons. Payer-side refusals are payment_declined with a message
 * saying why (the simulator's outcomes 03, 06, 07, 08 in docs/partners/testing.md); the merchant's
 * own set-up and MTN's
 * trouble are provider_error, which the buyer may retry.
 */
export const MTN_REASONS: Readonly<Record<string, Failure>> = {
  APPROVAL_REJECTED: { failureKind: 'payment_declined', message: 'The payer declined the payment.' },
  PAYMENT_NOT_APPROVED: {
    failureKind: 'payment_declined',
    message: 'The payer did not approve the payment.',
  },
  TRANSACTION_CANCELED: { failureKind: 'payment_declined', message: 'The payment was cancelled.' },
  NOT_ALLOWED: {
    failureKind: 'payment_declined',
    message: 'MTN did not authorise the payment (for example, a wrong PIN).',
  },
  PAYER_LIMIT_REACHED: {
    failureKind: 'payment_declined',
    message: "The payment is over the payer's mobile money limit.",
  },
  PAYER_NOT_FOUND: {
    failureKind: 'payment_declined',
    message: 'The number is not registered for MTN Mobile Money.',
  },
  LOW_BALANCE_OR_PAYEE_LIMIT_REACHED_OR_NOT_ALLOWED: {
    failureKind: 'payment_declined',
    message: "The payer's balance is too low, or the payment is over a limit.",
  },
  EXPIRED: {
    failureKind: 'payment_timeout',
    message: 'The payer did not approve the payment before the prompt expired.',
  },
  NOT_ENOUGH_FUNDS: {
    failureKind: 'insufficient_funds',
    message: "The payer's mobile money balance is too low.",
  },
  INVALID_CURRENCY: {
    failureKind: 'provider_error',
    message: 'MTN does not accept this currency for the merchant.',
  },
  PAYEE_NOT_ALLOWED_TO_RECEIVE: {
    failureKind: 'provider_error',
    message: 'The merchant account cannot receive payments at the moment.',
  },
  PAYEE_NOT_FOUND: { failureKind: 'provider_error', message: 'MTN does not know the merchant account.' },
  NOT_ALLOWED_TARGET_ENVIRONMENT: {
    failureKind: 'provider_error',
    message: 'The merchant is not allowed in this MTN environment.',
  },
  INVALID_CALLBACK_URL_HOST: { failureKind: 'provider_error', message: 'MTN refused our callback address.' },
  INTERNAL_PROCESSING_ERROR: { failureKind: 'provider_error', message: 'MTN could not process the payment.' },
  SERVICE_UNAVAILABLE: { failureKind: 'provider_error', message: 'MTN Mobile Money is unavailable.' },
  COULD_NOT_PERFORM_TRANSACTION: {
    failureKind: 'provider_error',
    message: 'MTN could not perform the transaction.',
  },
};

/** The reason's code, whether MTN sent a string or {code, message}. */
function mtnReasonCode(reason: unknown): string | undefined {
  if (typeof reason === 'string' && reason) return reason;
  if (reason && typeof reason === 'object') {
    const code = (reason as Record<string, unknown>).code;
    if (typeof code === 'string' && code) return code;
  }
  return undefined;
}

/** A failure reason -> failure kind and message; unknown or missing reasons are provider_error. */
export function mapMtnReason(reason: unknown): Failure & { providerCode?: string } {
  const code = mtnReasonCode(reason);
  const known = code === undefined ? undefined : MTN_REASONS[code];
  if (known) return { ...known, providerCode: code };
  return {
    failureKind: 'provider_error',
    message: code
      ? `MTN reported the payment failed (${code.slice(0, 60)}).`
      : 'MTN reported the payment failed.',
    ...(code ? { providerCode: code.slice(0, 60) } : {}),
  };
}

interface MtnStatusBody {
  status?: unknown;
  reason?: unknown;
  amount?: unknown;
  currency?: unknown;
  financialTransactionId?: unknown;
  externalId?: unknown;
}

/**
 * GET /collection/v1_0/requesttopay/{referenceId} 200 body -> StatusResult. PENDING and any
 * status MTN may add later stay pending (asking again is safe; failing early could double-charge).
 * Null when the body names no status at all.
 */
export function mapMtnStatus(body: unknown): StatusResult | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as MtnStatusBody;
  if (typeof b.status !== 'string' || b.status === '') return null;
  switch (b.status.toUpperCase()) {
    case 'SUCCESSFUL': {
      const currency = typeof b.currency === 'string' && b.currency ? b.currency : null;
      const exponent = currency === null ? undefined : CURRENCY_EXPONENT[currency];
      return {
        status: 'successful',
        amount: exponent === undefined ? null : parseMajorAmount(b.amount, exponent),
        currency,
        providerTransactionId:
          typeof b.financialTransactionId === 'string' && b.financialTransactionId
            ? b.financialTransactionId
            : null,
      };
    }
    case 'FAILED':
      return { status: 'failed', ...mapMtnReason(b.reason) };
    // Older MTN environments name the failure in the status itself.
    case 'REJECTED':
      return { status: 'failed', ...mapMtnReason(b.reason ?? 'APPROVAL_REJECTED') };
    case 'TIMEOUT':
      return { status: 'failed', ...mapMtnReason(b.reason ?? 'EXPIRED') };
    default:
      return { status: 'pending' };
  }
}

/**
 * GET /disbursement/v1_0/refund/{referenceId} 200 body -> RefundStatusResult. As for payments, a
 * status MTN may add later stays pending; null when the body names no status.
 */
export function mapMtnRefundStatus(body: unknown): RefundStatusResult | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as MtnStatusBody;
  if (typeof b.status !== 'string' || b.status === '') return null;
  switch (b.status.toUpperCase()) {
    case 'SUCCESSFUL':
      return {
        status: 'succeeded',
        providerReference:
          typeof b.financialTransactionId === 'string' && b.financialTransactionId
            ? b.financialTransactionId
            : null,
      };
    case 'FAILED':
    case 'REJECTED':
    case 'TIMEOUT': {
      const code = mtnReasonCode(b.reason);
      return {
        status: 'failed',
        message: code
          ? `MTN reported the refund failed (${code.slice(0, 60)}).`
          : 'MTN reported the refund failed.',
        ...(code ? { providerCode: code.slice(0, 60) } : {}),
      };
    }
    default:
      return { status: 'pending' };
  }
}
