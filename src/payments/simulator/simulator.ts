// The provider simulator: one small node:http server speaking the MTN MoMo Collection contract
// under /mtn (mtn-momo.ts), the Airtel Money Open API under /airtel (airtel.ts), Safaricom's Daraja
// (M-Pesa) under /mpesa (mpesa.ts) and Flutterwave's hosted card payments under /flutterwave
// (flutterwave.ts), with fixed test credentials, so the real adapters run against it over real
// HTTP. Test numbers and cards choose outcomes (scenarios.ts); every delay is multiplied by a time
// scale so tests run the five-minute scenarios in about a second. This file starts the server and
// gives tests their view of it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AirtelConfig } from '../methods/airtel/airtel.ts';
import type { FlutterwaveConfig } from '../methods/card/flutterwave.ts';
import type { MtnConfig } from '../methods/momo/mtn-momo.ts';
import type { DarajaConfig } from '../methods/mpesa/daraja-config.ts';
import { silentLog, type ProviderLog } from '../provider-http.ts';
import { airtelRules, handleAirtelRequest } from './airtel.ts';
import { SIMULATOR_CREDENTIALS } from './credentials.ts';
import { createMpesaSimulator, type MpesaSimulator } from './mpesa.ts';
import { createFlutterwaveSim, handleFlutterwaveRequest, type FlutterwaveWebhook } from './flutterwave.ts';
import { handleMtnRequest, mtnRules } from './mtn-momo.ts';
import { HttpError, sendJson } from './sim-http.ts';
import { createSimulatorState, type CallbackDelivery, type Submission } from './sim-state.ts';
import { settleTransaction } from './sim-transactions.ts';

export { SIMULATOR_CREDENTIALS } from './credentials.ts';
export type { CallbackDelivery, Submission } from './sim-state.ts';
export type { MpesaDelivery, MpesaPayment, MpesaReversal, MpesaSimulator } from './mpesa.ts';
export type { MpesaB2cPayment } from './mpesa-b2c.ts';

export interface SimulatorOptions {
  /** 0 (default) = any free port */
  port?: number;
  host?: string;
  /** multiplies every delay; default 1 (0.05 = twenty times faster) */
  timeScale?: number;
  /** where Airtel callbacks go (Airtel has it registered, not per request); `{reference}` is replaced */
  airtelCallbackUrl?: string;
  /** where Flutterwave's charge.completed webhooks go (with the verif-hash header); none when absent */
  flutterwaveWebhookUrl?: string;
  /** lifetime of issued access tokens, in seconds (not scaled); default 3600 */
  tokenTtlSeconds?: number;
  log?: ProviderLog;
}

export interface Simulator {
  /** http://host:port; MTN lives under /mtn, Airtel under /airtel */
  url: string;
  /** adapter configurations with the test credentials */
  mtn: MtnConfig;
  airtel: AirtelConfig;
  /** Daraja (M-Pesa) with the test consumer key, shortcode 174379, passkey and initiator */
  daraja: DarajaConfig;
  /** what the simulator's Daraja saw and sent */
  mpesa: MpesaSimulator;
  /** Flutterwave (cards, hosted page) under /flutterwave */
  flutterwave: FlutterwaveConfig;
  close(): Promise<void>;
  /** every payment request that passed authentication and validation, in order */
  submissions(): Submission[];
  callbacks(): CallbackDelivery[];
  tokenRequests(): { mtn: number; airtel: number };
  /** every HTTP request received, of any kind */
  requestCount(): number;
  /** forget every issued token (M-Pesa's too), so the next call with one gets 401 */
  revokeTokens(): void;
  /** status queries received for a reference (Flutterwave verifies too), whatever their answer */
  statusQueries(reference: string): number;
  /**
   * Test control: the payer approves a payment that is still pending, now, whatever its number
   * chose (09 included), with no callback. False when no such pending payment exists.
   */
  approve(reference: string): boolean;
  /** Flutterwave webhook deliveries, oldest first */
  flutterwaveWebhooks(): FlutterwaveWebhook[];
  /** Refunds received (both networks), oldest first, with their state now. */
  refunds(): Array<{
    network: 'momo' | 'airtel';
    reference: string;
    paymentReference: string;
    /** as the network's request gave it: MTN a major-unit string, Airtel the payment's number */
    amount: string | number;
    state: string;
  }>;
}

/** Daraja's adapter settings against a simulator at `url`, with its test credentials. */
/** The simulator's Flutterwave at `url`, with its test secret key and webhook hash. */
export function simulatedFlutterwave(url: string): FlutterwaveConfig {
  const { secretKey, secretHash } = SIMULATOR_CREDENTIALS.flutterwave;
  return { baseUrl: `${url}/flutterwave`, secretKey, secretHash };
}

