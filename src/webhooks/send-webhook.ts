// One webhook POST, guarded: the host name is resolved by us and every address checked before a
// connection is made (the check and the connection use the same answer, so DNS cannot change in
// between), redirects are not followed, one deadline covers the whole exchange, and at most a few
// KB of the response are read. Never throws: every outcome is a value for the attempt log.
import { lookup as systemLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  checkWebhookUrl,
  classifyAddress,
  describeAddressClass,
  firstForbiddenAddress,
  type ResolvedAddress,
  type UrlPolicy,
} from './address-policy.ts';
import { traceCallOut } from '../platform/index.ts';

/** Host name -> addresses. Injectable, so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await systemLookup(hostname, { all: true, order: 'verbatim' })).map((a) => ({
    address: a.address,
    family: a.family,
  }));

class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';
}

/** Resolves a host name and refuses it if any address is not allowed; returns the addresses. */
export async function resolveAllowed(
  hostname: string,
  resolve: Resolver,
  policy: UrlPolicy,
): Promise<ResolvedAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolve(bare);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`${bare} does not resolve`), { code: 'ENOTFOUND' });
  }
  const forbidden = firstForbiddenAddress(addresses, policy);
  if (forbidden) {
    throw new AddressNotAllowedError(
      `${bare} resolves to ${forbidden.address}, ${describeAddressClass(forbidden.kind)}; webhooks go only to public addresses`,
    );
  }
  return addresses;
}

/** A `lookup` for http.request that connects only to addresses resolveAllowed accepted. */
function guardedLookup(resolve: Resolver, policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, resolve, policy).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted ? all.filter((a) => a.family === wanted) : all;
        if (usable.length === 0) {
          const error = Object.assign(new Error(`${hostname} has no IPv${wanted} address`), {
            code: 'ENOTFOUND',
          });
          callback(error, '', 0);
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Kept-alive connections for many sends; without them, each send opens (and closes) its own. */
export interface SendAgents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Agents that keep up to `sockets` connections per host open between sends. A connection is made
 * through guardedLookup like any other, so a reused one goes to an address that was checked; idle
 * ones close after `idleMs`, before a receiver's own keep-alive time-out is likely to (Node's 5 s).
 */
export function keepAliveAgents(sockets: number, idleMs = 4000): SendAgents {
  const options = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, timeout: idleMs };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

export interface SendInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  resolve: Resolver;
  policy: UrlPolicy;
  /** how much of the response body is read */
  maxReadBytes?: number;
  agents?: SendAgents;
}

export interface SendOutcome {
  /** HTTP status, or null when no answer came */
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** up to EXCERPT_BYTES of the response body, as text */
  excerpt: string | null;
  retryAfter: string | null;
}

const MAX_READ_BYTES = 4096;
const EXCERPT_BYTES = 1024;
export const USER_AGENT = 'PartnerTicketing-Webhooks/1.0 (+https://www.standardwebhooks.com)';

/** The start of a body as text fit for a PostgreSQL text column (no NUL, no half character). */
export function excerptOf(body: Buffer): string {
  const text = body.subarray(0, EXCERPT_BYTES).toString('utf8');
  return text.replace(/\uFFFD$/, '').replaceAll('\u0000', '');
}

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (error instanceof AddressNotAllowedError) return `refused: ${error.message}`;
  switch (e?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host name does not resolve (${e.code})`;
  }
  const message = e instanceof Error ? e.message : String(error);
  return (e?.code ? `${e.code}: ${message}` : message).slice(0, 500);
}

export function sendWebhook(input: SendInput): Promise<SendOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const checked = checkWebhookUrl(input.url, input.policy);
  if (!checked.ok) {
    return Promise.resolve({
      status: null,
      latencyMs: 0,
      error: `refused: the URL ${checked.message}`,
      excerpt: null,
      retryAfter: null,
    });
  }
  const url = checked.url;
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL is never looked up, so it is checked here (checkWebhookUrl did too, unless
  // private addresses are allowed).
  if (isIP(literal) && firstForbiddenAddress([{ address: literal, family: isIP(literal) }], input.policy)) {
    const kind = classifyAddress(literal);
    return Promise.resolve({
      status: null,
      latencyMs: 0,
      error: `refused: ${literal} is ${describeAddressClass(kind)}`,
      excerpt: null,
      retryAfter: null,
    });
  }
  return traceCallOut(
    'POST',
    url,
    (traceHeaders) => post(input, url, traceHeaders, latency),
    (outcome) => outcome,
  );
}

/** The POST itself, once the URL passed; `traceHeaders` are traceparent and tracestate, if tracing. */
function post(
  input: SendInput,
  url: URL,
  traceHeaders: Readonly<Record<string, string>>,
  latency: () => number,
): Promise<SendOutcome> {
  const maxRead = input.maxReadBytes ?? MAX_READ_BYTES;
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  // no agents: a fresh connection, closed after the answer
  const agent = input.agents ? (secure ? input.agents.https : input.agents.http) : false;

  return new Promise((resolve) => {
    let settled = false;
    let response: http.IncomingMessage | null = null;
    const chunks: Buffer[] = [];
    let read = 0;
    // `keep`: the whole answer was read, so its connection may carry the next send
    const finish = (error: string | null, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep) request.destroy();
      resolve({
        status: response?.statusCode ?? null,
        latencyMs: latency(),
        error,
        excerpt: response ? excerptOf(Buffer.concat(chunks)) : null,
        retryAfter: (response?.headers['retry-after'] as string | undefined) ?? null,
      });
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent,
        lookup: guardedLookup(input.resolve, input.policy),
        headers: {
          ...input.headers,
          ...traceHeaders,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(input.body)),
          'user-agent': USER_AGENT,
        },
      },
      (res) => {
        response = res;
        res.on('data', (chunk: Buffer) => {
          if (read < maxRead) chunks.push(chunk.subarray(0, maxRead - read));
          read += chunk.length;
          if (read >= maxRead) finish(null); // enough to show; the rest is not our business
        });
        res.on('end', () => finish(null, true));
        res.on('error', () => finish(null));
      },
    );
    const timer = setTimeout(
      () =>
        finish(
          response ? 'the response body did not finish in time' : `no answer within ${input.timeoutMs} ms`,
        ),
      input.timeoutMs,
    );
    timer.unref();
    request.on('error', (error) => finish(describeError(error)));
    request.end(input.body);
  });
}
