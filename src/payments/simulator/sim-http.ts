// The simulator's plain node:http helpers: JSON bodies in and out, and the error a route throws to
// answer with a given status and body (the server turns it into the response).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request as a route sees it: `path` is relative to its part's prefix. */
export interface SimCall {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
}

export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

const BODY_LIMIT = 64 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Reads the body; past the limit the rest is drained (not stored) so the client can read the 413. */
export function readBody(req: IncomingMessage): Promise<string> {
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

export async function readJson(
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

export const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export const obj = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** How long a callback or webhook receiver has to answer. */
const RECEIVER_TIMEOUT_MS = 5_000;

/**
 * Sends one callback or webhook, as JSON, never retried and never following a redirect: the
 * receiver's status, or why it could not be reached. `cancel` ends it when the simulator closes.
 */
export async function sendToReceiver(
  url: string,
  request: { method?: string; headers?: Record<string, string>; body: unknown; cancel: AbortSignal },
): Promise<{ status: number | null; error?: string }> {
  try {
    const response = await fetch(url, {
      method: request.method ?? 'POST',
      headers: { 'Content-Type': 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(RECEIVER_TIMEOUT_MS), request.cancel]),
    });
    await response.arrayBuffer();
    return { status: response.status };
  } catch (error) {
    return { status: null, error: error instanceof Error ? error.message : String(error) };
  }
}
