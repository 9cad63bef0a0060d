// Adapter for the Airtel Money Open API (method `airtel`): OAuth2 client-credentials token, USSD
// push (POST /merchant/v1/payments/) with our UUID as transaction.id, status enquiry
// (GET /standard/v1/payments/{id}). Airtel's callback URL is registered with Airtel, not sent.
// Refunds: POST /standard/v1/payments/refund naming the payment's airtel_money_id, followed by the
// same transaction enquiry under the refund's own id; that refund returns only the whole payment,
// so a part goes back as a disbursement (B2C) to the payer's number, followed by the disbursement
// enquiry (see src/payments/README.md, "Refunds").
import { constants, createPublicKey, publicEncrypt, type KeyObject } from 'node:crypto';
import { systemClock } from '../../../platform/index.ts';
import {
  mapAirtelDisbursementEnquiry,
  mapAirtelDisbursementSubmit,
  mapAirtelEnquiry,
  mapAirtelRefundEnquiry,
  mapAirtelRefundSubmit,
  mapAirtelSubmit,
} from './airtel-status.ts';
import {
  CURRENCY_EXPONENT,
  checkPaymentRequest,
  checkRefundRequest,
  cleanDescription,
  formatMajorAmount,
  type PaymentProvider,
  type PaymentRequest,
  type RefundRequest,
  type RefundStatusResult,
  type RefundSubmitResult,
  type StatusResult,
  type SubmitResult,
  providerError,
} from '../../provider.ts';
import {
  authorizedSender,
  createTokenCache,
  describeBody,
  query,
  queryFailure,
  readIssuedToken,
  sendRequest,
  silentLog,
  submit,
  type AdapterOptions,
} from '../../provider-http.ts';
import { airtelMethod } from './airtel-method.ts';

export interface AirtelConfig {
  /** e.g. https://openapi.airtel.africa, or the simulator's http://127.0.0.1:PORT/airtel */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** X-Country and subscriber/transaction country: UG */
  country: string;
  /** X-Currency: UGX */
  currency: string;
  /** deadline of each HTTP call; default 15 000 ms */
  timeoutMs?: number;
  /** what a disbursement needs (partial refunds); absent: only whole payments are refunded */
  disbursement?: AirtelDisbursementConfig | undefined;
}

interface AirtelDisbursementConfig {
  /** the merchant's disbursement PIN, sent encrypted */
  pin: string;
  /** Airtel's RSA public key: PEM, or the base64 of its DER (SubjectPublicKeyInfo) */
  publicKey: string;
}

/** Why a part of a payment cannot be refunded without the disbursement settings (the 422's words). */
export const AIRTEL_PARTIAL_REFUSED =
  "Partial Airtel Money refunds are paid as disbursements, and this service's Airtel disbursement settings are not set; refund the whole order instead.";

/** Airtel's public key as given (PEM, or base64 DER); throws when it is not a public key. */
export function airtelPublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  return createPublicKey({
    key: Buffer.from(trimmed.replace(/\s+/g, ''), 'base64'),
    format: 'der',
    type: 'spki',
  });
}

/** The PIN as Airtel wants it: RSA PKCS#1 v1.5 under Airtel's public key, base64. */
function encryptAirtelPin(pin: string, key: KeyObject): string {
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(pin, 'utf8')).toString(
    'base64',
  );
}

const NAME = 'Airtel Money';
/** Airtel shows `reference` to the payer; keep it short. */
const REFERENCE_MAX = 64;

/** 256XXXXXXXXX -> the national number Airtel expects, without the country code (7XXXXXXXX). */
export function airtelMsisdn(msisdn: string): string {
  return msisdn.startsWith('256') ? msisdn.slice(3) : msisdn;
}

