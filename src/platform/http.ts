// The HTTP plumbing every host shares: request ids, the success and error envelopes, validation
// with field errors, 404/413/415 and malformed JSON in the envelope, health routes.
import Fastify, {
  type FastifyBaseLogger,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchemaCompiler,
  type preParsingHookHandler,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { AppContext } from '../context.ts';
import { migrationsCurrent } from './migrate.ts';
import {
  answerClientError,
  bodyArrived,
  boundBody,
  refuseConnect,
  serverTimeouts,
  trackResponse,
} from './client-errors.ts';
import {
  databaseUnavailable,
  OutageWatch,
  outageWatch,
  SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
} from './db-errors.ts';
import { ApiError, ERROR_STATUS, type ErrorCode, type FieldError } from './errors.ts';
import { newId } from './ids.ts';
import { isShedError, shedUnderOverload, watchOverload, type OverloadMonitor } from './overload.ts';
import type { ErrorOut } from './schemas.ts';
import { LazyChildLogger, QUERY_NAMES_ONLY } from './logger.ts';
import { requestLogController, traceRequests } from './tracing.ts';
import { unstorableField } from './unstorable-text.ts';

export type HostName = 'api' | 'site' | 'app';
export type Host = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export const BODY_LIMIT_BYTES = 64 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** errors on this route use the OAuth 2.0 shape (RFC 6749 section 5.2), not the envelope */
    oauthErrors?: boolean;
  }
  interface FastifyReply {
    /** the error_code (or OAuth error) of an error answer, for hooks that log it; null otherwise */
    errorCode: string | null;
  }
}

/** The success envelope (docs/contract.md#envelopes-timestamps-and-money). */
export function envelope<T>(
  code: number,
  message: string,
  data: T,
): { code: number; message: string; data: T } {
  return { code, message, data };
}

/** Sends a 200 whose JSON body was serialized earlier (by the route's own serializer). */
export function sendSerialized(reply: FastifyReply, body: Buffer) {
  return reply.code(200).type('application/json; charset=utf-8').send(body);
}

export function send<T>(reply: FastifyReply, code: number, message: string, data: T) {
  return reply.code(code).send(envelope(code, message, data));
}

// ajv-formats is published as CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}
// Bodies are taken as typed JSON (a "5" is not a number); query strings and paths are text, so coerce.
const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};

/** ajv errors -> [{field, message}] with dotted field paths a person can read. */
export function fieldErrors(errors: ErrorObject[], part?: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let path = e.instancePath
      .replace(/^\//, '')
      .replace(/\//g, '.')
      .replace(/\.(\d+)(?=\.|$)/g, '[$1]');
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      path = path ? `${path}.${missing}` : missing;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      path = path ? `${path}.${extra}` : extra;
      message = 'is not a recognised field';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      continue; // the branch errors say more
    }
    if (!path) path = part === 'querystring' ? 'query' : part === 'body' ? 'body' : (part ?? 'request');
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: path, message });
  }
  return out;
}

