// A client for Safaricom's Daraja API (M-Pesa, Kenya, KES): OAuth client-credentials token, M-Pesa
// Express (STK push) and its query, reversals, and B2C payments (daraja-b2c.ts). Unlike MTN and Airtel, Daraja assigns the id of
// a payment itself (CheckoutRequestID), so stkPush returns it and the query needs it; the query,
// not the callback, decides a payment (docs/decisions/mpesa-daraja.md).
import { systemClock } from '../../../platform/index.ts';
import {
  cleanDescription,
  isPaymentReference,
  PaymentProviderError,
  type ProviderFailureKind,
  providerError,
} from '../../provider.ts';
import {
  authorizedSender,
  createTokenCache,
  query,
  queryFailure,
  readIssuedToken,
  sendRequest,
  silentLog,
  submit,
  type AdapterOptions,
  type HttpAnswer,
} from '../../provider-http.ts';
import { sendB2cPayment, type B2cPaymentRequest } from './daraja-b2c.ts';
import { darajaTimestamp, stkPassword, type DarajaConfig } from './daraja-config.ts';
import { mapStkQuery, type DarajaStatus } from './daraja-status.ts';
import {
  amountProblem,
  CENTS,
  DARAJA_ID,
  describeDaraja,
  isHttpUrl,
  METHOD,
  NAME,
  readConversationAnswer,
  REMARKS_MAX,
  type ConversationSubmitResult,
} from './daraja-wire.ts';
import { isSafaricomNumber, normalizeKenyanMsisdn } from './kenyan-numbers.ts';

/** Daraja's limits: AccountReference at most 12 characters, TransactionDesc at most 13. */
const ACCOUNT_REFERENCE_MAX = 12;
const TRANSACTION_DESC_MAX = 13;

/**
 * Daraja's Reversal API names the M-Pesa receipt and returns the whole transaction, never a part:
 * a part goes back by B2C (requestB2cPayment).
 */
export const REVERSAL_WHOLE_ONLY =
  'A Daraja reversal returns only a whole payment: a part goes back by B2C payment';

export interface StkPushRequest {
  /** our UUID v4 of the attempt; Daraja never sees it (it assigns its own id), logs do */
  reference: string;
  /** minor units of KES, a whole number of shillings (at least 1) */
  amount: number;
  currency: string;
  /** the payer's number in any format normalizeKenyanMsisdn reads; must be Safaricom's */
  msisdn: string;
  /** CallBackURL: where Daraja POSTs the STK callback (a hint) */
  callbackUrl: string;
  /** AccountReference shown to the buyer, cut to 12 characters (an order code) */
  accountReference: string;
  /** TransactionDesc, cut to 13 characters */
  description: string;
}

export type StkPushResult =
  /** the prompt is out: keep checkoutRequestId with the attempt and query it */
  | { kind: 'submitted'; checkoutRequestId: string; merchantRequestId: string }
  /** refused at once, nothing created */
  | { kind: 'rejected'; failureKind: ProviderFailureKind; message: string; providerCode?: string }
  /** no answer: a prompt may be out, but without its CheckoutRequestID only its callback can name it */
  | { kind: 'unknown'; message: string };

export interface ReversalRequest {
  /** our UUID v4 of the refund, for logs */
  reference: string;
  /** the M-Pesa receipt of the payment (MpesaReceiptNumber) */
  transactionId: string;
  /** minor units of KES: what goes back, which must be the whole payment */
  amount: number;
  /** minor units of KES: the payment's amount (a part is refused: REVERSAL_WHOLE_ONLY) */
  paymentAmount: number;
  /** where Daraja POSTs the result, and where it says the request timed out in its queue */
  resultUrl: string;
  queueTimeoutUrl: string;
  remarks: string;
  occasion?: string;
}

export type ReversalSubmitResult = ConversationSubmitResult;

export interface DarajaClient {
  stkPush(req: StkPushRequest): Promise<StkPushResult>;
  /** rejects with PaymentProviderError when Daraja could not be asked or said nothing of the payment */
  queryStkPush(checkoutRequestId: string): Promise<DarajaStatus>;
  requestReversal(req: ReversalRequest): Promise<ReversalSubmitResult>;
  /** pays `amount` to the payer's number (a part of a payment going back); its result comes as a reversal's */
  requestB2cPayment(req: B2cPaymentRequest): Promise<ConversationSubmitResult>;
}