export function createAirtelProvider(config: AirtelConfig, options: AdapterOptions = {}): PaymentProvider {
  const log = options.log ?? silentLog;
  const timeoutMs = config.timeoutMs ?? 15_000;
  const base = config.baseUrl.replace(/\/+$/, '');
  const countryHeaders = { 'X-Country': config.country, 'X-Currency': config.currency };
  // Read once: a bad key fails at start, not at the first partial refund.
  const disbursement = config.disbursement
    ? { pin: config.disbursement.pin, key: airtelPublicKey(config.disbursement.publicKey) }
    : null;

  const tokens = createTokenCache({
    clock: options.clock ?? systemClock,
    fetchToken: async () => {
      const outcome = await sendRequest(
        `${base}/auth/oauth2/token`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({
            client_id: config.clientId,
            client_secret: config.clientSecret,
            grant_type: 'client_credentials',
          }),
        },
        timeoutMs,
      );
      return readIssuedToken('airtel', NAME, outcome, log);
    },
  });

  const authorized = authorizedSender(tokens, timeoutMs, (token) => ({
    ...countryHeaders,
    Accept: 'application/json',
    Authorization: `Bearer ${token}`,
  }));

  async function requestPayment(req: PaymentRequest): Promise<SubmitResult> {
    const refused = checkPaymentRequest(req, airtelMethod.currencies);
    if (refused) return refused;
    if (req.currency !== config.currency) {
      return providerError(`this Airtel account takes ${config.currency}, not ${req.currency}`);
    }
    const sent = await submit(
      () =>
        authorized(`${base}/merchant/v1/payments/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            reference: cleanDescription(req.description, REFERENCE_MAX),
            subscriber: {
              country: config.country,
              currency: config.currency,
              msisdn: airtelMsisdn(req.msisdn),
            },
            transaction: {
              amount: Number(formatMajorAmount(req.amount, CURRENCY_EXPONENT[req.currency]!)),
              country: config.country,
              currency: config.currency,
              id: req.reference,
            },
          }),
        }),
      { method: 'airtel', name: NAME, action: 'payment request', reference: req.reference, log },
    );
    // No token, so the push was never sent: nothing exists at Airtel.
    if ('notSent' in sent) return providerError(sent.notSent);
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    if (status === 401) {
      log.error({ provider: 'airtel', status }, 'Airtel Money refused our token twice');
      return providerError(`${NAME} refused our credentials (401)${describeBody(body)}`);
    }
    if (status >= 500) {
      log.warn({ provider: 'airtel', reference: req.reference, status }, 'payment push: provider error');
      return providerError(`${NAME} is unavailable (${status}); nothing was created`);
    }
    const mapped = mapAirtelSubmit(body);
    if (status >= 200 && status < 300) {
      // A 2xx we cannot read may still have created the payment: poll rather than guess.
      return mapped ?? { kind: 'unknown', message: `${NAME} answered ${status} without a readable status` };
    }
    if (status >= 400 && status < 500) {
      if (mapped && mapped.kind !== 'submitted') {
        if (mapped.kind === 'rejected') {
          log.warn(
            { provider: 'airtel', reference: req.reference, status, code: mapped.providerCode },
            'payment refused',
          );
        }
        return mapped;
      }
      return providerError(`${NAME} refused the request (${status})${describeBody(body)}`);
    }
    return { kind: 'unknown', message: `${NAME} answered the payment request with ${status}` };
  }

  /**
   * An enquiry under `path` (payments: a payment's, or a refund's under its own id; disbursements:
   * a partial refund's), read by `map`.
   */
  async function enquire<T>(
    path: 'payments' | 'disbursements',
    id: string,
    label: string,
    map: (body: unknown) => T | null,
  ): Promise<T> {
    const answer = await query(
      () => authorized(`${base}/standard/v1/${path}/${encodeURIComponent(id)}`, { method: 'GET' }),
      'airtel',
      label,
    );
    const { status, body } = answer;
    if (status === 401 || status === 403 || status >= 500) throw queryFailure('airtel', label, answer);
    const result = map(body);
    if (result) return result;
    if (status === 404) return { status: 'not_found' } as T;
    throw queryFailure('airtel', label, answer);
  }

  function getStatus(reference: string): Promise<StatusResult> {
    return enquire<StatusResult>('payments', reference, `${NAME} status enquiry`, mapAirtelEnquiry);
  }

  /** A part of the payment: not the refund API's (whole payments only), a disbursement to the payer. */
  const isPart = (req: RefundRequest) => req.amount < req.paymentAmount;

  async function requestRefund(req: RefundRequest): Promise<RefundSubmitResult> {
    const refused = checkRefundRequest(req);
    if (refused) return refused;
    if (isPart(req)) return disburse(req);
    if (!req.providerTransactionId) {
      // Airtel finds the payment to return only by its airtel_money_id.
      return { kind: 'rejected', message: 'the payment has no airtel_money_id to refund' };
    }
    const sent = await submit(
      () =>
        authorized(`${base}/standard/v1/payments/refund`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            transaction: { airtel_money_id: req.providerTransactionId, id: req.reference },
          }),
        }),
      { method: 'airtel', name: NAME, action: 'refund', reference: req.reference, log },
    );
    if ('notSent' in sent) return { kind: 'rejected', message: sent.notSent };
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    if (status >= 500) {
      return { kind: 'rejected', message: `${NAME} is unavailable (${status}); the refund was not taken` };
    }
    const mapped = mapAirtelRefundSubmit(body);
    if (status >= 200 && status < 300) {
      return mapped ?? { kind: 'unknown', message: `${NAME} answered ${status} without a readable status` };
    }
    if (mapped && mapped.kind === 'rejected') return mapped;
    return { kind: 'rejected', message: `${NAME} refused the refund (${status})${describeBody(body)}` };
  }

  /** A part of a payment, paid to the payer's number; our refund reference is its transaction.id. */
  async function disburse(req: RefundRequest): Promise<RefundSubmitResult> {
    if (!disbursement) return { kind: 'rejected', message: AIRTEL_PARTIAL_REFUSED };
    if (!/^256\d{9}$/.test(req.msisdn)) {
      return {
        kind: 'rejected',
        message: "the payer's number is not known (erased?): nothing to pay back to",
      };
    }
    const sent = await submit(
      () =>
        authorized(`${base}/standard/v1/disbursements/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            payee: { msisdn: airtelMsisdn(req.msisdn), wallet_type: 'NORMAL' },
            // Names the payment, so Airtel's statement ties the payout to what it returns.
            reference: `Refund ${req.paymentReference}`,
            pin: encryptAirtelPin(disbursement.pin, disbursement.key),
            transaction: {
              amount: Number(formatMajorAmount(req.amount, CURRENCY_EXPONENT[req.currency]!)),
              id: req.reference,
              type: 'B2C',
            },
          }),
        }),
      { method: 'airtel', name: NAME, action: 'disbursement', reference: req.reference, log },
    );
    if ('notSent' in sent) return { kind: 'rejected', message: sent.notSent };
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    if (status >= 500) {
      return {
        kind: 'rejected',
        message: `${NAME} is unavailable (${status}); the disbursement was not taken`,
      };
    }
    const mapped = mapAirtelDisbursementSubmit(body);
    if (status >= 200 && status < 300) {
      return mapped ?? { kind: 'unknown', message: `${NAME} answered ${status} without a readable status` };
    }
    if (mapped && mapped.kind === 'rejected') return mapped;
    return { kind: 'rejected', message: `${NAME} refused the disbursement (${status})${describeBody(body)}` };
  }

  function getRefundStatus(req: RefundRequest): Promise<RefundStatusResult> {
    if (isPart(req)) {
      return enquire<RefundStatusResult>(
        'disbursements',
        req.reference,
        `${NAME} disbursement enquiry`,
        mapAirtelDisbursementEnquiry,
      );
    }
    return enquire<RefundStatusResult>(
      'payments',
      req.reference,
      `${NAME} refund enquiry`,
      mapAirtelRefundEnquiry,
    );
  }

  return {
    method: 'airtel',
    ...(disbursement ? {} : { partialRefundsRefused: AIRTEL_PARTIAL_REFUSED }),
    requestPayment,
    getStatus,
    requestRefund,
    getRefundStatus,
  };
}
