// Daraja's B2C payment (Business to Customer, POST /mpesa/b2c/v3/paymentrequest): how a part of an
// M-Pesa payment goes back to the payer, since a reversal returns only a whole payment. It pays the
// payer's number from the B2C shortcode's utility account; like a reversal it is answered with
// ConversationID and OriginatorConversationID, and its outcome is a Result POSTed to ResultURL
// (or QueueTimeOutURL), read as a reversal's is (parseReversalResult).
import { cleanDescription, isPaymentReference } from '../../provider.ts';
import { submit, type HttpOutcome, type ProviderLog } from '../../provider-http.ts';
import type { DarajaConfig } from './daraja-config.ts';
import {
  CENTS,
  isHttpUrl,
  METHOD,
  NAME,
  readConversationAnswer,
  REMARKS_MAX,
  type ConversationSubmitResult,
} from './daraja-wire.ts';
import { isSafaricomNumber, normalizeKenyanMsisdn } from './kenyan-numbers.ts';

/** Safaricom pays out no less than KES 10 by B2C. */
export const B2C_MIN_SHILLINGS = 10;

export interface B2cPaymentRequest {
  /** our UUID v4 of the refund, sent as OriginatorConversationID (unique per request) */
  reference: string;
  /** the payer's number in any format normalizeKenyanMsisdn reads; must be Safaricom's */
  msisdn: string;
  /** minor units of KES, a whole number of shillings, at least B2C_MIN_SHILLINGS */
  amount: number;
  /** where Daraja POSTs the result, and where it says the request timed out in its queue */
  resultUrl: string;
  queueTimeoutUrl: string;
  remarks: string;
  occasion?: string;
}

/** A B2C payment's problem found before sending anything, or null. */
function b2cProblem(config: DarajaConfig, req: B2cPaymentRequest): string | null {
  if (!config.reversal) return `${NAME} B2C payments need the initiator name and security credential`;
  if (!Number.isSafeInteger(req.amount) || req.amount % CENTS !== 0) {
    return 'M-Pesa takes whole shillings only';
  }
  if (req.amount < B2C_MIN_SHILLINGS * CENTS) {
    return `M-Pesa pays back at least KES ${B2C_MIN_SHILLINGS} by B2C`;
  }
  const msisdn = normalizeKenyanMsisdn(req.msisdn);
  if (msisdn === null || !isSafaricomNumber(msisdn)) {
    return "M-Pesa pays back to a Safaricom number only, and the payer's number is not one";
  }
  if (!isHttpUrl(req.resultUrl) || !isHttpUrl(req.queueTimeoutUrl)) {
    return `${NAME} B2C payments need http(s) ResultURL and QueueTimeOutURL`;
  }
  return null;
}

/** Sends a B2C BusinessPayment of `req.amount` to the payer's number through `postJson`. */
export async function sendB2cPayment(
  config: DarajaConfig,
  postJson: (path: string, body: object) => Promise<HttpOutcome>,
  log: ProviderLog,
  req: B2cPaymentRequest,
): Promise<ConversationSubmitResult> {
  if (!isPaymentReference(req.reference)) throw new TypeError('refund reference must be a UUID v4');
  const problem = b2cProblem(config, req);
  if (problem) return { kind: 'rejected', message: problem };
  const sent = await submit(
    () =>
      postJson('/mpesa/b2c/v3/paymentrequest', {
        OriginatorConversationID: req.reference,
        InitiatorName: config.reversal!.initiator,
        SecurityCredential: config.reversal!.securityCredential,
        CommandID: 'BusinessPayment',
        Amount: req.amount / CENTS,
        PartyA: config.b2cShortcode ?? config.shortcode,
        PartyB: normalizeKenyanMsisdn(req.msisdn)!,
        Remarks: cleanDescription(req.remarks, REMARKS_MAX),
        QueueTimeOutURL: req.queueTimeoutUrl,
        ResultURL: req.resultUrl,
        Occasion: cleanDescription(req.occasion ?? req.remarks, REMARKS_MAX),
      }),
    { method: METHOD, name: NAME, action: 'B2C payment', reference: req.reference, log },
  );
  return readConversationAnswer(sent, { action: 'B2C payment', reference: req.reference, log });
}
