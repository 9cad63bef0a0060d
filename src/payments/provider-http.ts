// Plumbing shared by the adapters: one HTTP call with a deadline that never throws, and a cached
// access token refreshed before it expires (or once after a 401).
import { systemClock, traceCallOut, type Clock } from '../platform/index.ts';
import { PaymentProviderError } from './provider.ts';

export type HttpOutcome =
  | { ok: true; status: number; body: unknown; text: string }
  /** no HTTP answer: refused, reset, DNS, or the deadline passed */
  | { ok: false; timedOut: boolean; message: string };

/** Minimal structured logger (pino's Logger fits). Never pass credentials or tokens. */
export interface ProviderLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLog: ProviderLog = { info: () => {}, warn: () => {}, error: () => {} };

export interface AdapterOptions {
  log?: ProviderLog;
  clock?: Clock;
}

/**
 * One request with a deadline covering the response body too, in a CLIENT span when tracing is on
 * (it sends traceparent). Redirects are not followed: a provider that redirects a payment request
 * is misconfigured, and following could resend it.
 */
export async function sendRequest(url: string, init: RequestInit, timeoutMs: number): Promise<HttpOutcome> {
  return traceCallOut(
    init.method ?? 'GET',
    url,
    (traceHeaders) => fetchOutcome(url, init, traceHeaders, timeoutMs),
    (outcome) =>
      outcome.ok ? { status: outcome.status, error: null } : { status: null, error: outcome.message },
  );
}

function withHeaders(init: RequestInit, extra: Readonly<Record<string, string>>): RequestInit {
  const names = Object.keys(extra);
  if (names.length === 0) return init;
  const headers = new Headers(init.headers);
  for (const name of names) headers.set(name, extra[name]!);
  return { ...init, headers };
}