/** Maps anything thrown to an ApiError; the only place error bodies are decided. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (databaseUnavailable(error)) return databaseUnavailableError();
  const e = error as FastifyError & { validation?: ErrorObject[]; validationContext?: string };
  if (e && Array.isArray(e.validation)) {
    const errors = fieldErrors(e.validation, e.validationContext);
    const first = errors[0];
    return new ApiError(
      'validation_failed',
      first ? `${first.field} ${first.message}` : 'The request is not valid.',
      {
        errors,
      },
    );
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('validation_failed', 'The request body is empty; send a JSON object.', {
        errors: [{ field: 'body', message: 'is empty' }],
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('validation_failed', 'The request body is not valid JSON.', {
        errors: [{ field: 'body', message: 'is not valid JSON' }],
      });
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH': // a path parameter too long for the router names nothing
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new ApiError('not_found', 'No such route.');
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (e instanceof SyntaxError && status === 400) {
    return new ApiError('validation_failed', 'The request body is not valid JSON.', {
      errors: [{ field: 'body', message: 'is not valid JSON' }],
    });
  }
  if (status === 404) return new ApiError('not_found', 'No such route.');
  if (status === 405) return new ApiError('method_not_allowed', 'Method not allowed on this route.');
  if (status === 413)
    return new ApiError('payload_too_large', `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
  if (status === 415)
    return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
  if (status >= 400 && status < 500) return new ApiError('validation_failed', 'The request is not valid.');
  return new ApiError('internal_error', 'Something went wrong on our side. Quote the request id to support.');
}

/** 503 while the database cannot be reached: the request may be retried as it is. */
function databaseUnavailableError(): ApiError {
  return new ApiError('service_unavailable', 'The service is briefly unavailable; retry in a few seconds.', {
    headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}

const REALM = 'Bearer realm="service-partner"';

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  reply.header('X-Request-Id', request.id);
  reply.errorCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', REALM);
  const body: ErrorOut = {
    code: error.status,
    message: error.message,
    error_code: error.code,
    request_id: request.id,
  };
  if (error.errors) body.errors = error.errors;
  return reply.code(error.status).type('application/json; charset=utf-8').send(body);
}

/** OAuth 2.0 error response (RFC 6749 section 5.2), used by the token endpoint. */
export function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  reply.errorCode = error;
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  return reply
    .code(status)
    .header('Cache-Control', 'no-store')
    .header('Pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send({ error, error_description: description });
}

const OAUTH_ERRORS: Record<number, [number, string]> = {
  429: [429, 'rate_limited'],
  500: [500, 'server_error'],
  503: [503, 'temporarily_unavailable'],
};

/**
 * How a failed request is logged, on every host: an unreachable database once per outage (its
 * watch), a shed request not at all (the overload monitor logs each episode), another 5xx with
 * its error, a 4xx as one info line.
 */
export function logRequestError(
  ctx: AppContext,
  request: FastifyRequest,
  error: unknown,
  apiError: ApiError,
  message: string,
): void {
  if (isShedError(error)) return;
  if (databaseUnavailable(error)) outageWatch(ctx.database, ctx.log).failed(error);
  else if (apiError.status >= 500) request.log.error({ err: error }, message);
  else request.log.info({ error_code: apiError.code }, apiError.message);
}

export interface CreateHostOptions {
  name: HostName;
  logger: Logger;
  /** answers unknown routes instead of the JSON envelope (the organizer app's HTML page) */
  notFound?: (request: FastifyRequest, reply: FastifyReply) => unknown;
}

export function createHost(ctx: AppContext, options: CreateHostOptions): Host {
  const app = buildFastify(ctx, options);
  app.decorateReply('errorCode', null);
  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies on the API; the token endpoint adds its own parsers in its own scope.
  app.removeContentTypeParser('text/plain');

  app.server.on('connect', refuseConnect.bind(app));

  traceRequests(app);
  startEachRequest(app, outageWatch(ctx.database, ctx.log));
  const overload = watchOverload(app, ctx);
  // The organizer app and admin API are not shed: the operator needs them most during an overload.
  if (options.name !== 'app') shedUnderOverload(app, overload);
  addBodyDeadline(app, ctx.config.http.bodyTimeoutMs);
  refuseUnstorableInput(app);
  closeConnectionsOnShutdown(app);
  setErrorHandlers(app, ctx, options.notFound);
  addHealthRoutes(app, ctx, overload);
  return app;
}

/** The Fastify instance of a host, with its limits, timeouts, request ids and logging. */
function buildFastify(ctx: AppContext, options: CreateHostOptions): Host {
  const limits = ctx.config.http;
  const timeouts = serverTimeouts(limits);
  return Fastify({
    // The organizer app's queries (order searches) carry buyers' personal data: names only.
    loggerInstance: options.logger.child(
      { host: options.name },
      options.name === 'app' ? QUERY_NAMES_ONLY : undefined,
    ),
    genReqId: () => newId('req'),
    // a per-request logger only for requests that log (a route's own level makes one at once)
    childLoggerFactory: (logger, bindings, options) =>
      options.level
        ? logger.child(bindings, options)
        : (new LazyChildLogger(logger as Logger, bindings, options) as unknown as typeof logger),
    logController: requestLogController({ requestIdLogLabel: 'request_id' }),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: false,
    // Slow clients are cut off: headers and whole requests (Node), idle keep-alive connections.
    // The body's own deadline is boundBody's, below, so that it is answered in the envelope.
    http: timeouts,
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    clientErrorHandler: answerClientError,
    trustProxy: ctx.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    frameworkErrors: (error, request, reply) => {
      void sendError(request, reply, toApiError(error));
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as Host;
}

/** An Expect Node takes for 100-continue (its own test): every other one is refused with 417. */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

/** Answer without the database: the health routes, which say themselves whether it is there. */
const WITHOUT_DATABASE = new Set(['/healthz', '/readyz']);

/**
 * Every request: its X-Request-Id, its response tracked, and a Host header if HTTP/1.1; while the
 * database is known to be out of reach, 503 at once rather than a wait for a connection that
 * queues behind others' connect time-outs. A callback hook (no promise): this runs on every
 * request.
 */
function startEachRequest(app: Host, outage: OutageWatch): void {
  // Node answers an Expect other than 100-continue with a bare 417 of its own, before any route:
  // the request comes here instead, to be refused in the envelope with its request id.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    trackResponse(reply.raw);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(
        new ApiError('validation_failed', 'An HTTP/1.1 request must carry a Host header.', {
          headers: { Connection: 'close' },
        }),
      );
      return;
    }
    const expect = request.headers.expect;
    if (expect !== undefined && !CONTINUE_EXPECTATION.test(expect)) {
      done(
        new ApiError(
          'expectation_failed',
          'The only Expect this service meets is 100-continue; send the request without this Expect header.',
          { headers: { Connection: 'close' } },
        ),
      );
      return;
    }
    if (outage.down && !WITHOUT_DATABASE.has(request.url)) {
      done(Object.assign(databaseUnavailableError(), { cause: OutageWatch.refusal }));
      return;
    }
    done();
  });
}

