// Structured logs (pino). Credentials and personal data never reach a log line: the credential
// headers are censored, query parameters and fields named like a secret, a credential or contact
// details are redacted wherever they appear, and a failed statement is logged by its SQL text
// alone, without its parameters or literal values.
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { workerIndex } from './workers.ts';

const REDACTED = '[redacted]';

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-publishable-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

const LOGGED_HEADERS = [
  'user-agent',
  'origin',
  'content-type',
  'content-length',
  'idempotency-key',
  'authorization',
  'x-service-publishable-key',
];

/**
 * Field names whose values are never logged: secrets and credentials (client_secret, access_token,
 * password, admin_api_key, publishable_key, any `...key` but the idempotency key, which support
 * asks for) and a buyer's contact details.
 */
const SECRET_FIELD =
  /secret|token|passw|pwd|authori[sz]ation|cookie|credential|signature|email|phone|msisdn|buyer|payer/i;
const KEY_FIELD = /key$/i;
const IDEMPOTENCY_FIELD = /^idempotency[-_]?key$/i;
/** Query parameters add OAuth's authorization code and short signature names. */
const SECRET_PARAM = /^(code|sig|auth|key)$/i;
/** Routes whose whole query string is credentials when present (it is refused, then logged). */
const CREDENTIAL_PATH = /\/oauth\/token\/?$/;
/** Paths whose last segment is a single-use secret: the organizer app's invitation and reset links. */
const SECRET_SEGMENT = /(\/(?:invitations|password-reset)\/)[^/?#\s]+/;
const SECRET_SEGMENTS = new RegExp(SECRET_SEGMENT.source, 'g');
/** Fields holding a URL, whose query is redacted like a request's. */
const URL_FIELD = /(url|uri|href|location)$/i;
/** Statement parameters and bound values, never logged. */
const PARAMETER_FIELDS = ['params', 'parameters', 'args', 'values', 'bindings'];
const MAX_DEPTH = 8;

function isSecretName(name: string): boolean {
  return SECRET_FIELD.test(name) || (KEY_FIELD.test(name) && !IDEMPOTENCY_FIELD.test(name));
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

function redactPairs(part: string): string {
  return part
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeName(eq < 0 ? pair : pair.slice(0, eq));
      return isSecretName(name) || SECRET_PARAM.test(name)
        ? `${eq < 0 ? pair : pair.slice(0, eq)}=${REDACTED}`
        : pair;
    })
    .join('&');
}

/**
 * A URL (a request's path and query, or an absolute URL) as logged: every query or fragment
 * parameter named like a secret redacted, the token endpoint's whole query string, and the
 * secret segment of an invitation or reset link.
 */
export function redactUrl(logged: string): string {
  const url = logged.replace(SECRET_SEGMENT, `$1${REDACTED}`);
  const queryAt = url.indexOf('?');
  const hashAt = url.indexOf('#');
  if (queryAt < 0 && (hashAt < 0 || !url.includes('=', hashAt))) return url;
  const pathEnd = queryAt < 0 ? hashAt : hashAt < 0 ? queryAt : Math.min(queryAt, hashAt);
  const path = url.slice(0, pathEnd);
  const query =
    queryAt < 0 || (hashAt >= 0 && hashAt < queryAt)
      ? null
      : url.slice(queryAt + 1, hashAt > queryAt ? hashAt : undefined);
  const hash = hashAt < 0 ? null : url.slice(hashAt + 1);
  if (CREDENTIAL_PATH.test(path)) return `${path}?${REDACTED}`;
  return (
    path + (query === null ? '' : `?${redactPairs(query)}`) + (hash === null ? '' : `#${redactPairs(hash)}`)
  );
}

/** A query parameter's name as logged; anything unlike a name may itself be a value. */
const PARAMETER_NAME = /^[A-Za-z0-9_.[\]-]{1,40}$/;

/**
 * A request URL with its query's values left out (`/orders?q=[redacted]&status=[redacted]`), and
 * the path's secrets redacted as redactUrl does: for the organizer app, whose searches carry
 * buyers' names, e-mails and phone numbers.
 */