export function createDarajaClient(config: DarajaConfig, options: AdapterOptions = {}): DarajaClient {
  const log = options.log ?? silentLog;
  const clock = options.clock ?? systemClock;
  const timeoutMs = config.timeoutMs ?? 15_000;
  const base = config.baseUrl.replace(/\/+$/, '');

  const tokens = createTokenCache({
    clock,
    fetchToken: async () => {
      const basic = Buffer.from(`${config.consumerKey}:${config.consumerSecret}`).toString('base64');
      const outcome = await sendRequest(
        `${base}/oauth/v1/generate?grant_type=client_credentials`,
        { method: 'GET', headers: { Authorization: `Basic ${basic}` } },
        timeoutMs,
      );
      return readIssuedToken(METHOD, NAME, outcome, log);
    },
  });
  const authorized = authorizedSender(tokens, timeoutMs, (token) => ({ Authorization: `Bearer ${token}` }));
  const postJson = (path: string, body: object) =>
    authorized(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Shortcode, Password and Timestamp, fresh for each call. */
  function credentials() {
    const timestamp = darajaTimestamp(clock.now());
    return {
      BusinessShortCode: config.shortcode,
      Password: stkPassword(config.shortcode, config.passkey, timestamp),
      Timestamp: timestamp,
    };
  }

  async function stkPush(req: StkPushRequest): Promise<StkPushResult> {
    if (!isPaymentReference(req.reference)) {
      throw new TypeError(`payment reference must be a UUID v4, got "${String(req.reference).slice(0, 64)}"`);
    }
    const problem = amountProblem(req.amount, req.currency);
    if (problem) return providerError(problem);
    const msisdn = normalizeKenyanMsisdn(req.msisdn);
    if (msisdn === null || !isSafaricomNumber(msisdn)) {
      return {
        kind: 'rejected',
        failureKind: 'invalid_phone_number',
        message: 'M-Pesa takes a Safaricom number only',
      };
    }
    if (!isHttpUrl(req.callbackUrl)) {
      return providerError('M-Pesa needs an http(s) CallBackURL');
    }
    const sent = await submit(
      () =>
        postJson('/mpesa/stkpush/v1/processrequest', {
          ...credentials(),
          TransactionType: config.transactionType,
          Amount: req.amount / CENTS,
          PartyA: msisdn,
          PartyB: config.partyB ?? config.shortcode,
          PhoneNumber: msisdn,
          CallBackURL: req.callbackUrl,
          AccountReference: cleanDescription(req.accountReference, ACCOUNT_REFERENCE_MAX),
          TransactionDesc: cleanDescription(req.description, TRANSACTION_DESC_MAX),
        }),
      { method: METHOD, name: NAME, action: 'STK push', reference: req.reference, log },
    );
    if ('notSent' in sent) return providerError(sent.notSent);
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    return readPushAnswer(req.reference, sent.answer);
  }

  function readPushAnswer(reference: string, { status, body }: HttpAnswer): StkPushResult {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const errorCode = typeof b.errorCode === 'string' ? b.errorCode.slice(0, 60) : undefined;
    if (status === 200 && !errorCode) {
      const { CheckoutRequestID: checkout, MerchantRequestID: merchant, ResponseCode: code } = b;
      if (String(code) === '0' && typeof checkout === 'string' && DARAJA_ID.test(checkout)) {
        return {
          kind: 'submitted',
          checkoutRequestId: checkout,
          merchantRequestId: typeof merchant === 'string' ? merchant : '',
        };
      }
      if (code !== undefined && String(code) !== '0') {
        log.warn({ provider: METHOD, reference, code: String(code).slice(0, 20) }, 'STK push refused');
        return {
          ...providerError(`${NAME} refused the STK push${describeDaraja(body)}`),
          providerCode: String(code).slice(0, 60),
        };
      }
      // Accepted without an id we could query: as good as a lost answer.
      return { kind: 'unknown', message: `${NAME} accepted the STK push without a CheckoutRequestID` };
    }
    log.warn({ provider: METHOD, reference, status, code: errorCode }, 'STK push refused');
    if (status === 401) {
      log.error({ provider: METHOD, status }, 'M-Pesa refused our token twice');
      return providerError(
        `${NAME} refused our credentials (401)${describeDaraja(body)}; check the consumer key`,
      );
    }
    if (status >= 400 && status < 500) {
      const phone = /phone|partya/i.test(typeof b.errorMessage === 'string' ? b.errorMessage : '');
      return {
        kind: 'rejected',
        failureKind: phone ? 'invalid_phone_number' : 'provider_error',
        message: `${NAME} refused the STK push (${status})${describeDaraja(body)}`,
        ...(errorCode ? { providerCode: errorCode } : {}),
      };
    }
    if (status >= 500) {
      return {
        ...providerError(
          `${NAME} refused or could not take the STK push (${status})${describeDaraja(body)}; nothing was created`,
        ),
        ...(errorCode ? { providerCode: errorCode } : {}),
      };
    }
    return { kind: 'unknown', message: `${NAME} answered the STK push with ${status}` };
  }

  async function queryStkPush(checkoutRequestId: string): Promise<DarajaStatus> {
    if (!DARAJA_ID.test(checkoutRequestId)) {
      throw new TypeError(`not a CheckoutRequestID: "${String(checkoutRequestId).slice(0, 64)}"`);
    }
    const label = `${NAME} STK push query`;
    const answer = await query(
      () =>
        postJson('/mpesa/stkpushquery/v1/query', { ...credentials(), CheckoutRequestID: checkoutRequestId }),
      METHOD,
      label,
    );
    const result = mapStkQuery(answer.status, answer.body);
    if (result) return result;
    const failure = queryFailure(METHOD, label, answer);
    throw new PaymentProviderError(
      METHOD,
      failure.kind,
      `${failure.message}${describeDaraja(answer.body)}`,
      answer.status,
    );
  }

  async function requestReversal(req: ReversalRequest): Promise<ReversalSubmitResult> {
    if (!isPaymentReference(req.reference)) throw new TypeError('refund reference must be a UUID v4');
    if (!config.reversal) {
      return {
        kind: 'rejected',
        message: `${NAME} reversals need the initiator name and security credential`,
      };
    }
    const problem = amountProblem(req.amount, 'KES');
    if (problem) return { kind: 'rejected', message: problem };
    if (req.amount !== req.paymentAmount) return { kind: 'rejected', message: REVERSAL_WHOLE_ONLY };
    if (!DARAJA_ID.test(req.transactionId)) return { kind: 'rejected', message: 'not an M-Pesa receipt' };
    if (!isHttpUrl(req.resultUrl) || !isHttpUrl(req.queueTimeoutUrl)) {
      return { kind: 'rejected', message: `${NAME} reversals need http(s) ResultURL and QueueTimeOutURL` };
    }
    const sent = await submit(
      () =>
        postJson('/mpesa/reversal/v1/request', {
          Initiator: config.reversal!.initiator,
          SecurityCredential: config.reversal!.securityCredential,
          CommandID: 'TransactionReversal',
          TransactionID: req.transactionId,
          Amount: req.amount / CENTS,
          ReceiverParty: config.shortcode,
          // Daraja's own spelling; 11 = an organisation's shortcode.
          RecieverIdentifierType: '11',
          ResultURL: req.resultUrl,
          QueueTimeOutURL: req.queueTimeoutUrl,
          Remarks: cleanDescription(req.remarks, REMARKS_MAX),
          Occasion: cleanDescription(req.occasion ?? req.remarks, REMARKS_MAX),
        }),
      { method: METHOD, name: NAME, action: 'reversal', reference: req.reference, log },
    );
    return readConversationAnswer(sent, { action: 'reversal', reference: req.reference, log });
  }

  return {
    stkPush,
    queryStkPush,
    requestReversal,
    requestB2cPayment: (req) => sendB2cPayment(config, postJson, log, req),
  };
}