async function fetchOutcome(
  url: string,
  init: RequestInit,
  traceHeaders: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<HttpOutcome> {
  try {
    const response = await fetch(url, {
      ...withHeaders(init, traceHeaders),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    return { ok: true, status: response.status, body, text };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const timedOut = name === 'TimeoutError' || name === 'AbortError';
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const message = timedOut
      ? `no answer within ${timeoutMs} ms`
      : `${error instanceof Error ? error.message : String(error)}${cause}`;
    return { ok: false, timedOut, message };
  }
}

/** The provider's expires_in (a number or, for Airtel, a numeric string) in seconds; 60 if absent. */
function parseExpiresIn(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 60;
}

export interface IssuedToken {
  token: string;
  expiresInSeconds: number;
}

export interface TokenCache {
  /** a token believed valid, fetching one if needed (one fetch at a time) */
  get(): Promise<string>;
  /** forget `token` after the provider refused it (a newer token is kept) */
  invalidate(token: string): void;
}

/** Refreshes at `refreshAt` (80 %) of the lifetime, so a token never expires between check and use. */
export function createTokenCache(options: {
  fetchToken: () => Promise<IssuedToken>;
  clock?: Clock;
  refreshAt?: number;
}): TokenCache {
  const clock = options.clock ?? systemClock;
  const refreshAt = options.refreshAt ?? 0.8;
  let current: { token: string; refreshAfter: number } | null = null;
  let inFlight: Promise<string> | null = null;
  return {
    async get() {
      if (current && clock.now().getTime() < current.refreshAfter) return current.token;
      inFlight ??= options
        .fetchToken()
        .then((issued) => {
          current = {
            token: issued.token,
            refreshAfter: clock.now().getTime() + issued.expiresInSeconds * 1000 * refreshAt,
          };
          return issued.token;
        })
        .finally(() => {
          inFlight = null;
        });
      return inFlight;
    },
    invalidate(token) {
      if (current?.token === token) current = null;
    },
  };
}

/** Reads a token endpoint's answer (both providers use the OAuth field names); throws when unusable. */
export function readIssuedToken(
  method: string,
  name: string,
  outcome: HttpOutcome,
  log: ProviderLog,
): IssuedToken {
  const token = outcome.ok
    ? (outcome.body as { access_token?: unknown } | undefined)?.access_token
    : undefined;
  if (!outcome.ok || outcome.status !== 200 || typeof token !== 'string' || token === '') {
    const error = tokenError(method, name, outcome);
    log.error({ provider: method, kind: error.kind, status: error.httpStatus }, error.message);
    throw error;
  }
  const expiresIn = (outcome.body as { expires_in?: unknown }).expires_in;
  return { token, expiresInSeconds: parseExpiresIn(expiresIn) };
}

/** Turns a failed token request into a PaymentProviderError with a message fit for logs. */
function tokenError(method: string, name: string, outcome: HttpOutcome): PaymentProviderError {
  if (!outcome.ok) {
    return new PaymentProviderError(
      method,
      outcome.timedOut ? 'timeout' : 'unreachable',
      `${name} token endpoint: ${outcome.message}`,
    );
  }
  if (outcome.status === 400 || outcome.status === 401 || outcome.status === 403) {
    return new PaymentProviderError(
      method,
      'auth_failed',
      `${name} refused our API credentials (${outcome.status} at the token endpoint); check the configured keys`,
      outcome.status,
    );
  }
  if (outcome.status >= 500) {
    return new PaymentProviderError(
      method,
      'server_error',
      `${name} token endpoint answered ${outcome.status}`,
      outcome.status,
    );
  }
  return new PaymentProviderError(
    method,
    'bad_response',
    `${name} token endpoint answered ${outcome.status} without an access token`,
    outcome.status,
  );
}

/** A short, log-safe description of an error body (code and message fields only). */
export function describeBody(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const record = body as Record<string, unknown>;
  const status =
    record.status && typeof record.status === 'object' ? (record.status as Record<string, unknown>) : {};
  const parts = [record.code, record.message, status.result_code, status.response_code, status.message]
    .filter((part) => typeof part === 'string' && part !== '')
    .map((part) => String(part).slice(0, 120));
  return parts.length ? ` (${parts.join(': ')})` : '';
}

/** Sends with a cached token and the provider's headers; after a 401, a new token and one more try. */
export function authorizedSender(
  tokens: TokenCache,
  timeoutMs: number,
  headersFor: (token: string) => Record<string, string>,
): (url: string, init: RequestInit) => Promise<HttpOutcome> {
  return async (url, init) => {
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.get();
      const headers = { ...(init.headers as Record<string, string>), ...headersFor(token) };
      const outcome = await sendRequest(url, { ...init, headers }, timeoutMs);
      if (outcome.ok && outcome.status === 401 && attempt === 0) {
        tokens.invalidate(token);
        continue;
      }
      return outcome;
    }
  };
}

export type HttpAnswer = Extract<HttpOutcome, { ok: true }>;

/** What sending a payment or a refund came to, before the provider's answer is read. */
export type Submission =
  | { answer: HttpAnswer }
  /** no token could be had, so nothing was sent */
  | { notSent: string }
  /** no answer: it may have been taken, so ask (never send it anew under another reference) */
  | { unknown: string };

/** Sends a payment or a refund (`action`: "request to pay", "refund") and sorts what came back. */
export async function submit(
  send: () => Promise<HttpOutcome>,
  about: { method: string; name: string; action: string; reference: string; log: ProviderLog },
): Promise<Submission> {
  let outcome: HttpOutcome;
  try {
    outcome = await send();
  } catch (error) {
    return { notSent: error instanceof Error ? error.message : String(error) };
  }
  if (outcome.ok) return { answer: outcome };
  about.log.warn(
    { provider: about.method, reference: about.reference, detail: outcome.message },
    `${about.action}: no answer`,
  );
  return { unknown: `${about.name} did not answer the ${about.action}: ${outcome.message}` };
}

/** A status query's answer; rejects with PaymentProviderError when none came (`label`: "MTN MoMo status query"). */
export async function query(
  send: () => Promise<HttpOutcome>,
  method: string,
  label: string,
): Promise<HttpAnswer> {
  const outcome = await send();
  if (!outcome.ok) {
    throw new PaymentProviderError(
      method,
      outcome.timedOut ? 'timeout' : 'unreachable',
      `${label}: ${outcome.message}`,
    );
  }
  return outcome;
}

/** A query answered with no word on the payment: refused credentials, a server error, or unreadable. */
export function queryFailure(method: string, label: string, answer: HttpAnswer): PaymentProviderError {
  const { status, body } = answer;
  const kind =
    status === 401 || status === 403 ? 'auth_failed' : status >= 500 ? 'server_error' : 'bad_response';
  const hint = kind === 'auth_failed' ? '; check the credentials' : '';
  return new PaymentProviderError(
    method,
    kind,
    `${label} answered ${status}${describeBody(body)}${hint}`,
    status,
  );
}
