// The simulator's MTN MoMo Collection contract, served under /mtn: a token for the API user, then
// request-to-pay and its status, each call checked for the subscription key, the bearer token
// and the target environment as MTN checks them. The Disbursement product's refund and its status
// live under /disbursement with their own subscription key and token.
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isPaymentReference } from '../../provider.ts';
import { MTN_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { scenarioFor } from '../../simulator/sim-scenarios.ts';
import {
  header,
  HttpError,
  isHttpUrl,
  obj,
  readJson,
  sendJson,
  type SimCall,
} from '../../simulator/sim-http.ts';
import { createRefund, refundablePayment, type SimRefund } from '../../simulator/sim-refunds.ts';
import {
  bearerValid,
  countQuery,
  issueToken,
  type SimulatorState,
  type Transaction,
} from '../../simulator/sim-state.ts';
import { createTransaction, type NetworkRules } from '../../simulator/sim-transactions.ts';

/** MTN's request-to-pay reason for each declining scenario (NOT_ALLOWED: a wrong PIN). */
export const MTN_DECLINES: Readonly<Record<string, string>> = {
  '03': 'APPROVAL_REJECTED',
  '04': 'EXPIRED',
  '05': 'NOT_ENOUGH_FUNDS',
  '06': 'NOT_ALLOWED',
  '07': 'PAYER_LIMIT_REACHED',
  '08': 'PAYER_NOT_FOUND',
};

/** The MTN status body; `final` shows the real state even when the status query would not. */
function mtnView(txn: Transaction, final: boolean): Record<string, unknown> {
  const state = final || txn.scenario.statusShowsFinal ? txn.state : 'pending';
  return {
    amount: txn.amount,
    currency: txn.currency,
    ...(state === 'successful' ? { financialTransactionId: txn.providerId } : {}),
    externalId: txn.reference,
    payer: { partyIdType: 'MSISDN', partyId: txn.msisdn },
    payerMessage: txn.payerMessage,
    payeeNote: txn.payeeNote,
    status: state === 'successful' ? 'SUCCESSFUL' : state === 'failed' ? 'FAILED' : 'PENDING',
    ...(state === 'failed' ? { reason: MTN_DECLINES[txn.scenario.code] } : {}),
  };
}

export const mtnRules: NetworkRules = {
  duplicateError: () =>
    new HttpError(409, {
      code: 'RESOURCE_ALREADY_EXIST',
      message: 'Duplicated reference id. Creation of resource failed.',
    }),
  outageError: () =>
    new HttpError(503, { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable, try again later.' }),
  newTransactionId: () => String(randomInt(1_000_000_000, 9_999_999_999)),
  // MTN calls back where the request-to-pay asked, with the final status body.
  callbackFor: (_state, txn) => ({ url: txn.callbackUrl, method: 'PUT', body: mtnView(txn, true) }),
};

const mtnBad = (message: string) => new HttpError(400, { code: 'BAD_REQUEST', message });

type Product = 'collection' | 'disbursement';

const subscriptionKeyOf = (product: Product) =>
  product === 'disbursement' ? creds.disbursement.subscriptionKey : creds.subscriptionKey;

function checkSubscription(req: IncomingMessage, product: Product = 'collection'): void {
  if (header(req, 'ocp-apim-subscription-key') !== subscriptionKeyOf(product)) {
    throw new HttpError(401, {
      statusCode: 401,
      message:
        'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
    });
  }
}

function checkApiCall(state: SimulatorState, req: IncomingMessage, product: Product = 'collection'): void {
  checkSubscription(req, product);
  if (!bearerValid(state, req, 'momo')) {
    throw new HttpError(401, {
      code: 'UNAUTHORIZED',
      message: 'Access token is missing, invalid or expired.',
    });
  }
  if (header(req, 'x-target-environment') !== creds.targetEnvironment) {
    throw new HttpError(403, {
      code: 'NOT_ALLOWED_TARGET_ENVIRONMENT',
      message: 'Access to target environment is forbidden.',
    });
  }
}

function issueMtnToken(state: SimulatorState, { req, res }: SimCall, product: Product = 'collection'): void {
  checkSubscription(req, product);
  const basic = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
  if (decoded !== `${creds.apiUser}:${creds.apiKey}`) {
    throw new HttpError(401, { error: 'login_failed' });
  }
  sendJson(res, 200, {
    access_token: issueToken(state, 'momo'),
    token_type: 'access_token',
    expires_in: state.tokenTtlSeconds,
  });
}

async function requestToPay(state: SimulatorState, { req, res }: SimCall): Promise<void> {
  checkApiCall(state, req);
  const reference = header(req, 'x-reference-id') ?? '';
  if (!isPaymentReference(reference)) throw mtnBad('X-Reference-Id must be a UUID version 4.');
  const callbackUrl = header(req, 'x-callback-url') ?? null;
  if (callbackUrl !== null && !isHttpUrl(callbackUrl)) {
    throw new HttpError(400, {
      code: 'INVALID_CALLBACK_URL_HOST',
      message: 'Callback URL is not valid.',
    });
  }
  const body = await readJson(req, mtnBad);
  const payer = obj(body.payer);
  const { amount, currency, externalId, payerMessage = '', payeeNote = '' } = body;
  if (typeof amount !== 'string' || !/^\d+(\.\d+)?$/.test(amount) || Number(amount) <= 0) {
    throw mtnBad('amount must be a positive decimal string.');
  }
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw mtnBad('currency must be ISO 4217.');
  if (typeof externalId !== 'string' || externalId === '') throw mtnBad('externalId is required.');
  if (
    payer.partyIdType !== 'MSISDN' ||
    typeof payer.partyId !== 'string' ||
    !/^\d{9,15}$/.test(payer.partyId)
  ) {
    throw mtnBad('payer must be {partyIdType: MSISDN, partyId: digits}.');
  }
  if (typeof payerMessage !== 'string' || typeof payeeNote !== 'string') {
    throw mtnBad('payerMessage and payeeNote must be strings.');
  }
  if (payerMessage.length > 160 || payeeNote.length > 160)
    throw mtnBad('payerMessage and payeeNote: 160 at most.');
  const msisdn = payer.partyId;
  createTransaction(state, {
    rules: mtnRules,
    txn: {
      network: 'momo',
      reference,
      scenario: scenarioFor(msisdn),
      msisdn,
      amount,
      currency,
      payerMessage,
      payeeNote,
      callbackUrl,
    },
    submission: {
      network: 'momo',
      reference,
      msisdn,
      amount,
      currency,
      callbackUrl,
      description: payerMessage,
    },
    res,
    accept: () => sendJson(res, 202, undefined),
  });
}

const STATUS_PATH = /^\/collection\/v1_0\/requesttopay\/([^/]+)$/;

function getRequestToPayStatus(state: SimulatorState, { req, res, path }: SimCall): void {
  checkApiCall(state, req);
  const reference = decodeURIComponent(STATUS_PATH.exec(path)![1]!);
  countQuery(state, reference);
  const txn = state.transactions.get(`momo:${reference}`);
  if (!txn)
    throw new HttpError(404, {
      code: 'RESOURCE_NOT_FOUND',
      message: 'Requested resource was not found.',
    });
  sendJson(res, 200, mtnView(txn, false));
}

/** The refund status body (MTN's RefundResult shape, as for a transfer). */
function refundView(refund: SimRefund): Record<string, unknown> {
  return {
    amount: refund.amount,
    currency: refund.currency,
    ...(refund.state === 'successful' ? { financialTransactionId: refund.providerId } : {}),
    externalId: refund.reference,
    status: refund.state === 'successful' ? 'SUCCESSFUL' : refund.state === 'failed' ? 'FAILED' : 'PENDING',
    ...(refund.state === 'failed' ? { reason: 'NOT_ENOUGH_FUNDS' } : {}),
  };
}

async function requestRefund(state: SimulatorState, { req, res }: SimCall): Promise<void> {
  checkApiCall(state, req, 'disbursement');
  const reference = header(req, 'x-reference-id') ?? '';
  if (!isPaymentReference(reference)) throw mtnBad('X-Reference-Id must be a UUID version 4.');
  const body = await readJson(req, mtnBad);
  const { amount, currency, externalId, referenceIdToRefund, payerMessage = '', payeeNote = '' } = body;
  if (typeof amount !== 'string' || !/^\d+(\.\d+)?$/.test(amount) || Number(amount) <= 0) {
    throw mtnBad('amount must be a positive decimal string.');
  }
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw mtnBad('currency must be ISO 4217.');
  if (typeof externalId !== 'string' || externalId === '') throw mtnBad('externalId is required.');
  if (typeof payerMessage !== 'string' || typeof payeeNote !== 'string') {
    throw mtnBad('payerMessage and payeeNote must be strings.');
  }
  if (typeof referenceIdToRefund !== 'string' || !isPaymentReference(referenceIdToRefund)) {
    throw mtnBad('referenceIdToRefund must be the UUID of a request to pay.');
  }
  const payment = refundablePayment(state, 'momo', { reference: referenceIdToRefund });
  if (!payment) {
    throw new HttpError(404, { code: 'RESOURCE_NOT_FOUND', message: 'No successful payment to refund.' });
  }
  if (Number(amount) > Number(payment.amount) || currency !== payment.currency) {
    throw mtnBad('The refund may not exceed the payment, in its currency.');
  }
  const refund = createRefund(state, {
    network: 'momo',
    reference,
    payment,
    amount,
    providerId: String(randomInt(1e9, 1e10 - 1)),
  });
  if (refund === 'duplicate') {
    throw new HttpError(409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id.' });
  }
  if (refund === 'already_refunded') {
    throw new HttpError(400, { code: 'NOT_ALLOWED', message: 'The payment was refunded already.' });
  }
  if (refund === 'above_left') {
    throw mtnBad('The refund may not exceed what is left of the payment after its earlier refunds.');
  }
  sendJson(res, 202, undefined);
}

const REFUND_PATH = /^\/disbursement\/v1_0\/refund\/([^/]+)$/;

function getRefundStatus(state: SimulatorState, { req, res, path }: SimCall): void {
  checkApiCall(state, req, 'disbursement');
  const reference = decodeURIComponent(REFUND_PATH.exec(path)![1]!);
  countQuery(state, reference);
  const refund = state.refunds.get(`momo:${reference}`);
  if (!refund) {
    throw new HttpError(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
  }
  sendJson(res, 200, refundView(refund));
}

/** Answers one request under /mtn; `call.path` has the prefix removed. */
export async function handleMtnRequest(state: SimulatorState, call: SimCall): Promise<void> {
  const { req, path } = call;
  if (req.method === 'POST' && (path === '/collection/token/' || path === '/collection/token')) {
    return issueMtnToken(state, call);
  }
  if (req.method === 'POST' && path === '/collection/v1_0/requesttopay') return requestToPay(state, call);
  if (req.method === 'GET' && STATUS_PATH.test(path)) return getRequestToPayStatus(state, call);
  if (req.method === 'POST' && (path === '/disbursement/token/' || path === '/disbursement/token')) {
    return issueMtnToken(state, call, 'disbursement');
  }
  if (req.method === 'POST' && path === '/disbursement/v1_0/refund') return requestRefund(state, call);
  if (req.method === 'GET' && REFUND_PATH.test(path)) return getRefundStatus(state, call);
  throw new HttpError(404, { statusCode: 404, message: 'Resource not found' });
}
