// M-Pesa on the server: the Daraja client (daraja.ts) behind the payment port, live or against the
// simulator. Daraja names a payment by its own CheckoutRequestID, which the submission returns and
// the attempt keeps (payment_attempts.provider_reference) for the STK push query. A refund is a
// reversal of the payment's receipt (kept from its success callback), whose result Daraja POSTs
// later to our route: that result, recorded with the refund, is the only answer (no query exists).
import type { PaymentProvider, RefundStatusResult } from '../../provider.ts';
import type { AdapterOptions } from '../../provider-http.ts';
import type { CallbackHint, PaymentMethodDefinition } from '../registry.ts';
import { currencyExponent } from '../../../platform/index.ts';
import { parseReversalResult, parseStkCallback, readStkCallbackReceipt } from './daraja-callbacks.ts';
import { createDarajaClient } from './daraja.ts';
import type { DarajaConfig } from './daraja-config.ts';
import { mpesaMethod } from './mpesa-method.ts';

/** No receipt: the success callback never came (or did not match), so there is nothing to name. */
export const MPESA_NO_RECEIPT =
  "M-Pesa's receipt of this payment never reached the service (its success callback did not come), so it cannot be reversed from here: reverse it in the M-Pesa org portal, then record the refund there";
/** Live without MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL: Daraja's reversal cannot be sent. */
export const MPESA_NO_INITIATOR =
  'M-Pesa reversals are not set up on this service (MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL): reverse the payment in the M-Pesa org portal';
/** The result came to QueueTimeOutURL: Daraja dropped the request from its queue unprocessed. */
const QUEUE_TIMEOUT =
  'M-Pesa timed the reversal out in its queue, so nothing was reversed: ask for the refund again, or reverse the payment in the M-Pesa org portal';

/** The ids a reversal's submission answered with, as the refund keeps them (refunds.provider_ids). */
const idsOf = (conversationId: string, originatorConversationId: string) => ({
  conversation_id: conversationId,
  originator_conversation_id: originatorConversationId,
});

/**
 * A refund's status from the result its callback recorded: pending until one whose ids are the
 * submission's came. Without ids (the answer to the reversal was lost) it stays pending: sending
 * it again would be refused as already reversed, failing a refund whose money may have moved.
 */
export function reversalStatus(
  providerIds: Readonly<Record<string, string>> | null | undefined,
  recorded: unknown,
): RefundStatusResult {
  if (!providerIds || !recorded || typeof recorded !== 'object') return { status: 'pending' };
  const { via, body } = recorded as { via?: unknown; body?: unknown };
  const result = parseReversalResult(body);
  if (!result) return { status: 'pending' };
  const ids = idsOf(result.conversationId, result.originatorConversationId);
  if (
    ids.conversation_id !== providerIds.conversation_id ||
    ids.originator_conversation_id !== providerIds.originator_conversation_id
  ) {
    return { status: 'pending' };
  }
  if (via === 'timeout') return { status: 'failed', message: QUEUE_TIMEOUT, providerCode: result.resultCode };
  if (result.outcome === 'succeeded') return { status: 'succeeded', providerReference: result.transactionId };
  return {
    status: 'failed',
    message: `M-Pesa did not reverse the payment: ${result.message} (${result.resultCode})`,
    providerCode: result.resultCode,
  };
}

/** The port over a Daraja client: our reference for logs, Daraja's CheckoutRequestID for queries. */
export function createMpesaProvider(config: DarajaConfig, options: AdapterOptions = {}): PaymentProvider {
  const daraja = createDarajaClient(config, options);
  return {
    method: mpesaMethod.key,
    async requestPayment(req) {
      const pushed = await daraja.stkPush({
        ...req,
        // What the buyer's phone shows against the paybill: Daraja keeps 12 characters.
        accountReference: req.description,
      });
      if (pushed.kind === 'submitted')
        return { kind: 'submitted', providerReference: pushed.checkoutRequestId };
      return pushed;
    },
    async getStatus(_reference, providerReference) {
      // Without Daraja's id (its answer to the push was lost) there is nothing to ask about.
      if (!providerReference) return { status: 'not_found' };
      const status = await daraja.queryStkPush(providerReference);
      if (status.status !== 'failed') return status;
      const { reason: _reason, ...failed } = status;
      return failed;
    },
    refundRefused(payment) {
      if (!config.reversal) return MPESA_NO_INITIATOR;
      return payment.providerTransactionId ? null : MPESA_NO_RECEIPT;
    },
    async requestRefund(req) {
      if (!config.reversal) return { kind: 'rejected', message: MPESA_NO_INITIATOR };
      if (!req.providerTransactionId) return { kind: 'rejected', message: MPESA_NO_RECEIPT };
      if (!req.callbackUrl) throw new TypeError('an M-Pesa reversal needs our result route (callbackUrl)');
      const sent = await daraja.requestReversal({
        reference: req.reference,
        transactionId: req.providerTransactionId,
        amount: req.amount,
        paymentAmount: req.paymentAmount,
        resultUrl: `${req.callbackUrl}/result`,
        queueTimeoutUrl: `${req.callbackUrl}/timeout`,
        remarks: req.description,
      });
      if (sent.kind !== 'submitted') return sent;
      return { kind: 'submitted', providerIds: idsOf(sent.conversationId, sent.originatorConversationId) };
    },
    getRefundStatus: async (req) => reversalStatus(req.providerIds, req.providerResult),
  };
}

/**
 * Daraja POSTs {Body: {stkCallback: {CheckoutRequestID, ResultCode, CallbackMetadata}}}: our
 * reference is in its path only. It names the payment's CheckoutRequestID and, on success, the
 * receipt with its amount in shillings.
 */
function parseMpesaCallback(body: unknown): CallbackHint {
  const named = parseStkCallback(body);
  if (!named) return {};
  const paid = readStkCallbackReceipt(body);
  if (!paid) return { providerReference: named.checkoutRequestId };
  const { checkoutRequestId, receipt, amount, phone } = paid;
  const receiptOf = {
    id: receipt,
    providerReference: checkoutRequestId,
    amount: amount === null ? null : amount * 10 ** currencyExponent('KES'),
    msisdn: phone,
  };
  return { providerReference: checkoutRequestId, receipt: receiptOf };
}

export const mpesaProvider: PaymentMethodDefinition<'mpesa'> = {
  ...mpesaMethod,
  createLiveProvider: ({ config, timeoutMs, options }) =>
    config.payments.mpesa ? createMpesaProvider({ ...config.payments.mpesa, timeoutMs }, options) : null,
  createSimulatedProvider: ({ timeoutMs, options }, simulator) =>
    createMpesaProvider({ ...simulator.daraja, timeoutMs }, options),
  maxAmount: (config) => config.payments.maxAmount.mpesa,
  parseCallback: parseMpesaCallback,
  supportsRefunds: true,
  // Daraja reverses whole transactions only (MPESA_SUPPORTS_PARTIAL_REFUNDS).
  supportsPartialRefunds: false,
  testNumber: (code) => `07110000${code}`,
};
