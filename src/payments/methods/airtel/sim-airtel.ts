// The simulator's Airtel Money Open API, served under /airtel: a client-credentials token, then
// the collection payment and its enquiry, each call checked for the bearer token and the
// country and currency headers. Airtel's callback URL is registered, not sent per request. A refund
// names the payment's airtel_money_id and is enquired like a payment, under its own id. A part of a
// payment goes back as a disbursement (sim-airtel-disbursements.ts).
import { randomInt } from 'node:crypto';
import { AIRTEL_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { scenarioFor } from '../../simulator/sim-scenarios.ts';
import { HttpError, obj, readJson, sendJson, type SimCall } from '../../simulator/sim-http.ts';
import { createRefund, refundablePayment, type SimRefund } from '../../simulator/sim-refunds.ts';
import { countQuery, issueToken, type SimulatorState, type Transaction } from '../../simulator/sim-state.ts';
import { createTransaction, type NetworkRules } from '../../simulator/sim-transactions.ts';
import { airtelBad, airtelEnvelope, checkApiCall, refundRefusal } from './sim-airtel-wire.ts';
import { DISBURSEMENT_PATH, disburseAirtel, enquireAirtelDisbursement } from './sim-airtel-disbursements.ts';

/** Airtel's transaction status, response code and message for each declining scenario. */
export const AIRTEL_DECLINES: Readonly<
  Record<string, { status: 'TF' | 'TE'; code: string; message: string }>
> = {
  '03': { status: 'TF', code: 'DP00800001008', message: 'Transaction refused by the payer' },
  '04': { status: 'TF', code: 'DP00800001024', message: 'Transaction timed out' },
  '05': { status: 'TF', code: 'DP00800001007', message: 'Not enough balance' },
  '06': { status: 'TF', code: 'DP00800001002', message: 'Incorrect PIN entered' },
  '07': { status: 'TF', code: 'DP00800001003', message: 'Exceeds the payer limit' },
  '08': { status: 'TF', code: 'DP00800001010', message: 'Payer is not registered' },
};

/** Airtel's status and code for a transaction; `final` shows the real state even when the enquiry would not. */
function airtelView(txn: Transaction, final: boolean) {
  const state = final || txn.scenario.statusShowsFinal ? txn.state : 'pending';
  const decline = AIRTEL_DECLINES[txn.scenario.code];
  if (state === 'successful') {
    return { status: 'TS', code: 'DP00800001001', message: 'Transaction is successful' };
  }
  if (state === 'failed' && decline) return decline;
  return { status: 'TIP', code: 'DP00800001006', message: 'Transaction in progress' };
}

export const airtelRules: NetworkRules = {
  newTransactionId: () => `SIM${randomInt(1e9, 1e10 - 1)}`,
  duplicateError: () =>
    new HttpError(200, {
      data: {},
      status: {
        code: '200',
        message: 'Duplicate transaction id',
        result_code: 'ESB000041',
        success: false,
      },
    }),
  outageError: () =>
    new HttpError(503, '<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>'),
  callbackFor: (state, txn) => {
    const view = airtelView(txn, true);
    return {
      url:
        state.registeredCallbacks
          .get('airtel')
          ?.replaceAll('{reference}', encodeURIComponent(txn.reference)) ?? null,
      method: 'POST',
      body: {
        transaction: {
          id: txn.reference,
          message: view.message,
          status_code: view.status === 'TS' ? 'TS' : 'TF',
          airtel_money_id: txn.providerId,
        },
      },
    };
  },
};

async function issueAirtelToken(state: SimulatorState, { req, res }: SimCall): Promise<void> {
  const body = await readJson(
    req,
    (message) => new HttpError(400, { error: 'invalid_request', error_description: message }),
  );
  if (body.grant_type !== 'client_credentials') {
    throw new HttpError(400, {
      error: 'unsupported_grant_type',
      error_description: 'Use client_credentials.',
    });
  }
  if (body.client_id !== creds.clientId || body.client_secret !== creds.clientSecret) {
    throw new HttpError(401, {
      error: 'invalid_client',
      error_description: 'Client authentication failed.',
    });
  }
  // Airtel sends expires_in as a string.
  sendJson(res, 200, {
    access_token: issueToken(state, 'airtel'),
    expires_in: String(state.tokenTtlSeconds),
    token_type: 'bearer',
  });
}

async function collectAirtelPayment(state: SimulatorState, { req, res }: SimCall): Promise<void> {
  checkApiCall(state, req);
  const body = await readJson(req, (message) => airtelBad(message));
  const subscriber = obj(body.subscriber);
  const transaction = obj(body.transaction);
  const reference = body.reference ?? '';
  if (typeof reference !== 'string') throw airtelBad('reference must be a string');
  const msisdn = subscriber.msisdn;
  if (typeof msisdn !== 'string' || !/^[1-9]\d{8}$/.test(msisdn)) {
    throw airtelBad('Invalid MSISDN: send the national number without the country code', 'ESB000033');
  }
  const { amount, id, currency, country } = transaction;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
    throw airtelBad('transaction.amount must be a positive number');
  }
  if (typeof id !== 'string' || id === '' || id.length > 64) throw airtelBad('transaction.id is required');
  if (currency !== creds.currency || country !== creds.country) {
    throw airtelBad('transaction currency and country must match the headers', 'ESB000035');
  }
  createTransaction(state, {
    rules: airtelRules,
    txn: {
      network: 'airtel',
      reference: id,
      scenario: scenarioFor(msisdn),
      msisdn,
      amount,
      currency,
      payerMessage: reference,
      payeeNote: reference,
      callbackUrl: null,
    },
    submission: {
      network: 'airtel',
      reference: id,
      msisdn,
      amount,
      currency,
      callbackUrl: null,
      description: reference,
    },
    res,
    accept: () =>
      sendJson(res, 200, {
        data: { transaction: { id, status: 'Success.' } },
        status: {
          code: '200',
          message: 'SUCCESS',
          result_code: 'ESB000010',
          response_code: 'DP00800001006',
          success: true,
        },
      }),
  });
}