function queryNamesOnly(logged: string): string {
  const cut = logged.search(/[?#]/);
  if (cut < 0) return redactUrl(logged);
  const path = redactUrl(logged.slice(0, cut));
  const query = logged[cut] === '?' ? logged.slice(cut + 1).split('#')[0]! : '';
  const names = query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const name = pair.split('=')[0]!;
      return `${PARAMETER_NAME.test(name) ? name : REDACTED}=${REDACTED}`;
    });
  return names.length > 0 ? `${path}?${names.join('&')}` : path;
}

/** SQL text as logged: string literals become '?', so that no value written into it is logged. */
export function redactSqlLiterals(text: string): string {
  return text.replace(/'(?:[^']|'')*'/g, "'?'");
}

/** URLs inside free text (a message naming a request) with their secrets redacted. */
function redactUrlsIn(text: string): string {
  const out = text.replace(SECRET_SEGMENTS, `$1${REDACTED}`);
  return out.includes('?') || out.includes('#') ? out.replace(/\S*[?#]\S*=\S*/g, (u) => redactUrl(u)) : out;
}

/**
 * A message or stack as logged: what is left of a failed query's `params:` line removed, the
 * query's literals redacted, and URLs in it redacted.
 */
function redactText(text: string): string {
  let out = text;
  if (out.includes('params: ')) out = out.replace(/\n?params: [^\n]*/g, '');
  if (out.includes('Failed query')) out = redactSqlLiterals(out);
  return redactUrlsIn(out);
}

/** A PostgreSQL detail without row values: "Key (email)=(...)" and "Failing row contains (...)". */
function redactDetail(detail: string): string {
  return detail
    .replace(/\)=\(.*\)/s, `)=(${REDACTED})`)
    .replace(/contains \(.*\)/s, `contains (${REDACTED})`)
    .replace(/"(?:[^"]|"")*"/g, `"${REDACTED}"`);
}

interface ErrorLike {
  message: string;
  stack?: string;
  code?: unknown;
  params?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string';
}

/**
 * The exact texts to cut from a message and its stack: a failed query's `\nparams: ...` as its
 * error wrote it, and the quoted values of PostgreSQL's data errors (class 22, such as an integer
 * out of range), along the cause chain.
 */
function sensitiveTexts(err: ErrorLike): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err; isErrorLike(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (Array.isArray(e.params)) texts.push([`\nparams: ${String(e.params)}`, '']);
    if (typeof e.code === 'string' && e.code.startsWith('22') && e.message.includes('"')) {
      texts.push([e.message, e.message.replace(/"(?:[^"]|"")*"/g, `"${REDACTED}"`)]);
    }
  }
  return texts;
}

function redactErrorText(text: string, texts: Array<[string, string]>): string {
  let out = text;
  for (const [from, to] of texts) if (from.length > 0) out = out.split(from).join(to);
  return redactText(out);
}

/**
 * The err serializer: pino's, then without statement parameters (a failed query's `params`
 * field and the `params:` part of its message and stack), with the SQL text's literals and a
 * PostgreSQL detail's row values redacted, and every field named like a secret redacted.
 */
export function serializeError(err: unknown): unknown {
  if (!isErrorLike(err)) return scrubValue(err, 'err', 0, new WeakSet());
  const texts = sensitiveTexts(err);
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(out)) {
    if (PARAMETER_FIELDS.includes(key)) continue;
    if (key === 'message' || key === 'stack')
      clean[key] = typeof value === 'string' ? redactErrorText(value, texts) : value;
    else if (key === 'query' || key === 'internal_query' || key === 'where') {
      clean[key] = typeof value === 'string' ? redactSqlLiterals(value) : value;
    } else if (key === 'detail') clean[key] = typeof value === 'string' ? redactDetail(value) : value;
    else if (key === 'aggregateErrors' && Array.isArray(value)) {
      clean[key] = (err.errors as unknown[]).map((e) => serializeError(e));
    } else if (key === 'code' || key === 'type') clean[key] = value;
    else {
      // a nested error (other than the cause, which pino folds into message and stack)
      const raw = (err as unknown as Record<string, unknown>)[key];
      clean[key] = isErrorLike(raw) ? serializeError(raw) : scrubValue(value, key, 1, new WeakSet());
    }
  }
  return clean;
}

