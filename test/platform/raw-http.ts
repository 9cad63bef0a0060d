// Raw HTTP/1.1 over node:net for tests that send what no HTTP client would: malformed requests,
// slow header blocks, stalled bodies. Loopback only; every exchange is bounded in time.
import assert from 'node:assert/strict';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  responses: RawResponse[];
  /** the server closed the connection before the wait was over */
  closed: boolean;
  raw: string;
}

/** A pause between two writes. */
export interface Pause {
  pause: number;
}

/** The host and port of a listener's URL, as service.listen() gives it. */
export function target(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) };
}

/**
 * Writes `steps` in order (waiting at each Pause, and stopping once the server has closed), then
 * reads until the server closes the connection or `waitMs` has passed since the first write.
 */
export function exchange(
  to: { host: string; port: number },
  steps: Array<string | Buffer | Pause>,
  waitMs = 5000,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(to.port, to.host);
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = (byServer: boolean) => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      resolve({ responses: parseResponses(raw), closed: byServer, raw });
    };
    const timer = setTimeout(() => {
      socket.removeAllListeners('close');
      socket.destroy();
      finish(false);
    }, waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    // A reset after the answer is still a close by the server; what it sent before is kept.
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish(true);
    });
    socket.on('connect', async () => {
      try {
        for (const step of steps) {
          if (closed) break;
          if (typeof step === 'object' && 'pause' in step)
            await new Promise((r) => setTimeout(r, step.pause));
          else if (!socket.destroyed) socket.write(step);
        }
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

/** Every complete response in what the server sent, in order. */
export function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (!size) {
          rest = rest.slice(2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    out.push({ status, headers, body });
  }
  return out;
}

/**
 * The answer is the error envelope {code, message, error_code, request_id} with that status and
 * code, never a 5xx, and carries an X-Request-Id equal to the body's request_id.
 */
export function assertEnvelope(
  response: RawResponse | undefined,
  status: number,
  errorCode: string,
  what = '',
) {
  assert.ok(response, `${what}: an answer`);
  assert.ok(response.status < 500, `${what}: no 5xx (got ${response.status})`);
  assert.equal(response.status, status, `${what}: status`);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(body.code, status, `${what}: body code`);
  assert.equal(body.error_code, errorCode, `${what}: error_code`);
  assert.equal(typeof body.message, 'string', `${what}: message`);
  assert.ok((body.message as string).length > 0, `${what}: message`);
  assert.match(String(body.request_id), /^req_[A-Za-z0-9]{24}$/, `${what}: request_id`);
  assert.equal(response.headers['x-request-id'], body.request_id, `${what}: X-Request-Id`);
}