export function simulatedDaraja(url: string): DarajaConfig {
  const { mpesa } = SIMULATOR_CREDENTIALS;
  return {
    baseUrl: `${url}/mpesa`,
    consumerKey: mpesa.consumerKey,
    consumerSecret: mpesa.consumerSecret,
    shortcode: mpesa.shortcode,
    passkey: mpesa.passkey,
    transactionType: 'CustomerPayBillOnline',
    reversal: { initiator: mpesa.initiator, securityCredential: mpesa.securityCredential },
    timeoutMs: 15_000,
  };
}

/** Parses SIMULATOR_TIME_SCALE (main.ts) and checks the timeScale option. */
export function timeScaleFrom(value: string | number | undefined): number {
  if (value === undefined || value === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`SIMULATOR_TIME_SCALE must be a positive number, got "${value}"`);
  }
  return scale;
}

const NETWORK_RULES = { momo: mtnRules, airtel: airtelRules };

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const log = options.log ?? silentLog;
  const timeScale = timeScaleFrom(options.timeScale);
  const host = options.host ?? '127.0.0.1';
  const creds = SIMULATOR_CREDENTIALS;
  const state = createSimulatorState({
    log,
    timeScale,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    airtelCallbackUrl: options.airtelCallbackUrl,
  });
  const mpesa = createMpesaSimulator(state);
  const flutterwave = createFlutterwaveSim(options.flutterwaveWebhookUrl);
  let url = '';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    state.requests++;
    const path = new URL(req.url ?? '/', 'http://simulator').pathname;
    if (path.startsWith('/mtn/'))
      return handleMtnRequest(state, { req, res, path: path.slice('/mtn'.length) });
    if (path.startsWith('/airtel/')) {
      return handleAirtelRequest(state, { req, res, path: path.slice('/airtel'.length) });
    }
    if (path.startsWith('/mpesa/')) return mpesa.handle({ req, res, path: path.slice('/mpesa'.length) });
    if (path.startsWith('/flutterwave/')) {
      return handleFlutterwaveRequest(state, flutterwave, {
        req,
        res,
        path: path.slice('/flutterwave'.length),
      });
    }
    if (req.method === 'GET' && path === '/') {
      return sendJson(res, 200, {
        simulator: 'payments (MTN MoMo Collection, Airtel Money Open API, M-Pesa Daraja, Flutterwave)',
        mtn: `${url}/mtn`,
        airtel: `${url}/airtel`,
        mpesa: `${url}/mpesa`,
        flutterwave: `${url}/flutterwave`,
        time_scale: timeScale,
      });
    }
    throw new HttpError(404, {
      message:
        'Not found: MTN lives under /mtn, Airtel under /airtel, M-Pesa under /mpesa, Flutterwave under /flutterwave',
    });
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
      disbursement: { subscriptionKey: creds.mtn.disbursement.subscriptionKey },
      timeoutMs: 15_000,
    },
    airtel: {
      baseUrl: `${url}/airtel`,
      clientId: creds.airtel.clientId,
      clientSecret: creds.airtel.clientSecret,
      country: creds.airtel.country,
      currency: creds.airtel.currency,
      disbursement: { ...creds.airtel.disbursement },
      timeoutMs: 15_000,
    },
    daraja: simulatedDaraja(url),
    mpesa: {
      tokenRequests: mpesa.tokenRequests,
      payments: mpesa.payments,
      reversals: mpesa.reversals,
      b2cPayments: mpesa.b2cPayments,
      deliveries: mpesa.deliveries,
      approve: mpesa.approve,
    },
    flutterwave: { ...simulatedFlutterwave(url), timeoutMs: 15_000 },
    async close() {
      if (state.closed) return;
      state.closed = true;
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
      state.callbackAborter.abort();
      for (const res of state.held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    submissions: () => state.submissions.map((s) => ({ ...s })),
    callbacks: () => state.deliveries.map((d) => ({ ...d })),
    tokenRequests: () => ({ ...state.tokenCounts }),
    requestCount: () => state.requests,
    revokeTokens: () => {
      state.tokens.clear();
      mpesa.revokeTokens();
    },
    flutterwaveWebhooks: () => flutterwave.webhooks.map((w) => ({ ...w })),
    statusQueries: (reference) => state.queries.get(reference) ?? 0,
    refunds: () =>
      [...state.refunds.values()].map(({ network, reference, paymentReference, amount, state: s }) => ({
        network,
        reference,
        paymentReference,
        amount,
        state: s,
      })),
    approve(reference) {
      const txn =
        state.transactions.get(`momo:${reference}`) ?? state.transactions.get(`airtel:${reference}`);
      if (!txn || txn.state !== 'pending') return false;
      txn.scenario = { ...txn.scenario, decline: null, statusShowsFinal: true, callbacks: 0 };
      settleTransaction(state, NETWORK_RULES[txn.network], txn);
      return true;
    },
  };
}