/**
 * A body must arrive within REQUEST_BODY_TIMEOUT_MS of its headers (408 request_timeout). Only
 * routes that take a body get the hook: GET and HEAD routes run nothing more per request.
 */
function addBodyDeadline(app: Host, bodyTimeoutMs: number): void {
  const bodyDeadline: preParsingHookHandler = (request, reply, payload, done) => {
    // A body already all here (or none) needs no deadline.
    if (bodyArrived(request.raw)) {
      done(null, payload);
      return;
    }
    done(null, boundBody(payload, reply.raw, bodyTimeoutMs));
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const own = route.preParsing;
    route.preParsing = [bodyDeadline, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  });
}

/**
 * PostgreSQL text cannot hold NUL, and a lone surrogate would be stored altered or fail the
 * statement: refuse both before any query. A path with either names nothing (404); in a body or
 * query it is bad input. Cursors are left to their route, which refuses anything it did not
 * issue. A preHandler, so that a caller without a valid credential hears 401 first.
 */
function refuseUnstorableInput(app: Host): void {
  app.addHook('preHandler', async (request) => {
    if (unstorableField(request.params, 'path')) throw new ApiError('not_found', 'No such resource.');
    const { cursor: _cursor, ...query } = (request.query ?? {}) as Record<string, unknown>;
    const found = unstorableField(query, 'query') ?? unstorableField(request.body, 'body');
    if (found) {
      throw new ApiError('validation_failed', `${found.field} ${found.message}.`, { errors: [found] });
    }
  });
}

/**
 * While shutting down, in-flight requests finish and their connections are not kept alive,
 * so the listener can close as soon as the last response is written.
 */
function closeConnectionsOnShutdown(app: Host): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('Connection', 'close');
    return payload;
  });
}

/** Every error and unknown route answered in the envelope (or as OAuth errors where a route asks). */
function setErrorHandlers(
  app: Host,
  ctx: AppContext,
  notFound: CreateHostOptions['notFound'] | undefined,
): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    logRequestError(ctx, request, error, apiError, 'request failed');
    if (request.routeOptions.config?.oauthErrors) {
      // RFC 6749 has temporarily_unavailable for a 503 (an unreachable database).
      const status = apiError.status >= 500 && apiError.status !== 503 ? 500 : apiError.status;
      const [oauthStatus, code] = OAUTH_ERRORS[status] ?? [400, 'invalid_request'];
      return sendOAuthError(reply, oauthStatus, code, apiError.message, apiError.headers);
    }
    return sendError(request, reply, apiError);
  });

  app.setNotFoundHandler(
    notFound ?? ((request, reply) => sendError(request, reply, new ApiError('not_found', 'No such route.'))),
  );
}

/**
 * /healthz while the process runs; /readyz once the database and migrations are, and not overloaded.
 * A missing Redis is degraded, not unready (limits count in memory meanwhile): named in `degraded`.
 */
function addHealthRoutes(app: Host, ctx: AppContext, overload: OverloadMonitor): void {
  app.get('/healthz', { schema: { hide: true } }, async () => envelope(200, 'ok', { status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (overload.overloaded) return sendError(_request, reply, overload.error());
    try {
      await ctx.database.rows(sql`SELECT 1`);
      if (!(await migrationsCurrent(ctx.database))) throw new Error('migrations pending');
      return envelope(200, 'ready', {
        status: 'ready',
        database: ctx.database.kind,
        degraded: ctx.limiter.degraded(),
      });
    } catch (error) {
      if (databaseUnavailable(error)) {
        outageWatch(ctx.database, ctx.log).failed(error);
        return sendError(_request, reply, databaseUnavailableError());
      }
      return sendError(
        _request,
        reply,
        new ApiError('service_unavailable', 'The database is not ready.', {
          headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
        }),
      );
    }
  });
}

export function isErrorCode(code: string): code is ErrorCode {
  return code in ERROR_STATUS;
}