/** Any value as logged: secret-named fields redacted, errors serialized safely, URLs redacted. */
function scrubValue(value: unknown, key: string, depth: number, seen: WeakSet<object>): unknown {
  if (isSecretName(key) && value !== undefined && value !== null && value !== '') return REDACTED;
  if (typeof value === 'string') {
    if (URL_FIELD.test(key)) return redactUrl(value);
    return value.includes('params: ') ? redactText(value) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (isErrorLike(value)) return serializeError(value);
  if (value instanceof URL) return redactUrl(value.href);
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, key, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubValue(v, k, depth + 1, seen);
  return out;
}

/** Keys pino serializes itself (the request, the reply, the error): each serializer scrubs its own. */
const SERIALIZED_KEYS = new Set(['req', 'res', 'err']);

/** The object of a log call as written: everything but the serialized keys scrubbed. */
function scrubLogObject(object: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(object)) {
    if (SERIALIZED_KEYS.has(key)) continue;
    const scrubbed = scrubValue(value, key, 0, new WeakSet());
    if (scrubbed !== value) (out ??= { ...object })[key] = scrubbed;
  }
  return out ?? object;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The request as logged: a few useful headers (credentials then censored by `redact`), the URL's secrets redacted. */
function serializeRequest(req: LoggedRequest) {
  const headers: Record<string, unknown> = {};
  for (const name of LOGGED_HEADERS) if (req.headers?.[name] !== undefined) headers[name] = req.headers[name];
  return { method: req.method, url: redactUrl(req.url), host: req.host, ip: req.ip, headers };
}

const NO_TRACE: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * trace_id and span_id of the active span, when tracing is on (platform/tracing.ts) and a span is
 * active; off, the API's context is always empty and the line is written as it is, no copy made.
 */
function traceFields(): Record<string, string> {
  const span = trace.getSpanContext(context.active());
  return span !== undefined && isSpanContextValid(span)
    ? { trace_id: span.traceId, span_id: span.spanId }
    : NO_TRACE;
}

function mergeTraceFields(object: object, fields: object): object {
  return fields === NO_TRACE ? object : Object.assign(fields, object);
}

/**
 * The options of a host's logger that logs requests with their query values left out
 * (queryNamesOnly): pass to `logger.child(bindings, options)`.
 */
export const QUERY_NAMES_ONLY: pino.ChildLoggerOptions = {
  serializers: {
    req: (req: LoggedRequest) => ({ ...serializeRequest(req), url: queryNamesOnly(req.url) }),
  },
};

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      serializers: { req: serializeRequest, err: serializeError },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // Which process wrote the line: several share one log under WEB_CONCURRENCY or on one host.
      base: { service: 'partner-ticketing', pid: process.pid, worker: workerIndex() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: scrubLogObject },
      mixin: traceFields,
      mixinMergeStrategy: mergeTraceFields,
      hooks: {
        // The message is not part of the object: an Error logged alone (its message becomes the
        // line's) goes under `err`, and message strings lose failed-query parameters and secrets.
        logMethod(args: unknown[], method) {
          const [first, ...rest] = args;
          const call: unknown[] =
            first instanceof Error ? [{ err: first }, ...(rest.length > 0 ? rest : [first.message])] : args;
          for (let i = 0; i < call.length; i++) {
            if (typeof call[i] === 'string') call[i] = redactText(call[i] as string);
          }
          return (method as (...a: unknown[]) => void).apply(this, call);
        },
      },
    },
    destination,
  );
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify's per-request logger, made when something is logged: a pino child costs a few µs per
 * request (its bindings go through redact), and at the levels enabled in production most requests
 * log nothing. Fastify asks for its methods on every request (they are checked, then `info` is
 * called for each request): a method of a level that is off does nothing, and the first call of
 * one that is on makes the child.
 */
export class LazyChildLogger {
  readonly #parent: Logger;
  readonly #bindings: pino.Bindings;
  readonly #options: pino.ChildLoggerOptions;
  #child: Logger | null = null;

  constructor(parent: Logger, bindings: pino.Bindings, options: pino.ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#child ? this.#child.isLevelEnabled(level) : this.#parent.isLevelEnabled(level)) {
      (this.#real()[level] as (...a: unknown[]) => void)(...args);
    }
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  silent(): void {}
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options);
  }
}
