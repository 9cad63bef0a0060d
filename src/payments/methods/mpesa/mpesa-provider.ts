// M-Pesa on the server: the Daraja client (daraja.ts) behind the payment port, live or against the
// simulator. Daraja names a payment by its own CheckoutRequestID, which the submission returns and
// the attempt keeps (payment_attempts.provider_reference) for the STK push query. A whole refund is
// a reversal of the payment's receipt (kept from its success callback); a part is a B2C payment to
// the payer's number. Daraja POSTs the result of either later to our route: that result, recorded
// with the refund, is the only answer (no query exists).
import type { PaymentProvider, RefundRequest, RefundStatusResult } from '../../provider.ts';
import type { AdapterOptions } from '../../provider-http.ts';
import type { CallbackHint, PaymentMethodDefinition } from '../registry.ts';
import { currencyExponent } from '../../../platform/index.ts';
import { parseReversalResult, parseStkCallback, readStkCallbackReceipt } from './daraja-callbacks.ts';
import { B2C_MIN_SHILLINGS } from './daraja-b2c.ts';
import { createDarajaClient } from './daraja.ts';
import type { DarajaConfig } from './daraja-config.ts';
import { mpesaMethod } from './mpesa-method.ts';
import { mpesaSettings } from './mpesa-settings.ts';
import { mpesaSimulator } from './mpesa-simulator.ts';

/** No receipt: the success callback never came (or did not match), so there is nothing to name. */
export const MPESA_NO_RECEIPT =
  "M-Pesa's receipt of this payment never reached the service (its success callback did not come), so it cannot be reversed from here: reverse it in the M-Pesa org portal, then record the refund there";
/** Live without MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL: Daraja's reversal cannot be sent. */
export const MPESA_NO_INITIATOR =
  'M-Pesa reversals are not set up on this service (MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL): reverse the payment in the M-Pesa org portal';
/** The same for a part, which would go back by B2C payment: the organizer pays it by hand instead. */
export const MPESA_NO_INITIATOR_PART =
  "M-Pesa refunds are not set up on this service (MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL), so a part cannot be paid back from here: send it to the buyer's number from the M-Pesa org portal";
/** The result came to QueueTimeOutURL: Daraja dropped the request from its queue unprocessed. */
const QUEUE_TIMEOUT = {
  whole:
    'M-Pesa timed the reversal out in its queue, so nothing was reversed: ask for the refund again, or reverse the payment in the M-Pesa org portal',
  part: "M-Pesa timed the B2C payment out in its queue, so nothing was paid back: ask for the refund again, or send the part to the buyer's number from the M-Pesa org portal",
};
/** B2C result codes the organizer can act on, with what to do (Daraja's ResultDesc says the rest). */
const B2C_ADVICE: Readonly<Record<string, string>> = {
  '1': "the service's M-Pesa payout account is short of funds: its operator tops it up, then ask again",
  '2001':
    "the service's M-Pesa initiator was refused: its operator checks MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL",
  '2040': "the buyer's number cannot receive M-Pesa payments: refund the buyer another way",
};

/** A part M-Pesa cannot pay back by B2C (below its least payout), said to the organizer; else null. */
function b2cAmountProblem(amount: number): string | null {
  if (amount >= B2C_MIN_SHILLINGS * 10 ** currencyExponent('KES')) return null;
  return `M-Pesa pays a part back by B2C payment, and at least KES ${B2C_MIN_SHILLINGS}: refund at least KES ${B2C_MIN_SHILLINGS}, or the whole payment`;
}

/** A part of the payment goes back by B2C payment; the whole by reversal. */
const isPart = (req: Pick<RefundRequest, 'amount' | 'paymentAmount'>) => req.amount !== req.paymentAmount;

/** The ids a reversal's or B2C payment's submission answered with (refunds.provider_ids). */
const idsOf = (conversationId: string, originatorConversationId: string) => ({
  conversation_id: conversationId,
  originator_conversation_id: originatorConversationId,
});

/**
 * A refund's status from the result its callback recorded (a reversal's, or for a `part` a B2C
 * payment's): pending until one whose ids are the submission's came. Without ids (the answer was
 * lost) it stays pending: a reversal sent again would be refused as already reversed, and a B2C
 * payment sent again could pay the part twice, while the money of the first may have moved.
 */
