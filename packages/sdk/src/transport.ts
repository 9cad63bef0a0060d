// One HTTP call to the API with the SDK's guarantees: a bearer token from the cache (refreshed and
// the call repeated once on 401 invalid_token), an Idempotency-Key on every POST kept across its
// retries, and retries of network errors, 5xx and 429 with backoff, honouring Retry-After.
import { randomUUID } from 'node:crypto';
import { TicketingError, type FieldError } from './errors.ts';
import { backoffDelay, isRetryableStatus, parseRetryAfter, sleep } from './retry.ts';
import { TokenCache, type IssuedToken } from './token-cache.ts';
import type { TokenResponse } from './types.ts';

export interface TransportOptions {
  clientId: string;
  clientSecret: string;
  /** The API origin, e.g. https://api.example.com (a trailing /v1 is accepted). */
  baseUrl: string;
  fetch?: typeof fetch;
  maxRetries?: number;
  /** Longest Retry-After the client waits for; a longer one fails the call at once. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Sent as User-Agent with the SDK's own name. */
  userAgent?: string;
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

interface Envelope {
  data?: unknown;
  message?: string;
  error_code?: string;
  request_id?: string;
  errors?: FieldError[];
  error?: string;
  error_description?: string;
}

const SDK_AGENT = 'partner-ticketing-sdk/0.1.0';

function errorOf(response: Response, body: Envelope | null): TicketingError {
  const errorCode = body?.error_code ?? body?.error ?? `http_${response.status}`;
  return new TicketingError({
    status: response.status,
    errorCode,
    message: body?.message ?? body?.error_description ?? `HTTP ${response.status} from the API`,
    requestId: body?.request_id ?? response.headers.get('x-request-id') ?? undefined,
    errors: Array.isArray(body?.errors) ? body.errors : undefined,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  });
}

async function readJson(response: Response): Promise<Envelope | null> {
  const text = await response.text();
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Envelope) : null;
  } catch {
    return null;
  }
}

export class Transport {
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #maxRetryAfterMs: number;
  readonly #userAgent: string;
  readonly #credentials: { id: string; secret: string };
  readonly tokens: TokenCache;

  constructor(options: TransportOptions) {
    if (!options.clientId || !options.clientSecret)
      throw new TypeError('clientId and clientSecret are required');
    const base = new URL(options.baseUrl);
    this.#base = `${base.origin}${base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 2));
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.#userAgent = options.userAgent ? `${options.userAgent} ${SDK_AGENT}` : SDK_AGENT;
    this.#credentials = { id: options.clientId, secret: options.clientSecret };
    this.tokens = new TokenCache(() => this.#issueToken());
  }

  /** Calls the API and returns the envelope's `data`, or throws a TicketingError. */
  async call<T>(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<T> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#userAgent };
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      // One key for the call, so a retry after a lost answer replays instead of creating twice.
      headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    }
    const body = method === 'POST' ? JSON.stringify(options.body ?? {}) : undefined;
    for (let refreshed = false; ; refreshed = true) {
      const token = await this.tokens.get();
      const { response, json } = await this.#send(url, {
        method,
        headers: { ...headers, authorization: `Bearer ${token}` },
        ...(body !== undefined && { body }),
        ...(options.signal && { signal: options.signal }),
      });
      if (response.ok) return json?.data as T;
      const error = errorOf(response, json);
      // The token expired or was revoked since we cached it: one new token, one more try.
      if (response.status === 401 && error.errorCode === 'invalid_token' && !refreshed) {
        this.tokens.invalidate(token);
        continue;
      }
      throw error;
    }
  }

  /** The token request, form-encoded with HTTP Basic, through the same retries. */
  async #issueToken(): Promise<IssuedToken> {
    const basic = Buffer.from(
      `${encodeURIComponent(this.#credentials.id)}:${encodeURIComponent(this.#credentials.secret)}`,
    ).toString('base64');
    const { response, json } = await this.#send(new URL(`${this.#base}/oauth/token`), {
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': this.#userAgent,
      },
      body: 'grant_type=client_credentials',
    });
    const token = json as Partial<TokenResponse> | null;
    if (!response.ok || typeof token?.access_token !== 'string') throw errorOf(response, json);
    return { accessToken: token.access_token, expiresInSeconds: Number(token.expires_in ?? 3600) };
  }

  /**
   * Sends one request, retrying network errors, 5xx, 429 and 409 idempotency_key_in_use (the same
   * call is still running on the server) up to maxRetries times; returns the last answer.
   */
  async #send(url: URL, init: RequestInit): Promise<{ response: Response; json: Envelope | null }> {
    for (let retry = 0; ; retry++) {
      let response: Response;
      let json: Envelope | null;
      try {
        response = await this.#fetch(url, init);
        // Inside the try: a connection that drops while the body streams is a network error too.
        json = await readJson(response);
      } catch (cause) {
        if (init.signal?.aborted) throw cause;
        if (retry < this.#maxRetries) {
          await sleep(backoffDelay(retry), init.signal);
          continue;
        }
        throw new TicketingError({
          status: 0,
          errorCode: 'network_error',
          message: `Could not reach the API: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        });
      }
      const retryable =
        isRetryableStatus(response.status) ||
        (response.status === 409 && json?.error_code === 'idempotency_key_in_use');
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      const waitable = retryAfterMs === undefined || retryAfterMs <= this.#maxRetryAfterMs;
      if (!retryable || retry >= this.#maxRetries || !waitable || init.signal?.aborted) {
        return { response, json };
      }
      await sleep(backoffDelay(retry, retryAfterMs), init.signal);
    }
  }
}
