// Client for Flutterwave's hosted payment ("Flutterwave Standard"): we create a payment and send the
// buyer to Flutterwave's page, where the card is typed; card data never reaches us (SAQ A, see
// docs/decisions/card-payments-hosted.md). Verify-by-reference is the only answer that pays; the
// buyer's return and the webhook (flutterwave-status.ts) only prompt a verify. Refunds name the
// transaction's id and are followed by the refund's own id.
import {
  CURRENCY_EXPONENT,
  MIN_AMOUNT,
  PaymentProviderError,
  checkRefundRequest,
  cleanDescription,
  formatMajorAmount,
  isPaymentReference,
  type ProviderFailureKind,
  type RefundRequest,
  type RefundStatusResult,
  type RefundSubmitResult,
  type StatusResult,
  providerError,
} from '../../provider.ts';
import {
  describeBody,
  query,
  queryFailure,
  sendRequest,
  silentLog,
  submit,
  type AdapterOptions,
} from '../../provider-http.ts';
import { readRefundStatus, readVerify, type ExpectedPayment } from './flutterwave-status.ts';

/** Live settings (types only: reading them from the environment comes with the wiring). */
export interface FlutterwaveConfig {
  /** https://api.flutterwave.com, or the simulator's http://127.0.0.1:PORT/flutterwave */
  baseUrl: string;
  /** the secret key (FLWSECK-...), sent as the bearer on every call */
  secretKey: string;
  /** the secret hash set in Flutterwave's dashboard, which webhooks carry as `verif-hash` */
  secretHash: string;
  /** deadline of each HTTP call; default 15 000 ms */
  timeoutMs?: number;
}

export interface HostedPaymentRequest {
  /** our UUID v4, sent as tx_ref */
  reference: string;
  /** minor units */
  amount: number;
  currency: string;
  /** where Flutterwave sends the buyer back, with ?status, tx_ref and transaction_id */
  redirectUrl: string;
  customer: { email: string; name: string; phone: string | null };
  /** shown on the hosted page */
  title: string;
  meta?: Readonly<Record<string, string>>;
}

export type CreatePaymentResult =
  /** send the buyer to `link` */
  | { kind: 'created'; link: string }
  /** refused, nothing created */
  | { kind: 'rejected'; failureKind: ProviderFailureKind; message: string }
  /** no answer: the payment may exist, so verify (and create again only under the same tx_ref) */
  | { kind: 'unknown'; message: string };

export type FlutterwaveRefundSubmit =
  | Exclude<RefundSubmitResult, { kind: 'submitted' }>
  /** `refundId`: Flutterwave's id of the refund, which its status is asked by */
  | { kind: 'submitted'; refundId: string };

export interface FlutterwaveClient {
  createPayment(req: HostedPaymentRequest): Promise<CreatePaymentResult>;
  /** The payment's state by our reference; rejects with PaymentProviderError when it could not be asked. */
  verify(expected: ExpectedPayment): Promise<StatusResult>;
  /** Refunds `amount` (the whole payment or a part) of the transaction `providerTransactionId`. */
  requestRefund(req: RefundRequest): Promise<FlutterwaveRefundSubmit>;
  getRefundStatus(refundId: string): Promise<RefundStatusResult>;
}

const METHOD = 'card';
const NAME = 'Flutterwave';
const TITLE_MAX = 60;