export function refundResultStatus(
  providerIds: Readonly<Record<string, string>> | null | undefined,
  recorded: unknown,
  part = false,
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
  const providerCode = result.resultCode;
  if (via === 'timeout')
    return { status: 'failed', message: QUEUE_TIMEOUT[part ? 'part' : 'whole'], providerCode };
  if (result.outcome === 'succeeded') return { status: 'succeeded', providerReference: result.transactionId };
  const said = `${result.message} (${providerCode})`;
  if (!part)
    return { status: 'failed', message: `M-Pesa did not reverse the payment: ${said}`, providerCode };
  const advice = B2C_ADVICE[providerCode];
  const message = `M-Pesa did not pay the part back: ${said}${advice ? `; ${advice}` : ''}`;
  return { status: 'failed', message, providerCode };
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
    // Checked before refundRefused for a part, so that it is told what to do with a part.
    ...(config.reversal ? {} : { partialRefundsRefused: MPESA_NO_INITIATOR_PART }),
    refundRefused(payment, refundAmount) {
      if (!config.reversal) return MPESA_NO_INITIATOR;
      // A part goes by B2C payment to the payer's number: no receipt needed, but a least amount.
      if (refundAmount !== payment.amount) return b2cAmountProblem(refundAmount);
      return payment.providerTransactionId ? null : MPESA_NO_RECEIPT;
    },
    async requestRefund(req) {
      const part = isPart(req);
      if (!config.reversal)
        return { kind: 'rejected', message: part ? MPESA_NO_INITIATOR_PART : MPESA_NO_INITIATOR };
      if (!req.callbackUrl) throw new TypeError('an M-Pesa refund needs our result route (callbackUrl)');
      const urls = { resultUrl: `${req.callbackUrl}/result`, queueTimeoutUrl: `${req.callbackUrl}/timeout` };
      // A reversal names the payment's receipt; a B2C payment only the payer's number.
      if (!part && !req.providerTransactionId) return { kind: 'rejected', message: MPESA_NO_RECEIPT };
      const common = { reference: req.reference, amount: req.amount, ...urls, remarks: req.description };
      const sent = part
        ? await daraja.requestB2cPayment({ ...common, msisdn: req.msisdn })
        : await daraja.requestReversal({
            ...common,
            transactionId: req.providerTransactionId!,
            paymentAmount: req.paymentAmount,
          });
      if (sent.kind !== 'submitted') return sent;
      return { kind: 'submitted', providerIds: idsOf(sent.conversationId, sent.originatorConversationId) };
    },
    getRefundStatus: async (req) => refundResultStatus(req.providerIds, req.providerResult, isPart(req)),
  };
}

/**
 * A reversal's or B2C payment's result, POSTed by Daraja to ResultURL (kind `result`) or, when its
 * queue dropped the request unprocessed, QueueTimeOutURL (`timeout`). Kept in Daraja's shape, cut
 * to what refundResultStatus reads.
 */
function readDarajaRefundResult(kind: string, body: unknown) {
  const result = kind === 'result' || kind === 'timeout' ? parseReversalResult(body) : null;
  if (!result) return null;
  const Result = {
    ResultCode: result.resultCode,
    ResultDesc: result.message,
    OriginatorConversationID: result.originatorConversationId,
    ConversationID: result.conversationId,
    ...(result.transactionId ? { TransactionID: result.transactionId } : {}),
  };
  return {
    ids: idsOf(result.conversationId, result.originatorConversationId),
    recorded: { via: kind, body: { Result } },
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

export const mpesaProvider: PaymentMethodDefinition<'mpesa', typeof mpesaSimulator> = {
  ...mpesaMethod,
  settings: mpesaSettings,
  createLiveProvider: ({ config, timeoutMs, options }) => {
    const live = config.payments.methods.mpesa.live;
    return live ? createMpesaProvider({ ...live, timeoutMs }, options) : null;
  },
  createSimulatedProvider: ({ timeoutMs, options }, url) =>
    createMpesaProvider({ ...mpesaSimulator.settings(url), timeoutMs }, options),
  simulator: mpesaSimulator,
  maxAmount: (config, currency) => config.payments.methods.mpesa.maxAmount[currency] ?? 0,
  parseCallback: parseMpesaCallback,
  readRefundResult: readDarajaRefundResult,
  supportsRefunds: true,
  // A reversal returns the whole payment; a part goes back by B2C payment to the payer's number
  // (live, that needs the initiator pair, else the adapter's partialRefundsRefused is the 422).
  supportsPartialRefunds: true,
  testNumber: (code) => `07110000${code}`,
};
