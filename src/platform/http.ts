// The HTTP plumbing every host shares: building a host, request ids, the success envelope, the
// hooks every request passes (Host, Expect, an outage, body deadlines, unstorable text), health
// routes. Validation is validation.ts's, the error answers error-replies.ts's.
import Fastify, {
  type FastifyBaseLogger,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type preParsingHookHandler,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
import { databaseUnavailable, OutageWatch, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from './db-errors.ts';
import { ApiError, BODY_LIMIT_BYTES } from './errors.ts';
import {
  databaseUnavailableError,
  logRequestError,
  OAUTH_ERRORS,
  sendError,
  sendOAuthError,
  toApiError,
} from './error-replies.ts';
import { buildSerializer, validatorCompiler } from './validation.ts';
import { newId } from './ids.ts';
import { shedUnderOverload } from './shed-requests.ts';
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
  startEachRequest(app, ctx.outage);
  // The organizer app and admin API are not shed: the operator needs them most during an overload.
  if (options.name !== 'app') shedUnderOverload(app, ctx.overload);
  addBodyDeadline(app, ctx.config.http.bodyTimeoutMs);
  refuseUnstorableInput(app);
  closeConnectionsOnShutdown(app);
  setErrorHandlers(app, ctx, options.notFound);
  addHealthRoutes(app, ctx);
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
    schemaController: { compilersFactory: { buildSerializer } },
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
 * While shutting down, in-flight requests finish and their connections are not kept alive, and a
 * connection with no request in flight (a proxy's spare, a client that never sent one) closes at
 * once: Node's own close ends only connections that have finished a request, so these would hold
 * the listener open for the whole keep-alive timeout.
 */
function closeConnectionsOnShutdown(app: Host): void {
  let closing = false;
  const open = new Set<Socket>();
  const busy = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    busy.add(socket);
    response.once('close', () => {
      busy.delete(socket);
      // A response that began before the close (a stream) carries no Connection: close.
      if (closing) socket.end();
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of open) if (!busy.has(socket)) socket.destroy();
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

  setNotFoundBeforeBody(
    app,
    notFound ?? ((request, reply) => sendError(request, reply, new ApiError('not_found', 'No such route.'))),
  );
}

/**
 * A path no route has is 404 whatever its body: the not-found answer goes out on arrival, from an
 * onRequest hook that runs after the scope's own (credentials, limits, language), so no body parser
 * or body limit speaks first (an empty or broken JSON body, or a huge Content-Length, was 400 or
 * 413). The unread body is dropped as for any answer given before the body. Fastify runs every
 * lifecycle hook named in the not-found options, though its typings name only two.
 */
export function setNotFoundBeforeBody(
  scope: Host,
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown,
): void {
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    await notFound(request, reply);
    return reply;
  };
  scope.setNotFoundHandler({ onRequest } as object, notFound);
}

/**
 * /healthz while the process runs; /readyz once the database and migrations are, and not overloaded.
 * A missing Redis is degraded, not unready (limits count in memory meanwhile): named in `degraded`.
 */
function addHealthRoutes(app: Host, ctx: AppContext): void {
  const { overload } = ctx;
  // `payments` tells tools such as `ticketing trigger` whether a payment here is a sandbox one.
  const payments = ctx.config.payments.provider;
  app.get('/healthz', { schema: { hide: true } }, async () =>
    envelope(200, 'ok', { status: 'ok', payments }),
  );
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
        ctx.outage.failed(error);
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
