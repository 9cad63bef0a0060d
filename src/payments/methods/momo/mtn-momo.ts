// Adapter for the MTN MoMo Collection API (method `momo`): access token, request-to-pay with our
// UUID as X-Reference-Id, status query. MTN calls back with PUT to the X-Callback-Url we send.
// Refunds go through the Disbursement product (its own subscription key and token):
// POST /disbursement/v1_0/refund with referenceIdToRefund, GET /disbursement/v1_0/refund/{id}.
import { systemClock } from '../../../platform/index.ts';
import { MTN_REASONS, mapMtnReason, mapMtnRefundStatus, mapMtnStatus } from './mtn-momo-status.ts';
import {
  CURRENCY_EXPONENT,
  PaymentProviderError,
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
import { momoMethod } from './momo-method.ts';

export interface MtnConfig {
  /** e.g. https://proxy.momoapi.mtn.com, or the simulator's http://127.0.0.1:PORT/mtn */
  baseUrl: string;
  /** Ocp-Apim-Subscription-Key of the Collection product */
  subscriptionKey: string;
  /** API user (a UUID) and its key, sent as Basic credentials to the token endpoint */
  apiUser: string;
  apiKey: string;
  /** X-Target-Environment, e.g. mtnuganda (sandbox: sandbox) */
  targetEnvironment: string;
  /** deadline of each HTTP call; default 15 000 ms */
  timeoutMs?: number;
  /**
   * The Disbursement product's credentials, used for refunds (MTN issues one subscription key per
   * product, and may issue a separate API user); without them refunds use the Collection ones.
   */
  disbursement?: { subscriptionKey: string; apiUser?: string; apiKey?: string };
}

const NAME = 'MTN MoMo';
/** MTN refuses long payer messages; 160 characters is within every environment we know of. */
const NOTE_MAX = 160;

export function createMtnMomoProvider(config: MtnConfig, options: AdapterOptions = {}): PaymentProvider {
  const log = options.log ?? silentLog;
  const timeoutMs = config.timeoutMs ?? 15_000;
  const base = config.baseUrl.replace(/\/+$/, '');

  /** One token cache per MTN product: each has its own subscription key, token path and user. */
  function productClient(product: 'collection' | 'disbursement') {
    const keys =
      product === 'disbursement'
        ? {
            subscriptionKey: config.disbursement?.subscriptionKey ?? config.subscriptionKey,
            apiUser: config.disbursement?.apiUser ?? config.apiUser,
            apiKey: config.disbursement?.apiKey ?? config.apiKey,
          }
        : { subscriptionKey: config.subscriptionKey, apiUser: config.apiUser, apiKey: config.apiKey };
    const tokens = createTokenCache({
      clock: options.clock ?? systemClock,
      fetchToken: async () => {
        const basic = Buffer.from(`${keys.apiUser}:${keys.apiKey}`).toString('base64');
        const outcome = await sendRequest(
          `${base}/${product}/token/`,
          {
            method: 'POST',
            headers: { Authorization: `Basic ${basic}`, 'Ocp-Apim-Subscription-Key': keys.subscriptionKey },
          },
          timeoutMs,
        );
        return readIssuedToken('momo', NAME, outcome, log);
      },
    });

    return authorizedSender(tokens, timeoutMs, (token) => ({
      Authorization: `Bearer ${token}`,
      'X-Target-Environment': config.targetEnvironment,
      'Ocp-Apim-Subscription-Key': keys.subscriptionKey,
    }));
  }
  const authorized = productClient('collection');
  const disbursing = productClient('disbursement');

  async function requestPayment(req: PaymentRequest): Promise<SubmitResult> {
    const refused = checkPaymentRequest(req, momoMethod.currencies);
    if (refused) return refused;
    const note = cleanDescription(req.description, NOTE_MAX);
    const sent = await submit(
      () =>
        authorized(`${base}/collection/v1_0/requesttopay`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'X-Reference-Id': req.reference,
            ...(req.callbackUrl ? { 'X-Callback-Url': req.callbackUrl } : {}),
          },
          body: JSON.stringify({
            amount: formatMajorAmount(req.amount, CURRENCY_EXPONENT[req.currency]!),
            currency: req.currency,
            externalId: req.reference,
            payer: { partyIdType: 'MSISDN', partyId: req.msisdn },
            payerMessage: note,
            payeeNote: note,
          }),
        }),
      { method: 'momo', name: NAME, action: 'request to pay', reference: req.reference, log },
    );
    // No token, so the request to pay was never sent: nothing exists at MTN.
    if ('notSent' in sent) return providerError(sent.notSent);
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    if (status >= 200 && status < 300) return { kind: 'submitted' };
    if (status === 409) return { kind: 'already_submitted' };
    if (status === 401) {
      log.error({ provider: 'momo', status }, 'MTN MoMo refused our token twice');
      return providerError(
        `${NAME} refused our credentials (401)${describeBody(body)}; check the subscription key`,
      );
    }
    if (status >= 400 && status < 500) {
      const code = (body as { code?: unknown } | undefined)?.code;
      log.warn({ provider: 'momo', reference: req.reference, status, code }, 'request to pay refused');
      if (typeof code === 'string' && MTN_REASONS[code]) return { kind: 'rejected', ...mapMtnReason(code) };
      return providerError(`${NAME} refused the request (${status})${describeBody(body)}`);
    }
    if (status >= 500) {
      log.warn({ provider: 'momo', reference: req.reference, status }, 'request to pay: provider error');
      return providerError(`${NAME} is unavailable (${status}); nothing was created`);
    }
    // 1xx/3xx: not an answer MTN gives; the request may have been taken, so learn by polling.
    return { kind: 'unknown', message: `${NAME} answered the request to pay with ${status}` };
  }

  async function getStatus(reference: string): Promise<StatusResult> {
    const label = `${NAME} status query`;
    const answer = await query(
      () =>
        authorized(`${base}/collection/v1_0/requesttopay/${encodeURIComponent(reference)}`, {
          method: 'GET',
        }),
      'momo',
      label,
    );
    const { status, body } = answer;
    if (status === 200) {
      const result = mapMtnStatus(body);
      if (result) return result;
      throw new PaymentProviderError(
        'momo',
        'bad_response',
        `${NAME} status query: no status in the answer`,
        200,
      );
    }
    if (status === 404) return { status: 'not_found' };
    throw queryFailure('momo', label, answer);
  }

  async function requestRefund(req: RefundRequest): Promise<RefundSubmitResult> {
    const refused = checkRefundRequest(req);
    if (refused) return refused;
    const note = cleanDescription(req.description, NOTE_MAX);
    const sent = await submit(
      () =>
        disbursing(`${base}/disbursement/v1_0/refund`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Reference-Id': req.reference },
          body: JSON.stringify({
            amount: formatMajorAmount(req.amount, CURRENCY_EXPONENT[req.currency]!),
            currency: req.currency,
            externalId: req.reference,
            payerMessage: note,
            payeeNote: note,
            referenceIdToRefund: req.paymentReference,
          }),
        }),
      { method: 'momo', name: NAME, action: 'refund', reference: req.reference, log },
    );
    if ('notSent' in sent) return { kind: 'rejected', message: sent.notSent };
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    // 409: this reference was taken already, so it is our own resend: ask for its status.
    if ((status >= 200 && status < 300) || status === 409) return { kind: 'submitted' };
    if (status >= 400 && status < 500) {
      const code = (body as { code?: unknown } | undefined)?.code;
      log.warn({ provider: 'momo', reference: req.reference, status, code }, 'refund refused');
      return {
        kind: 'rejected',
        message: `${NAME} refused the refund (${status})${describeBody(body)}`,
        ...(typeof code === 'string' ? { providerCode: code.slice(0, 60) } : {}),
      };
    }
    if (status >= 500) {
      return { kind: 'rejected', message: `${NAME} is unavailable (${status}); the refund was not taken` };
    }
    return { kind: 'unknown', message: `${NAME} answered the refund with ${status}` };
  }

  async function getRefundStatus(req: RefundRequest): Promise<RefundStatusResult> {
    const label = `${NAME} refund status`;
    const answer = await query(
      () =>
        disbursing(`${base}/disbursement/v1_0/refund/${encodeURIComponent(req.reference)}`, {
          method: 'GET',
        }),
      'momo',
      label,
    );
    const { status, body } = answer;
    if (status === 200) {
      const result = mapMtnRefundStatus(body);
      if (result) return result;
      throw new PaymentProviderError('momo', 'bad_response', `${NAME} refund status: no status`, 200);
    }
    if (status === 404) return { status: 'not_found' };
    throw queryFailure('momo', label, answer);
  }

  return { method: 'momo', requestPayment, getStatus, requestRefund, getRefundStatus };
}