/** Refusals before any network call; a reference that is not a UUID v4 is a caller bug. */
function checkHostedRequest(req: HostedPaymentRequest): CreatePaymentResult | null {
  if (!isPaymentReference(req.reference)) {
    throw new TypeError(`payment reference must be a UUID v4, got "${String(req.reference).slice(0, 64)}"`);
  }
  const minimum = MIN_AMOUNT[req.currency];
  if (minimum === undefined) return providerError(`currency ${req.currency} is not supported`);
  if (!Number.isSafeInteger(req.amount)) return providerError('amount must be a whole number of minor units');
  if (req.amount < minimum) return providerError('amount below the provider minimum');
  if (!/^https?:\/\//.test(req.redirectUrl)) return providerError('the redirect URL must be http(s)');
  return null;
}

export function createFlutterwaveClient(
  config: FlutterwaveConfig,
  options: AdapterOptions = {},
): FlutterwaveClient {
  const log = options.log ?? silentLog;
  const timeoutMs = config.timeoutMs ?? 15_000;
  const base = config.baseUrl.replace(/\/+$/, '');
  const headers = {
    Accept: 'application/json',
    Authorization: `Bearer ${config.secretKey}`,
  };
  const send = (path: string, init: RequestInit = {}) =>
    sendRequest(`${base}${path}`, { ...init, headers: { ...headers, ...init.headers } }, timeoutMs);
  const postJson = (path: string, body: unknown) =>
    send(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function createPayment(req: HostedPaymentRequest): Promise<CreatePaymentResult> {
    const refused = checkHostedRequest(req);
    if (refused) return refused;
    const sent = await submit(
      () =>
        postJson('/v3/payments', {
          tx_ref: req.reference,
          amount: Number(formatMajorAmount(req.amount, CURRENCY_EXPONENT[req.currency]!)),
          currency: req.currency,
          redirect_url: req.redirectUrl,
          payment_options: 'card',
          customer: {
            email: req.customer.email,
            name: req.customer.name,
            ...(req.customer.phone ? { phonenumber: req.customer.phone } : {}),
          },
          customizations: { title: cleanDescription(req.title, TITLE_MAX) },
          meta: req.meta ?? {},
        }),
      { method: METHOD, name: NAME, action: 'payment creation', reference: req.reference, log },
    );
    if ('notSent' in sent) return providerError(sent.notSent);
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    const answer = body as { status?: unknown; data?: { link?: unknown } } | undefined;
    if (status === 401 || status === 403) {
      log.error({ provider: METHOD, status }, 'Flutterwave refused our secret key');
      return providerError(`${NAME} refused our secret key (${status})${describeBody(body)}`);
    }
    if (status >= 500) {
      log.warn({ provider: METHOD, reference: req.reference, status }, 'payment creation: provider error');
      return providerError(`${NAME} is unavailable (${status}); nothing was created`);
    }
    if (status >= 400 || answer?.status === 'error') {
      return providerError(`${NAME} refused the payment (${status})${describeBody(body)}`);
    }
    const link = answer?.data?.link;
    if (status >= 200 && status < 300 && answer?.status === 'success' && typeof link === 'string') {
      if (/^https?:\/\//.test(link)) return { kind: 'created', link };
    }
    // A 2xx we cannot read may have created the payment: verify rather than guess.
    return { kind: 'unknown', message: `${NAME} answered ${status} without a payment link` };
  }

  async function verify(expected: ExpectedPayment): Promise<StatusResult> {
    const label = `${NAME} verify`;
    const answer = await query(
      () => send(`/v3/transactions/verify_by_reference?tx_ref=${encodeURIComponent(expected.reference)}`),
      METHOD,
      label,
    );
    const { status, body } = answer;
    if (status === 401 || status === 403 || status >= 500) throw queryFailure(METHOD, label, answer);
    const reading = readVerify(status, body, expected);
    if (reading.status !== 'unreadable') return reading;
    throw new PaymentProviderError(
      METHOD,
      'bad_response',
      `${label} answered ${status}: ${reading.why}`,
      status,
    );
  }

  async function requestRefund(req: RefundRequest): Promise<FlutterwaveRefundSubmit> {
    const refused = checkRefundRequest(req);
    if (refused) return refused;
    if (req.amount > req.paymentAmount)
      return { kind: 'rejected', message: 'a refund may not exceed the payment' };
    const id = req.providerTransactionId;
    if (!id || !/^\d{1,20}$/.test(id)) {
      return { kind: 'rejected', message: 'the payment has no Flutterwave transaction id to refund' };
    }
    const sent = await submit(
      () =>
        postJson(`/v3/transactions/${id}/refund`, {
          amount: Number(formatMajorAmount(req.amount, CURRENCY_EXPONENT[req.currency]!)),
          // Flutterwave keeps no reference of ours on a refund; the note ties it to ours by hand.
          comments: `Refund ${req.reference}`,
        }),
      { method: METHOD, name: NAME, action: 'refund', reference: req.reference, log },
    );
    if ('notSent' in sent) return { kind: 'rejected', message: sent.notSent };
    if ('unknown' in sent) return { kind: 'unknown', message: sent.unknown };
    const { status, body } = sent.answer;
    if (status >= 500) {
      return { kind: 'rejected', message: `${NAME} is unavailable (${status}); the refund was not taken` };
    }
    const answer = body as { status?: unknown; data?: { id?: unknown } } | undefined;
    const refundId = answer?.data?.id;
    if (status >= 200 && status < 300 && answer?.status === 'success') {
      if (typeof refundId === 'number' || (typeof refundId === 'string' && refundId !== '')) {
        return { kind: 'submitted', refundId: String(refundId) };
      }
      return { kind: 'unknown', message: `${NAME} took the refund without naming it` };
    }
    if (status >= 200 && status < 300 && answer?.status !== 'error') {
      return { kind: 'unknown', message: `${NAME} answered ${status} without a readable status` };
    }
    return { kind: 'rejected', message: `${NAME} refused the refund (${status})${describeBody(body)}` };
  }

  async function getRefundStatus(refundId: string): Promise<RefundStatusResult> {
    if (!/^\d{1,20}$/.test(refundId)) throw new TypeError('a Flutterwave refund id is a number');
    const label = `${NAME} refund status`;
    const answer = await query(() => send(`/v3/refunds/${refundId}`), METHOD, label);
    const { status, body } = answer;
    if (status === 401 || status === 403 || status >= 500) throw queryFailure(METHOD, label, answer);
    const result = readRefundStatus(status, body);
    if (result) return result;
    throw queryFailure(METHOD, label, answer);
  }

  return { createPayment, verify, requestRefund, getRefundStatus };
}
