// The simulator's Daraja (Safaricom M-Pesa), served under /mpesa: a client-credentials token
// (GET, Basic consumer key and secret), M-Pesa Express (STK push) and its query, each checked for
// the bearer token, the shortcode and the Password (base64 of shortcode + passkey + timestamp) and
// the fields' shapes and lengths as Daraja checks them; the STK callback POSTed to CallBackURL;
// reversals and B2C payments (sim-mpesa-b2c.ts), whose results are POSTed to ResultURL. Test
// numbers 07110000NN choose outcomes as on the other networks (simulator/scenarios.ts), each
// declining scenario in Daraja's words (DARAJA_DECLINES). Daraja assigns the ids
// (CheckoutRequestID, ConversationID).
import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MPESA_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { createMpesaB2c, type MpesaB2cPayment } from './sim-mpesa-b2c.ts';
import {
  refundScenarioFor,
  scenarioFor,
  type RefundScenario,
  type Scenario,
} from '../../simulator/sim-scenarios.ts';
import {
  header,
  HttpError,
  isHttpUrl,
  readJson,
  sendJson,
  sendToReceiver,
  type SimCall,
} from '../../simulator/sim-http.ts';
import { countQuery, later, scaled, type SimulatorState } from '../../simulator/sim-state.ts';

/**
 * Daraja's STK ResultCode and ResultDesc for each declining scenario (M-Pesa documents no code for
 * 07 and 08: see each).
 */