const refundEnvelope = (refund: SimRefund, success: boolean, responseCode: string, message: string) => ({
  data: {
    transaction: {
      airtel_money_id: refund.providerId,
      id: refund.reference,
      status: success ? 'SUCCESS' : 'FAILED',
    },
  },
  status: { code: '200', message, result_code: 'ESB000010', response_code: responseCode, success },
});

async function refundAirtelPayment(state: SimulatorState, { req, res }: SimCall): Promise<void> {
  checkApiCall(state, req);
  const body = await readJson(req, (message) => airtelBad(message));
  const transaction = obj(body.transaction);
  const { airtel_money_id: airtelMoneyId, id } = transaction;
  if (typeof airtelMoneyId !== 'string' || airtelMoneyId === '') {
    throw airtelBad('transaction.airtel_money_id is required');
  }
  if (typeof id !== 'string' || id === '' || id.length > 64) throw airtelBad('transaction.id is required');
  const payment = refundablePayment(state, 'airtel', { providerId: airtelMoneyId });
  if (!payment) {
    return sendJson(
      res,
      200,
      airtelEnvelope('200', 'Transaction not found', 'ESB000045', { response_code: 'DP00800001025' }),
    );
  }
  const refund = createRefund(state, {
    network: 'airtel',
    reference: id,
    payment,
    amount: payment.amount,
    providerId: `RSIM${randomInt(1e9, 1e10 - 1)}`,
  });
  if (typeof refund === 'string') {
    const refused = { message: 'Transaction already refunded', responseCode: 'DP00800001005' };
    return sendJson(res, 200, refundRefusal(refund, refused));
  }
  if (refund.state === 'failed') {
    return sendJson(res, 200, refundEnvelope(refund, false, 'DP00800001004', 'Refund refused'));
  }
  sendJson(
    res,
    200,
    refundEnvelope(
      refund,
      true,
      refund.state === 'successful' ? 'DP00800001001' : 'DP00800001006',
      'SUCCESS',
    ),
  );
}

/** The enquiry answer for a refund's own id. */
function refundEnquiry(refund: SimRefund) {
  const [status, code, message] =
    refund.state === 'successful'
      ? ['TS', 'DP00800001001', 'Refund is successful']
      : refund.state === 'failed'
        ? ['TF', 'DP00800001004', 'Refund failed']
        : ['TIP', 'DP00800001006', 'Refund in progress'];
  return {
    data: {
      transaction: {
        airtel_money_id: status === 'TIP' ? null : refund.providerId,
        id: refund.reference,
        message,
        status,
        amount: refund.amount,
        currency: refund.currency,
      },
    },
    status: { code: '200', message: 'SUCCESS', result_code: 'ESB000010', response_code: code, success: true },
  };
}

const ENQUIRY_PATH = /^\/standard\/v1\/payments\/([^/]+)$/;

function enquireAirtelPayment(state: SimulatorState, { req, res, path }: SimCall): void {
  checkApiCall(state, req);
  const reference = decodeURIComponent(ENQUIRY_PATH.exec(path)![1]!);
  countQuery(state, reference);
  const txn = state.transactions.get(`airtel:${reference}`);
  const refund = state.refunds.get(`airtel:${reference}`);
  if (!txn && refund?.via === 'refund') return sendJson(res, 200, refundEnquiry(refund));
  if (!txn) {
    return sendJson(
      res,
      200,
      airtelEnvelope('200', 'Transaction not found', 'ESB000045', { response_code: 'DP00800001025' }),
    );
  }
  const view = airtelView(txn, false);
  sendJson(res, 200, {
    data: {
      transaction: {
        airtel_money_id: view.status === 'TIP' ? null : txn.providerId,
        id: txn.reference,
        message: view.message,
        status: view.status,
        // Not in Airtel's documented enquiry answer: the simulator adds what was submitted.
        amount: txn.amount,
        currency: txn.currency,
      },
    },
    status: {
      code: '200',
      message: 'SUCCESS',
      result_code: 'ESB000010',
      response_code: view.code,
      success: true,
    },
  });
}

/** Answers one request under /airtel; `call.path` has the prefix removed. */
export async function handleAirtelRequest(state: SimulatorState, call: SimCall): Promise<void> {
  const { req, path } = call;
  if (req.method === 'POST' && path === '/auth/oauth2/token') return issueAirtelToken(state, call);
  if (req.method === 'POST' && (path === '/merchant/v1/payments/' || path === '/merchant/v1/payments')) {
    return collectAirtelPayment(state, call);
  }
  if (req.method === 'POST' && path === '/standard/v1/payments/refund')
    return refundAirtelPayment(state, call);
  if (req.method === 'GET' && ENQUIRY_PATH.test(path)) return enquireAirtelPayment(state, call);
  if (
    req.method === 'POST' &&
    (path === '/standard/v1/disbursements/' || path === '/standard/v1/disbursements')
  ) {
    return disburseAirtel(state, call);
  }
  if (req.method === 'GET' && DISBURSEMENT_PATH.test(path)) return enquireAirtelDisbursement(state, call);
  throw new HttpError(404, airtelEnvelope('404', 'Resource not found', 'ESB000001'));
}
