// The provider simulator: one small node:http server speaking the MTN MoMo Collection contract
// under /mtn and the Airtel Money Open API under /airtel, with fixed test credentials, so the real
// adapters run against it over real HTTP. Test numbers choose outcomes (scenarios.ts); every
// delay is multiplied by a time scale so tests run the five-minute scenarios in about a second.
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AirtelConfig } from '../airtel.ts';
import type { MtnConfig } from '../mtn-momo.ts';
import { isPaymentReference, type PaymentMethod } from '../provider.ts';
import { silentLog, type ProviderLog } from '../provider-http.ts';
import { scenarioFor, type Scenario } from './scenarios.ts';

/** Fixed test credentials: the simulator accepts these and nothing else. */
export const SIMULATOR_CREDENTIALS = Object.freeze({
  mtn: Object.freeze({
    subscriptionKey: 'sim-mtn-subscription-key-0001',
    apiUser: '6f1c3a52-7d2e-4b8a-9c41-0e5d2f7a8b10',
    apiKey: 'sim-mtn-api-key-0001',
    targetEnvironment: 'mtnuganda',
  }),
  airtel: Object.freeze({
    clientId: 'sim-airtel-client-0001',
    clientSecret: 'sim-airtel-secret-0001',
    country: 'UG',
    currency: 'UGX',
  }),
});

export interface SimulatorOptions {
  /** 0 (default) = any free port */
  port?: number;
  host?: string;
  /** multiplies every delay; default SIMULATOR_TIME_SCALE or 1 (0.05 = twenty times faster) */
  timeScale?: number;
  /** where Airtel callbacks go (Airtel has it registered, not per request); `{reference}` is replaced */
  airtelCallbackUrl?: string;
  /** lifetime of issued access tokens, in seconds (not scaled); default 3600 */
  tokenTtlSeconds?: number;
  log?: ProviderLog;
}

export interface Submission {
  network: PaymentMethod;
  reference: string;
  msisdn: string;
  /** as sent: MTN a decimal string, Airtel a number */
  amount: string | number;
  currency: string;
  callbackUrl: string | null;
  description: string;
  scenario: string;
  result: 'accepted' | 'duplicate' | 'outage' | 'response_lost';
  at: Date;
}

export interface CallbackDelivery {
  network: PaymentMethod;
  reference: string;
  url: string;
  /** HTTP status, or null when the delivery failed outright */
  status: number | null;
  error?: string;
}

export interface Simulator {
  /** http://host:port; MTN lives under /mtn, Airtel under /airtel */
  url: string;
  /** adapter configurations with the test credentials */
  mtn: MtnConfig;
  airtel: AirtelConfig;
  close(): Promise<void>;
  /** every payment request that passed authentication and validation, in order */
  submissions(): Submission[];
  callbacks(): CallbackDelivery[];
  tokenRequests(): { mtn: number; airtel: number };
  /** every HTTP request received, of any kind */
  requestCount(): number;
  /** forget every issued token, so the next call with one gets 401 */
  revokeTokens(): void;
  /** status queries received for a reference (both networks), whatever their answer */
  statusQueries(reference: string): number;
  /**
   * Test control: the payer approves a payment that is still pending, now, whatever its number
   * chose (09 included), with no callback. False when no such pending payment exists.
   */
  approve(reference: string): boolean;
}

interface Transaction {
  network: PaymentMethod;
  reference: string;
  scenario: Scenario;
  msisdn: string;
  amount: string | number;
  currency: string;
  payerMessage: string;
  payeeNote: string;
  callbackUrl: string | null;
  state: 'pending' | 'successful' | 'failed';
  providerId: string;
}

class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

const BODY_LIMIT = 64 * 1024;
/** A lost response is held until the client gives up; after this the socket is destroyed anyway. */
const HOLD_LOST_RESPONSE_MS = 30_000;
const CALLBACK_TIMEOUT_MS = 5_000;
/** Scenario 03's second callback follows the first by this much (scaled). */
const DUPLICATE_CALLBACK_AFTER_MS = 1_000;

export function timeScaleFrom(value: string | number | undefined): number {
  if (value === undefined || value === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`SIMULATOR_TIME_SCALE must be a positive number, got "${value}"`);
  }
  return scale;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Reads the body; past the limit the rest is drained (not stored) so the client can read the 413. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
      else if (size > 16 * BODY_LIMIT) req.destroy();
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > BODY_LIMIT) reject(new HttpError(413, { message: 'Request body too large' }));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