const DARAJA_DECLINES: Readonly<Record<string, { resultCode: number; resultDesc: string }>> = {
  '03': { resultCode: 1032, resultDesc: 'Request cancelled by user' },
  '04': { resultCode: 1037, resultDesc: 'DS timeout user cannot be reached' },
  '05': { resultCode: 1, resultDesc: 'The balance is insufficient for the transaction' },
  '06': { resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  // M-Pesa refuses the debit at authorisation, as for a wrong PIN.
  '07': { resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  // A number without M-Pesa never shows the prompt: Daraja says it could not reach it.
  '08': { resultCode: 1037, resultDesc: 'DS timeout user cannot be reached' },
};

const declineOf = (scenario: Scenario) =>
  scenario.declined ? (DARAJA_DECLINES[scenario.code] ?? null) : null;

interface MpesaPayment {
  checkoutRequestId: string;
  merchantRequestId: string;
  scenario: Scenario;
  msisdn: string;
  /** whole shillings */
  amount: number;
  accountReference: string;
  description: string;
  callbackUrl: string;
  state: 'pending' | 'successful' | 'failed';
  /** the M-Pesa receipt (MpesaReceiptNumber), given when successful */
  receipt: string;
}

interface MpesaReversal {
  conversationId: string;
  originatorConversationId: string;
  /** the reversed payment's receipt */
  transactionId: string;
  amount: number;
  scenario: RefundScenario | null;
  state: 'pending' | 'successful' | 'failed';
  resultCode: string | null;
}

interface MpesaDelivery {
  kind: 'stk' | 'reversal' | 'b2c';
  url: string;
  /** HTTP status, or null when the delivery failed outright */
  status: number | null;
  body: unknown;
}

/** What tests see of the simulator's Daraja. */
export interface MpesaSimulator {
  tokenRequests(): number;
  /** STK pushes that passed authentication and validation, oldest first */
  payments(): MpesaPayment[];
  reversals(): MpesaReversal[];
  /** B2C payments taken (a part of a payment going back), oldest first */
  b2cPayments(): MpesaB2cPayment[];
  /** STK callbacks and the results of reversals and B2C payments sent, in order */
  deliveries(): MpesaDelivery[];
  /** the payer approves a pending payment now, whatever its number chose, with no callback */
  approve(checkoutRequestId: string): boolean;
}

const HOLD_LOST_RESPONSE_MS = 30_000;
const DUPLICATE_CALLBACK_AFTER_MS = 1_000;
const TIMESTAMP = /^\d{14}$/;
const KENYAN_MSISDN = /^254[71]\d{8}$/;

const requestId = () => `${randomInt(1000, 9999)}-${randomInt(1e6, 1e7 - 1)}-1`;
const darajaError = (status: number, errorCode: string, errorMessage: string) =>
  new HttpError(status, { requestId: requestId(), errorCode, errorMessage });
const badRequest = (field: string) => darajaError(400, '400.002.02', `Bad Request - Invalid ${field}`);
const wrongCredentials = () => darajaError(500, '500.001.1001', 'Wrong credentials');
const stillProcessing = () => darajaError(500, '500.001.1001', 'The transaction is being processed');

const isDigits = (value: unknown): value is string | number =>
  (typeof value === 'string' && /^\d+$/.test(value)) ||
  (typeof value === 'number' && Number.isSafeInteger(value));
const isWholeAmount = (value: unknown) => isDigits(value) && Number(value) >= 1;
const within = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && value.trim().length >= min && value.length <= max;
const receiptId = () => `SIM${randomBytes(5).toString('hex').toUpperCase().slice(0, 7)}`;

export function createMpesaSimulator(state: SimulatorState): MpesaSimulator & {
  handle(call: SimCall): Promise<void>;
  revokeTokens(): void;
} {
  const tokens = new Map<string, number>();
  const payments = new Map<string, MpesaPayment>();
  const reversals: MpesaReversal[] = [];
  const deliveries: MpesaDelivery[] = [];
  let tokenCount = 0;
  const readBody = (req: IncomingMessage) =>
    readJson(req, (message) => darajaError(400, '400.002.02', `Bad Request - ${message}`));

  function issueToken({ req, res }: SimCall): void {
    const grant = new URL(req.url ?? '/', 'http://simulator').searchParams.get('grant_type');
    if (grant !== 'client_credentials') throw darajaError(400, '400.008.02', 'Invalid grant type passed');
    const basic = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
    const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
    if (decoded !== `${creds.consumerKey}:${creds.consumerSecret}`) {
      throw darajaError(400, '400.008.01', 'Invalid Authentication passed');
    }
    tokenCount++;
    const token = `sim_mpesa_${randomBytes(24).toString('base64url')}`;
    tokens.set(token, Date.now() + state.tokenTtlSeconds * 1000);
    // Daraja sends expires_in as a string.
    sendJson(res, 200, { access_token: token, expires_in: String(state.tokenTtlSeconds) });
  }

  function checkBearer(req: IncomingMessage): void {
    const match = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
    const expiresAt = match ? tokens.get(match[1]!) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now()) {
      throw darajaError(401, '404.001.03', 'Invalid Access Token');
    }
  }

  /** Shortcode, Timestamp and Password of an M-Pesa Express call. */
  function checkPassword(body: Record<string, unknown>): void {
    if (String(body.BusinessShortCode) !== creds.shortcode) throw badRequest('BusinessShortCode');
    if (typeof body.Timestamp !== 'string' || !TIMESTAMP.test(body.Timestamp)) throw badRequest('Timestamp');
    const expected = Buffer.from(`${creds.shortcode}${creds.passkey}${body.Timestamp}`).toString('base64');
    if (body.Password !== expected) throw wrongCredentials();
  }

  async function deliver(kind: MpesaDelivery['kind'], url: string, body: unknown): Promise<void> {
    const sent = await sendToReceiver(url, { body, cancel: state.callbackAborter.signal });
    if (sent.error !== undefined && !state.closed) {
      state.log.warn({ url, error: sent.error }, 'M-Pesa delivery failed (not retried)');
    }
    deliveries.push({ kind, url, status: sent.status, body });
  }

  const b2c = createMpesaB2c({
    state,
    checkBearer,
    readBody,
    badRequest,
    deliver: (url, body) => deliver('b2c', url, body),
    receiptId,
  });

  function stkCallbackBody(payment: MpesaPayment) {
    const decline = declineOf(payment.scenario);
    const stkCallback = {
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResultCode: decline ? decline.resultCode : 0,
      ResultDesc: decline ? decline.resultDesc : 'The service request is processed successfully.',
    };
    if (decline) return { Body: { stkCallback } };
    const nairobi = new Date(Date.now() + 3 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);
    const metadata = {
      Item: [
        { Name: 'Amount', Value: payment.amount },
        { Name: 'MpesaReceiptNumber', Value: payment.receipt },
        { Name: 'TransactionDate', Value: Number(nairobi) },
        { Name: 'PhoneNumber', Value: Number(payment.msisdn) },
      ],
    };
    return { Body: { stkCallback: { ...stkCallback, CallbackMetadata: metadata } } };
  }

  function settle(payment: MpesaPayment, callbacks: number): void {
    if (payment.state !== 'pending') return;
    payment.state = payment.scenario.declined ? 'failed' : 'successful';
    for (let i = 0; i < callbacks; i++) {
      const send = () => void deliver('stk', payment.callbackUrl, stkCallbackBody(payment));
      if (i === 0) send();
      else later(state, scaled(state, DUPLICATE_CALLBACK_AFTER_MS) * i, send);
    }
  }

  async function stkPush({ req, res }: SimCall): Promise<void> {
    checkBearer(req);
    const body = await readBody(req);
    checkPassword(body);
    const { TransactionType, Amount, PartyA, PartyB, PhoneNumber, CallBackURL } = body;
    const { AccountReference, TransactionDesc } = body;
    if (TransactionType !== 'CustomerPayBillOnline' && TransactionType !== 'CustomerBuyGoodsOnline') {
      throw badRequest('TransactionType');
    }
    if (!isWholeAmount(Amount)) throw badRequest('Amount');
    if (typeof PartyA !== 'string' || !KENYAN_MSISDN.test(PartyA)) throw badRequest('PartyA');
    if (!isDigits(PartyB)) throw badRequest('PartyB');
    if (typeof PhoneNumber !== 'string' || !KENYAN_MSISDN.test(PhoneNumber)) throw badRequest('PhoneNumber');
    if (typeof CallBackURL !== 'string' || !isHttpUrl(CallBackURL)) throw badRequest('CallBackURL');
    if (!within(AccountReference, 1, 12)) throw badRequest('AccountReference');
    if (!within(TransactionDesc, 1, 13)) throw badRequest('TransactionDesc');
    const scenario = scenarioFor(PhoneNumber);
    if (scenario.submit === 'outage') throw darajaError(503, '503.001.01', 'Service Unavailable');
    const payment: MpesaPayment = {
      checkoutRequestId: `ws_CO_${Date.now()}${randomInt(1e5, 1e6 - 1)}`,
      merchantRequestId: requestId(),
      scenario,
      msisdn: PhoneNumber,
      amount: Number(Amount),
      accountReference: AccountReference,
      description: TransactionDesc,
      callbackUrl: CallBackURL,
      state: 'pending',
      receipt: receiptId(),
    };
    payments.set(payment.checkoutRequestId, payment);
    if (scenario.settleAfterMs !== null) {
      later(state, scaled(state, scenario.settleAfterMs), () => settle(payment, scenario.callbacks));
    }
    if (scenario.submit === 'lose_response') return holdForever(res);
    sendJson(res, 200, {
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
  }

  /** Accepted, but the answer never comes: held until the client gives up. */
  function holdForever(res: ServerResponse): void {
    state.held.add(res);
    res.on('close', () => state.held.delete(res));
    later(state, HOLD_LOST_RESPONSE_MS, () => res.destroy());
  }

  async function stkQuery({ req, res }: SimCall): Promise<void> {
    checkBearer(req);
    const body = await readBody(req);
    checkPassword(body);
    const id = body.CheckoutRequestID;
    if (typeof id === 'string') countQuery(state, id);
    const payment = typeof id === 'string' ? payments.get(id) : undefined;
    if (!payment) throw badRequest('CheckoutRequestID');
    if (payment.state === 'pending' || !payment.scenario.statusShowsFinal) throw stillProcessing();
    const decline = payment.state === 'failed' ? declineOf(payment.scenario) : null;
    sendJson(res, 200, {
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successsfully',
      MerchantRequestID: payment.merchantRequestId,
      CheckoutRequestID: payment.checkoutRequestId,
      ResultCode: decline ? String(decline.resultCode) : '0',
      ResultDesc: decline ? decline.resultDesc : 'The service request is processed successfully.',
    });
  }

  function resultBody(reversal: MpesaReversal, queueTimeoutUrl: string, code: string, desc: string) {
    return {
      Result: {
        ResultType: 0,
        ResultCode: code === '0' ? 0 : code,
        ResultDesc: desc,
        OriginatorConversationID: reversal.originatorConversationId,
        ConversationID: reversal.conversationId,
        TransactionID: receiptId(),
        ...(code === '0'
          ? {
              ResultParameters: {
                ResultParameter: [
                  { Key: 'Amount', Value: reversal.amount },
                  { Key: 'OriginalTransactionID', Value: reversal.transactionId },
                ],
              },
            }
          : {}),
        ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: queueTimeoutUrl } },
      },
    };
  }

  async function reverse({ req, res }: SimCall): Promise<void> {
    checkBearer(req);
    const body = await readBody(req);
    const { Initiator, SecurityCredential, CommandID, TransactionID, Amount, ReceiverParty } = body;
    const { RecieverIdentifierType, ResultURL, QueueTimeOutURL, Remarks, Occasion } = body;
    if (!within(Initiator, 1, 100)) throw badRequest('Initiator');
    if (!within(SecurityCredential, 1, 2048)) throw badRequest('SecurityCredential');
    if (CommandID !== 'TransactionReversal') throw badRequest('CommandID');
    if (typeof TransactionID !== 'string' || !/^[A-Z0-9]{6,20}$/.test(TransactionID)) {
      throw badRequest('TransactionID');
    }
    if (!isWholeAmount(Amount)) throw badRequest('Amount');
    if (String(ReceiverParty) !== creds.shortcode) throw badRequest('ReceiverParty');
    if (String(RecieverIdentifierType) !== '11') throw badRequest('RecieverIdentifierType');
    if (typeof ResultURL !== 'string' || !isHttpUrl(ResultURL)) throw badRequest('ResultURL');
    if (typeof QueueTimeOutURL !== 'string' || !isHttpUrl(QueueTimeOutURL))
      throw badRequest('QueueTimeOutURL');
    if (!within(Remarks, 2, 100)) throw badRequest('Remarks');
    if (Occasion !== undefined && !within(Occasion, 0, 100)) throw badRequest('Occasion');
    const payment = [...payments.values()].find(
      (p) => p.receipt === TransactionID && p.state === 'successful',
    );
    // Daraja reverses a whole transaction: another amount is refused at once.
    if (payment && Number(Amount) !== payment.amount) throw badRequest('Amount');
    const reversal: MpesaReversal = {
      conversationId: `AG_${Date.now()}_${randomBytes(8).toString('hex')}`,
      originatorConversationId: requestId(),
      transactionId: TransactionID,
      amount: Number(Amount),
      scenario: payment ? refundScenarioFor(payment.msisdn) : null,
      state: 'pending',
      resultCode: null,
    };
    const earlier = reversals.some((r) => r.transactionId === TransactionID && r.state !== 'failed');
    reversals.push(reversal);
    sendJson(res, 200, {
      OriginatorConversationID: reversal.originatorConversationId,
      ConversationID: reversal.conversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
    // Everything else is learnt at ResultURL, as Daraja does.
    const finish = (code: string, desc: string) => {
      if (reversal.state !== 'pending') return;
      reversal.state = code === '0' ? 'successful' : 'failed';
      reversal.resultCode = code;
      void deliver('reversal', ResultURL, resultBody(reversal, QueueTimeOutURL, code, desc));
    };
    if (Initiator !== creds.initiator || SecurityCredential !== creds.securityCredential) {
      return finish('2001', 'The initiator information is invalid.');
    }
    if (!payment) return finish('R000002', 'The OriginalTransID is invalid.');
    if (earlier) return finish('R000001', 'The transaction has already been reversed.');
    const scenario = reversal.scenario!;
    if (scenario.settleAfterMs === null) return;
    const outcome = () =>
      scenario.fails
        ? finish('1', 'The balance is insufficient for the transaction.')
        : finish('0', 'The service request is processed successfully.');
    later(state, scaled(state, scenario.settleAfterMs), outcome);
  }

  return {
    async handle(call) {
      const { req, path } = call;
      if (req.method === 'GET' && path === '/oauth/v1/generate') return issueToken(call);
      if (req.method === 'POST' && path === '/mpesa/stkpush/v1/processrequest') return stkPush(call);
      if (req.method === 'POST' && path === '/mpesa/stkpushquery/v1/query') return stkQuery(call);
      if (req.method === 'POST' && path === '/mpesa/reversal/v1/request') return reverse(call);
      if (req.method === 'POST' && path === '/mpesa/b2c/v3/paymentrequest') return b2c.pay(call);
      throw darajaError(404, '404.001.01', 'Resource not found');
    },
    revokeTokens: () => tokens.clear(),
    tokenRequests: () => tokenCount,
    payments: () => [...payments.values()].map((p) => ({ ...p })),
    reversals: () => reversals.map((r) => ({ ...r })),
    b2cPayments: b2c.payments,
    deliveries: () => deliveries.map((d) => ({ ...d })),
    approve(checkoutRequestId) {
      const payment = payments.get(checkoutRequestId);
      if (!payment || payment.state !== 'pending') return false;
      payment.scenario = { ...payment.scenario, declined: false, statusShowsFinal: true };
      settle(payment, 0);
      return true;
    },
  };
}
