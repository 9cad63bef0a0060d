// Daraja's asynchronous bodies: the STK callback (POSTed to CallBackURL) and the reversal result
// (POSTed to ResultURL). Both are unauthenticated input and never proof
// (docs/decisions/callbacks-are-hints.md): the STK callback only names the CheckoutRequestID to
// query, and the query decides (docs/decisions/mpesa-daraja.md).
import { callbackObject } from '../callback-body.ts';

/** Daraja's ids are short tokens such as ws_CO_301120262045123456; anything else is refused. */
const DARAJA_ID = /^[\w-]{1,64}$/;

const isResultCode = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isInteger(value)) ||
  (typeof value === 'string' && /^[\w.]{1,20}$/.test(value));

/** The stkCallback object of a well-formed STK callback, or null. */
function stkCallback(body: unknown): Record<string, unknown> | null {
  const callback = callbackObject(callbackObject(callbackObject(body)?.Body)?.stkCallback);
  if (!callback) return null;
  const { MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc, CallbackMetadata } = callback;
  if (typeof MerchantRequestID !== 'string' || !DARAJA_ID.test(MerchantRequestID)) return null;
  if (typeof CheckoutRequestID !== 'string' || !DARAJA_ID.test(CheckoutRequestID)) return null;
  if (!isResultCode(ResultCode) || typeof ResultDesc !== 'string') return null;
  if (CallbackMetadata !== undefined) {
    const items = callbackObject(CallbackMetadata)?.Item;
    if (!Array.isArray(items) || !items.every((item) => typeof callbackObject(item)?.Name === 'string')) {
      return null;
    }
  }
  return callback;
}

/**
 * The CheckoutRequestID an STK callback names, when the body has Daraja's shape; nothing else is
 * read from it, whatever its ResultCode says: the caller asks the STK push query.
 */
export function parseStkCallback(body: unknown): { checkoutRequestId: string } | null {
  const callback = stkCallback(body);
  return callback ? { checkoutRequestId: callback.CheckoutRequestID as string } : null;
}

/**
 * The receipt a success callback carries (MpesaReceiptNumber, which a reversal names; the query
 * does not give it), with its amount in shillings and the payer's number. Unauthenticated: read it
 * only for a payment the query has confirmed, and check amount and number against the attempt.
 */
export function readStkCallbackReceipt(
  body: unknown,
): { checkoutRequestId: string; receipt: string; amount: number | null; phone: string | null } | null {
  const callback = stkCallback(body);
  if (!callback || String(callback.ResultCode) !== '0') return null;
  const items = (callbackObject(callback.CallbackMetadata)?.Item ?? []) as Array<Record<string, unknown>>;
  const value = (name: string) => items.find((item) => item.Name === name)?.Value;
  const receipt = value('MpesaReceiptNumber');
  if (typeof receipt !== 'string' || !/^[A-Z0-9]{6,20}$/.test(receipt)) return null;
  const amount = value('Amount');
  const phone = value('PhoneNumber');
  return {
    checkoutRequestId: callback.CheckoutRequestID as string,
    receipt,
    amount: typeof amount === 'number' && Number.isFinite(amount) && amount > 0 ? amount : null,
    phone:
      (typeof phone === 'number' || typeof phone === 'string') && /^254\d{9}$/.test(String(phone))
        ? String(phone)
        : null,
  };
}

export interface ReversalResult {
  originatorConversationId: string;
  conversationId: string;
  /** the reversal's own M-Pesa transaction id, when Daraja gives one */
  transactionId: string | null;
  outcome: 'succeeded' | 'failed';
  resultCode: string;
  message: string;
}

/**
 * The reversal result POSTed to ResultURL: {Result: {ResultType, ResultCode, ResultDesc,
 * OriginatorConversationID, ConversationID, TransactionID, ...}}; null when it has not that shape.
 * ResultCode 0 is the only success.
 */
export function parseReversalResult(body: unknown): ReversalResult | null {
  const result = callbackObject(callbackObject(body)?.Result);
  if (!result) return null;
  const { ResultCode, ResultDesc, OriginatorConversationID, ConversationID, TransactionID } = result;
  if (!isResultCode(ResultCode) || typeof ResultDesc !== 'string') return null;
  if (typeof OriginatorConversationID !== 'string' || !DARAJA_ID.test(OriginatorConversationID)) return null;
  if (typeof ConversationID !== 'string' || !DARAJA_ID.test(ConversationID)) return null;
  const resultCode = String(ResultCode);
  return {
    originatorConversationId: OriginatorConversationID,
    conversationId: ConversationID,
    transactionId: typeof TransactionID === 'string' && DARAJA_ID.test(TransactionID) ? TransactionID : null,
    outcome: resultCode === '0' ? 'succeeded' : 'failed',
    resultCode,
    message: ResultDesc.slice(0, 200),
  };
}