async function readJson(
  req: IncomingMessage,
  invalid: (message: string) => HttpError,
): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalid('The body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const obj = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const log = options.log ?? silentLog;
  const timeScale = options.timeScale ?? timeScaleFrom(process.env.SIMULATOR_TIME_SCALE);
  timeScaleFrom(timeScale);
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
  const host = options.host ?? '127.0.0.1';
  const creds = SIMULATOR_CREDENTIALS;

  const transactions = new Map<string, Transaction>();
  const tokens = new Map<string, { network: PaymentMethod; expiresAt: number }>();
  const submissions: Submission[] = [];
  const deliveries: CallbackDelivery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const held = new Set<ServerResponse>();
  const callbackAborter = new AbortController();
  const tokenCounts = { mtn: 0, airtel: 0 };
  const queries = new Map<string, number>();
  const countQuery = (reference: string) => queries.set(reference, (queries.get(reference) ?? 0) + 1);
  let requests = 0;
  let closed = false;
  let url = '';

  const scaled = (ms: number) => Math.max(0, Math.round(ms * timeScale));
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) fn();
    }, ms);
    timers.add(timer);
  };

  function issueToken(network: PaymentMethod): string {
    const now = Date.now();
    for (const [old, entry] of tokens) if (entry.expiresAt <= now) tokens.delete(old); // a long run stays small
    const token = `sim_${network}_${randomBytes(24).toString('base64url')}`;
    tokens.set(token, { network, expiresAt: now + tokenTtlSeconds * 1000 });
    return token;
  }

  function bearerValid(req: IncomingMessage, network: PaymentMethod): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
    const entry = match ? tokens.get(match[1]!) : undefined;
    return !!entry && entry.network === network && entry.expiresAt > Date.now();
  }

  // ---- views of a transaction ------------------------------------------------------------------

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
      ...(state === 'failed' ? { reason: txn.scenario.decline!.mtnReason } : {}),
    };
  }

  function airtelView(txn: Transaction, final: boolean) {
    const state = final || txn.scenario.statusShowsFinal ? txn.state : 'pending';
    const decline = txn.scenario.decline;
    if (state === 'successful') {
      return { status: 'TS', code: 'DP00800001001', message: 'Transaction is successful' };
    }
    if (state === 'failed' && decline)
      return { status: decline.airtelStatus, code: decline.airtelCode, message: decline.message };
    return { status: 'TIP', code: 'DP00800001006', message: 'Transaction in progress' };
  }

  // ---- settling and callbacks --------------------------------------------------------------------

  function settle(txn: Transaction): void {
    if (txn.state !== 'pending') return; // approved early by a test: the scenario's own end is moot
    txn.state = txn.scenario.decline ? 'failed' : 'successful';
    log.info({ network: txn.network, reference: txn.reference, state: txn.state }, 'simulated payment final');
    for (let i = 0; i < txn.scenario.callbacks; i++) {
      if (i === 0) void deliverCallback(txn);
      else later(scaled(DUPLICATE_CALLBACK_AFTER_MS) * i, () => void deliverCallback(txn));
    }
  }

  async function deliverCallback(txn: Transaction): Promise<void> {
    let url: string | null;
    let method: string;
    let body: unknown;
    if (txn.network === 'momo') {
      url = txn.callbackUrl;
      method = 'PUT';
      body = mtnView(txn, true);
    } else {
      url = options.airtelCallbackUrl?.replaceAll('{reference}', encodeURIComponent(txn.reference)) ?? null;
      method = 'POST';
      const view = airtelView(txn, true);
      body = {
        transaction: {
          id: txn.reference,
          message: view.message,
          status_code: view.status === 'TS' ? 'TS' : 'TF',
          airtel_money_id: txn.providerId,
        },
      };
    }
    if (!url) return;
    const delivery: CallbackDelivery = { network: txn.network, reference: txn.reference, url, status: null };
    try {
      const response = await fetch(url, {
        method,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(CALLBACK_TIMEOUT_MS), callbackAborter.signal]),
      });
      await response.arrayBuffer();
      delivery.status = response.status;
      if (response.status >= 300) log.warn({ ...delivery }, 'callback delivery refused (not retried)');
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
      if (!closed) log.warn({ ...delivery }, 'callback delivery failed (not retried)');
    }
    deliveries.push(delivery);
  }

  function create(
    txn: Omit<Transaction, 'state' | 'providerId'>,
    submission: Omit<Submission, 'scenario' | 'result' | 'at'>,
    res: ServerResponse,
    accept: () => void,
  ): void {
    const key = `${txn.network}:${txn.reference}`;
    const record = (result: Submission['result']) =>
      submissions.push({ ...submission, scenario: txn.scenario.code, result, at: new Date() });
    if (transactions.has(key)) {
      record('duplicate');
      throw duplicateError(txn.network);
    }
    if (txn.scenario.submit === 'outage') {
      record('outage');
      throw outageError(txn.network);
    }
    const providerId =
      txn.network === 'momo'
        ? String(randomInt(1_000_000_000, 9_999_999_999))
        : `SIM${randomInt(1e9, 1e10 - 1)}`;
    const full: Transaction = { ...txn, state: 'pending', providerId };
    transactions.set(key, full);
    if (txn.scenario.settleAfterMs !== null) later(scaled(txn.scenario.settleAfterMs), () => settle(full));
    if (txn.scenario.submit === 'lose_response') {
      record('response_lost');
      // Accepted, but the answer never comes: hold the socket until the client gives up.
      held.add(res);
      res.on('close', () => held.delete(res));
      later(HOLD_LOST_RESPONSE_MS, () => res.destroy());
      return;
    }
    record('accepted');
    accept();
  }

  function duplicateError(network: PaymentMethod): HttpError {
    return network === 'momo'
      ? new HttpError(409, {
          code: 'RESOURCE_ALREADY_EXIST',
          message: 'Duplicated reference id. Creation of resource failed.',
        })
      : new HttpError(200, {
          data: {},
          status: {
            code: '200',
            message: 'Duplicate transaction id',
            result_code: 'ESB000041',
            success: false,
          },
        });
  }

  function outageError(network: PaymentMethod): HttpError {
    return network === 'momo'
      ? new HttpError(503, { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable, try again later.' })
      : new HttpError(503, '<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
  }

  // ---- MTN MoMo Collection -----------------------------------------------------------------------

  const mtnBad = (message: string) => new HttpError(400, { code: 'BAD_REQUEST', message });

  function mtnCheckSubscription(req: IncomingMessage): void {
    if (header(req, 'ocp-apim-subscription-key') !== creds.mtn.subscriptionKey) {
      throw new HttpError(401, {
        statusCode: 401,
        message:
          'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
      });
    }
  }

  function mtnCheckApiCall(req: IncomingMessage): void {
    mtnCheckSubscription(req);
    if (!bearerValid(req, 'momo')) {
      throw new HttpError(401, {
        code: 'UNAUTHORIZED',
        message: 'Access token is missing, invalid or expired.',
      });
    }
    if (header(req, 'x-target-environment') !== creds.mtn.targetEnvironment) {
      throw new HttpError(403, {
        code: 'NOT_ALLOWED_TARGET_ENVIRONMENT',
        message: 'Access to target environment is forbidden.',
      });
    }
  }

  async function handleMtn(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === 'POST' && (path === '/collection/token/' || path === '/collection/token')) {
      mtnCheckSubscription(req);
      const basic = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
      const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
      if (decoded !== `${creds.mtn.apiUser}:${creds.mtn.apiKey}`) {
        throw new HttpError(401, { error: 'login_failed' });
      }
      tokenCounts.mtn++;
      return sendJson(res, 200, {
        access_token: issueToken('momo'),
        token_type: 'access_token',
        expires_in: tokenTtlSeconds,
      });
    }
    if (req.method === 'POST' && path === '/collection/v1_0/requesttopay') {
      mtnCheckApiCall(req);
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
      create(
        {
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
        { network: 'momo', reference, msisdn, amount, currency, callbackUrl, description: payerMessage },
        res,
        () => sendJson(res, 202, undefined),
      );
      return;
    }
    const status = /^\/collection\/v1_0\/requesttopay\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && status) {
      mtnCheckApiCall(req);
      countQuery(decodeURIComponent(status[1]!));
      const txn = transactions.get(`momo:${decodeURIComponent(status[1]!)}`);
      if (!txn)
        throw new HttpError(404, {
          code: 'RESOURCE_NOT_FOUND',
          message: 'Requested resource was not found.',
        });
      return sendJson(res, 200, mtnView(txn, false));
    }
    throw new HttpError(404, { statusCode: 404, message: 'Resource not found' });
  }

  // ---- Airtel Money Open API ---------------------------------------------------------------------

  const airtelEnvelope = (code: string, message: string, resultCode: string, extra: object = {}) => ({
    data: {},
    status: { code, message, result_code: resultCode, success: false, ...extra },
  });
  const airtelBad = (message: string, resultCode = 'ESB000008') =>
    new HttpError(400, airtelEnvelope('400', message, resultCode));

  function airtelCheckApiCall(req: IncomingMessage): void {
    if (!bearerValid(req, 'airtel')) {
      throw new HttpError(
        401,
        airtelEnvelope('401', 'Access token is missing, invalid or expired', 'ESB000001'),
      );
    }
    if (
      header(req, 'x-country') !== creds.airtel.country ||
      header(req, 'x-currency') !== creds.airtel.currency
    ) {
      throw airtelBad(`X-Country must be ${creds.airtel.country} and X-Currency ${creds.airtel.currency}`);
    }
  }

  async function handleAirtel(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === 'POST' && path === '/auth/oauth2/token') {
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
      if (body.client_id !== creds.airtel.clientId || body.client_secret !== creds.airtel.clientSecret) {
        throw new HttpError(401, {
          error: 'invalid_client',
          error_description: 'Client authentication failed.',
        });
      }
      tokenCounts.airtel++;
      // Airtel sends expires_in as a string.
      return sendJson(res, 200, {
        access_token: issueToken('airtel'),
        expires_in: String(tokenTtlSeconds),
        token_type: 'bearer',
      });
    }
    if (req.method === 'POST' && (path === '/merchant/v1/payments/' || path === '/merchant/v1/payments')) {
      airtelCheckApiCall(req);
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
      if (typeof id !== 'string' || id === '' || id.length > 64)
        throw airtelBad('transaction.id is required');
      if (currency !== creds.airtel.currency || country !== creds.airtel.country) {
        throw airtelBad('transaction currency and country must match the headers', 'ESB000035');
      }
      create(
        {
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
        {
          network: 'airtel',
          reference: id,
          msisdn,
          amount,
          currency,
          callbackUrl: null,
          description: reference,
        },
        res,
        () =>
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
      );
      return;
    }
    const enquiry = /^\/standard\/v1\/payments\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && enquiry) {
      airtelCheckApiCall(req);
      countQuery(decodeURIComponent(enquiry[1]!));
      const txn = transactions.get(`airtel:${decodeURIComponent(enquiry[1]!)}`);
      if (!txn) {
        return sendJson(
          res,
          200,
          airtelEnvelope('200', 'Transaction not found', 'ESB000045', { response_code: 'DP00800001025' }),
        );
      }
      const view = airtelView(txn, false);
      return sendJson(res, 200, {
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
    throw new HttpError(404, airtelEnvelope('404', 'Resource not found', 'ESB000001'));
  }

  // ---- the server --------------------------------------------------------------------------------

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    requests++;
    const path = new URL(req.url ?? '/', 'http://simulator').pathname;
    if (path.startsWith('/mtn/')) return handleMtn(req, res, path.slice('/mtn'.length));
    if (path.startsWith('/airtel/')) return handleAirtel(req, res, path.slice('/airtel'.length));
    if (req.method === 'GET' && path === '/') {
      return sendJson(res, 200, {
        simulator: 'mobile money (MTN MoMo Collection, Airtel Money Open API)',
        mtn: `${url}/mtn`,
        airtel: `${url}/airtel`,
        time_scale: timeScale,
      });
    }
    throw new HttpError(404, { message: 'Not found: MTN lives under /mtn, Airtel under /airtel' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof HttpError) {
        if (typeof error.body === 'string') {
          res.writeHead(error.status, { 'Content-Type': 'text/html' });
          res.end(error.body);
        } else {
          sendJson(res, error.status, error.body);
        }
        return;
      }
      log.error({ err: error }, 'simulator request failed');
      sendJson(res, 500, { message: 'simulator error' });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    mtn: {
      baseUrl: `${url}/mtn`,
      subscriptionKey: creds.mtn.subscriptionKey,
      apiUser: creds.mtn.apiUser,
      apiKey: creds.mtn.apiKey,
      targetEnvironment: creds.mtn.targetEnvironment,
      timeoutMs: 15_000,
    },
    airtel: {
      baseUrl: `${url}/airtel`,
      clientId: creds.airtel.clientId,
      clientSecret: creds.airtel.clientSecret,
      country: creds.airtel.country,
      currency: creds.airtel.currency,
      timeoutMs: 15_000,
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      callbackAborter.abort();
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    submissions: () => submissions.map((s) => ({ ...s })),
    callbacks: () => deliveries.map((d) => ({ ...d })),
    tokenRequests: () => ({ ...tokenCounts }),
    requestCount: () => requests,
    revokeTokens: () => tokens.clear(),
    statusQueries: (reference) => queries.get(reference) ?? 0,
    approve(reference) {
      const txn = transactions.get(`momo:${reference}`) ?? transactions.get(`airtel:${reference}`);
      if (!txn || txn.state !== 'pending') return false;
      txn.scenario = { ...txn.scenario, decline: null, statusShowsFinal: true, callbacks: 0 };
      settle(txn);
      return true;
    },
  };
}
