// The partner's server-side client of the ticketing API: a client-credentials token cached until
// shortly before it expires (and fetched again once after a 401 invalid_token, SPEC.md 5.7), and
// the three calls this partner needs. The client secret never leaves this server.
import { randomUUID } from 'node:crypto';

export interface ServiceClientOptions {
  /** API_URL of the service, e.g. http://127.0.0.1:4000 */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface CheckoutSession {
  id: string;
  url: string;
  expires_at: string;
  ui_mode: string;
}

export interface CheckoutSessionRead extends CheckoutSession {
  status: string;
  client_reference_id: string | null;
  order: { id: string; status: string; code: string } | null;
}

export class ServiceApiError extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly requestId: string | undefined;
  constructor(status: number, errorCode: string, message: string, requestId?: string) {
    super(`${status} ${errorCode}: ${message}`);
    this.status = status;
    this.errorCode = errorCode;
    this.requestId = requestId;
  }
}

export function createServiceClient(options: ServiceClientOptions) {
  const base = `${options.apiUrl.replace(/\/$/, '')}/v1`;
  let cached: { token: string; renewAt: number } | null = null;

  async function token(): Promise<string> {
    if (cached && Date.now() < cached.renewAt) return cached.token;
    const basic = Buffer.from(
      `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
    ).toString('base64');
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const body = (await response.json()) as { access_token?: string; expires_in?: number; error?: string };
    if (!response.ok || !body.access_token) {
      throw new ServiceApiError(
        response.status,
        body.error ?? 'token_failed',
        'could not get an access token',
      );
    }
    // Renew a minute early so a request never leaves with a token about to lapse.
    cached = { token: body.access_token, renewAt: Date.now() + ((body.expires_in ?? 3600) - 60) * 1000 };
    return cached.token;
  }

  async function call<T>(method: string, path: string, body?: unknown, retried = false): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${await token()}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['idempotency-key'] = randomUUID();
    }
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const json = (await response.json().catch(() => null)) as {
      data?: T;
      error_code?: string;
      message?: string;
    } | null;
    if (response.status === 401 && json?.error_code === 'invalid_token' && !retried) {
      cached = null;
      return call(method, path, body, true);
    }
    if (!response.ok || !json?.data) {
      throw new ServiceApiError(
        response.status,
        json?.error_code ?? `http_${response.status}`,
        json?.message ?? 'unexpected response',
        response.headers.get('x-request-id') ?? undefined,
      );
    }
    return json.data;
  }

  return {
    /** A session for the modal on `embedOrigin` (this site's own origin). */
    createEmbeddedSession(input: {
      eventId: string;
      embedOrigin: string;
      clientReferenceId?: string;
      prefill?: object;
    }) {
      return call<CheckoutSession>('POST', '/checkout-sessions', {
        event_id: input.eventId,
        ui_mode: 'embedded',
        embed_origin: input.embedOrigin,
        ...(input.clientReferenceId && { client_reference_id: input.clientReferenceId }),
        ...(input.prefill && { prefill: input.prefill }),
      });
    },
    /** A session for the full-page hosted checkout, coming back to `returnOrigin`. */
    createRedirectSession(input: { eventId: string; returnOrigin: string; clientReferenceId?: string }) {
      return call<CheckoutSession>('POST', '/checkout-sessions', {
        event_id: input.eventId,
        on_success_url: `${input.returnOrigin}/thanks?session_id={CHECKOUT_SESSION_ID}`,
        on_cancel_url: `${input.returnOrigin}/`,
        ...(input.clientReferenceId && { client_reference_id: input.clientReferenceId }),
      });
    },
    readSession(sessionId: string) {
      return call<CheckoutSessionRead>('GET', `/checkout-sessions/${encodeURIComponent(sessionId)}`);
    },
    async firstEventId(): Promise<string | null> {
      const page = await call<{ events: { event_id: string }[] }>('GET', '/events?limit=1');
      return page.events[0]?.event_id ?? null;
    },
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
