// Sequential requests over one kept-alive connection, timed with process.hrtime.bigint() from
// before the request is written to the end of the response body.
import { Agent, request } from 'node:http';

export interface TimedResponse {
  status: number;
  ms: number;
  body: string;
}

export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1 });
}

export function timedRequest(
  agent: Agent,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<TimedResponse> {
  return new Promise((resolveResponse, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      url,
      {
        agent,
        method: options.method ?? 'GET',
        headers: {
          ...options.headers,
          ...(options.body !== undefined && { 'content-length': String(Buffer.byteLength(options.body)) }),
        },
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          resolveResponse({ status: res.statusCode ?? 0, ms, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request timed out: ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POST /v1/oauth/token with the client's credentials in a form body; returns the access token. */
export async function fetchToken(
  apiUrl: string,
  client: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const res = await fetch(`${apiUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...(scope !== undefined && { scope }),
    }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) {
    throw new Error(`POST /v1/oauth/token answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
