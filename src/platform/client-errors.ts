// HTTP that never becomes a request (a malformed request line or header block, bad chunking, a
// header block too large or too slow) and bodies that do not arrive in time: answered in the error
// envelope with an X-Request-Id wherever a response can still be written, then the connection closes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { finished, PassThrough, type Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, type ErrorCode } from './errors.ts';
import { newId } from './ids.ts';

/** The time limits of each listener (config.ts: REQUEST_HEADERS_TIMEOUT_MS and the others). */
export interface HttpLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * Node's http.createServer options for these limits. `requestTimeout` bounds a whole request from
 * its first byte; it is a backstop behind the body deadline (boundBody), for bodies nobody reads
 * (a request answered before its body), so it leaves room for both. Node checks both time-outs
 * every `connectionsCheckingInterval` (30 s by default, far coarser than the limits).
 */
export function serverTimeouts(limits: HttpLimits) {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    // Node answers a missing Host with a bare 400 of its own; the onRequest hook answers it instead.
    requireHostHeader: false,
  };
}

/**
 * The last response of each connection, set when its request starts (trackResponse). Node says
 * which response is in flight on a socket only through private fields; this is how a client error
 * learns, from public fields of that response, whether an answer may still be written.
 */
const responses = new WeakMap<object, ServerResponse>();

export function trackResponse(response: ServerResponse): void {
  responses.set(response.socket ?? response, response);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** A client error of the parser or of Node's time-outs as the error it is answered with. */
function clientErrorOf(error: NodeJS.ErrnoException): ApiError | null {
  const code = error.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ApiError('request_timeout', 'The request did not arrive in time.');
  if (code === 'HPE_HEADER_OVERFLOW')
    return new ApiError('request_header_fields_too_large', 'The request header block is too large.');
  if (code.startsWith('HPE_') || code.startsWith('ERR_HTTP_'))
    return new ApiError('validation_failed', 'The request is not valid HTTP/1.1.');
  return null;
}

/** A complete HTTP/1.1 error response in the envelope, written straight to a socket. */
function rawErrorResponse(error: ApiError, requestId: string): string {
  const body = JSON.stringify({
    code: error.status,
    message: error.message,
    error_code: error.code satisfies ErrorCode,
    request_id: requestId,
  });
  return (
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
}

// Sockets already being answered: a broken parser reports every further chunk as an error again.
const answering = new WeakSet<Duplex>();

/**
 * Fastify's clientErrorHandler: Node hands over the socket, with no request or response. Whether
 * an answer may be written is decided from the connection's last response (trackResponse):
 * - an error in that request's body (the request is not complete) concerns that request: it is
 *   answered unless its answer has begun, which then goes out whole first;
 * - an error after a complete request concerns the next one: it is answered after the last
 *   answer is all written, so that the client does not take ours for that one's.
 * The connection then closes: after a parser error nothing more on it can be trusted.
 */
export function answerClientError(
  this: { log: FastifyBaseLogger },
  error: NodeJS.ErrnoException,
  socket: Duplex,
): void {
  if (socket.destroyed || answering.has(socket)) return;
  const apiError = clientErrorOf(error);
  if (!apiError) {
    socket.destroy(); // a connection reset or another socket failure: nobody to answer
    return;
  }
  answering.add(socket);
  const last = responses.get(socket);
  const ours = !last || last.req.complete || !last.headersSent;
  const answer = () => {
    if (ours && socket.writable) {
      const requestId = newId('req');
      this.log.info(
        { request_id: requestId, error_code: apiError.code, cause: error.code },
        apiError.message,
      );
      socket.write(rawErrorResponse(apiError, requestId));
    }
    socket.destroy();
  };
  if (last && !last.writableFinished && (last.headersSent || last.req.complete)) {
    finished(last, (failed) => (failed ? socket.destroy() : answer()));
  } else {
    answer();
  }
}

/** Node's 'connect' event: a CONNECT request, which Node would answer by closing the connection. */
export function refuseConnect(this: { log: FastifyBaseLogger }, _request: unknown, socket: Duplex): void {
  const requestId = newId('req');
  const apiError = new ApiError('method_not_allowed', 'CONNECT is not supported: this is not a proxy.');
  this.log.info({ request_id: requestId, error_code: apiError.code }, apiError.message);
  if (socket.writable) socket.write(rawErrorResponse(apiError, requestId));
  socket.destroy();
}

/**
 * Whether a request's whole body is already here (or it has none). The parser has buffered a body
 * that came with the headers by the time a hook runs after a turn of microtasks, but marks the
 * message complete only later.
 */
export function bodyArrived(raw: IncomingMessage): boolean {
  if (raw.complete) return true;
  const { headers } = raw;
  if (headers['transfer-encoding'] !== undefined) return false;
  const length = Number(headers['content-length'] ?? 0);
  return Number.isSafeInteger(length) && raw.readableLength >= length;
}

/**
 * The request body, failing with 408 request_timeout (through the error handler, so in the
 * envelope) unless it has all arrived within `ms` of the call; the response then closes the
 * connection. Only requests that carry a body pass through here (preParsing), and one timer is all
 * it costs.
 */
export function boundBody(raw: Readable, response: ServerResponse, ms: number): Readable {
  const body = new PassThrough();
  // Nobody may be reading it (a 415 or 413 answered before the body): its failure must not throw.
  body.on('error', () => {});
  const timer = setTimeout(() => {
    raw.unpipe(body);
    body.destroy(
      new ApiError('request_timeout', `The request body did not arrive within ${ms / 1000} s.`, {
        headers: { Connection: 'close' },
      }),
    );
  }, ms);
  // The body ends, or the connection goes first (a client that left, a parser error).
  finished(raw, (error) => {
    clearTimeout(timer);
    if (error) body.destroy(error);
  });
  // Answered before the body was read: the rest is read and dropped, as Node does for a body
  // nobody reads, so the connection can carry its next request (requestTimeout still bounds it).
  response.once('finish', () => {
    clearTimeout(timer);
    if (!raw.readableEnded && !raw.destroyed) {
      raw.unpipe(body);
      raw.resume();
    }
  });
  raw.pipe(body);
  return body;
}
