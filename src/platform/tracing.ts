// OpenTelemetry traces, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test injects an exporter):
// a SERVER span per request on each host, a CLIENT span per provider call, webhook delivery and
// database statement (statement-spans.ts; each call out sending W3C traceparent and tracestate),
// and a span per job.
// Work that a request causes later (a job, a webhook delivery, the buyer's steps on the checkout
// page) continues the request's trace from a context stored with its row (trace_context). Spans
// are made by hand through the public API, not by import hooks (docs/decisions/spans-by-hand.md).
// Off, nothing is registered: every helper here runs its work directly, makes no span and stores
// no context, and the API keeps its no-op tracer.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { serializeError } from './logger.ts';

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's OTLP/HTTP base URL; absent, tracing is off */
  endpoint: string | undefined;
  /** OTEL_SERVICE_NAME: the traces' service.name */
  serviceName: string;
}

export interface Tracing {
  /** exports the spans still buffered (waiting SHUTDOWN_EXPORT_MS at most), then unregisters everything */
  shutdown(): Promise<void>;
}

/** The longest a stop waits for the last spans' export: an unreachable collector must not hold it. */
const SHUTDOWN_EXPORT_MS = 3000;

let tracer: Tracer | null = null;
let provider: BasicTracerProvider | null = null;

/** OTLP/HTTP sends traces to the base endpoint's /v1/traces (the OTLP exporter specification). */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Registers the tracer provider (one per process), the AsyncLocalStorage context manager and the
 * W3C propagator. `exporter` replaces the OTLP exporter (tests use an in-memory one) and turns
 * tracing on by itself. The exporter reads OTEL_EXPORTER_OTLP_HEADERS and the rest of its OTEL_*
 * variables itself.
 */
export function startTracing(settings: TracingSettings, options: { exporter?: SpanExporter } = {}): Tracing {
  const exporter =
    options.exporter ??
    (settings.endpoint === undefined ? null : new OTLPTraceExporter({ url: tracesUrl(settings.endpoint) }));
  if (exporter === null) return { shutdown: async () => {} };
  if (provider !== null) throw new Error('tracing is already started in this process');
  const started = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(started);
  provider = started;
  tracer = started.getTracer('partner-ticketing');
  return {
    async shutdown() {
      if (provider !== started) return;
      tracer = null;
      provider = null;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_EXPORT_MS);
        timer.unref();
      });
      try {
        await Promise.race([started.shutdown(), late]);
      } finally {
        clearTimeout(timer);
        trace.disable();
        propagation.disable();
        context.disable();
      }
    },
  };
}

/** Exports every finished span now (tests read the in-memory exporter after it). */
export async function flushTraces(): Promise<void> {
  await provider?.forceFlush();
}

/** The tracer while tracing is on, else null (statement-spans.ts makes its spans with it). */
export function activeTracer(): Tracer | null {
  return tracer;
}

/** Whether spans are being made: what is set up once (the database's statement spans) asks this. */
export function tracingOn(): boolean {
  return tracer !== null;
}

// ---------------------------------------------------------------------------------------------
// Requests

interface RequestTrace {
  span: Span;
  context: Context;
}

const requestTraces = new WeakMap<FastifyRequest, RequestTrace>();

/** The request's SERVER span, started on first use, continuing an incoming traceparent. */
function requestTrace(request: FastifyRequest, active: Tracer): RequestTrace {
  let traced = requestTraces.get(request);
  if (traced !== undefined) return traced;
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const route = request.routeOptions.url;
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: request.method };
  if (route !== undefined) attributes[ATTR_HTTP_ROUTE] = route;
  const span = active.startSpan(
    route === undefined ? request.method : `${request.method} ${route}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
  );
  traced = { span, context: trace.setSpan(parent, span) };
  requestTraces.set(request, traced);
  return traced;
}

/**
 * Fastify writes "incoming request" before the first hook and "request completed" after the
 * last: this controller writes both inside the request's span, so that they carry its trace id.
 */
class TracedLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    const active = tracer;
    if (active === null) return super.incomingRequest(request, reply, metadata);
    context.with(requestTrace(request, active).context, () =>
      super.incomingRequest(request, reply, metadata),
    );
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ) {
    const traced = requestTraces.get(request);
    if (traced === undefined) return super.requestCompleted(error, request, reply, metadata);
    context.with(traced.context, () => super.requestCompleted(error, request, reply, metadata));
  }
}

/** A host's log controller: Fastify's own when tracing is off. */
export function requestLogController(options: ConstructorParameters<typeof LogController>[0]): LogController {
  return tracer === null ? new LogController(options) : new TracedLogController(options);
}

/**
 * The request's hooks run in its span's context, and so does its body's reading (the raw request's
 * listeners are bound to it), so that the handler, its logs and its calls out are inside the span.
 * The span ends with the response. Off, no hook is added.
 */
export function traceRequests(app: Pick<FastifyInstance, 'addHook'>): void {
  if (tracer === null) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const active = tracer;
    if (active === null) return done();
    const traced = requestTrace(request, active);
    context.bind(traced.context, request.raw);
    context.with(traced.context, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const traced = requestTraces.get(request);
    if (traced === undefined) return done();
    const status = reply.statusCode;
    traced.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 500) {
      traced.span.setAttribute(ATTR_ERROR_TYPE, String(status));
      traced.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    traced.span.end();
    context.with(traced.context, done);
  });
}

// ---------------------------------------------------------------------------------------------
// Calls out and jobs

/** What a call out came to: the HTTP status, or none and why. */
export interface CallOutcome {
  status: number | null;
  error: string | null;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * An outgoing HTTP call in a CLIENT span. `call` gets the headers to add (traceparent, tracestate;
 * none when tracing is off). Only the URL's host, port and path are recorded: a webhook URL's query
 * may hold a partner's secret.
 */
export async function traceCallOut<T>(
  method: string,
  url: URL | string,
  call: (traceHeaders: Readonly<Record<string, string>>) => Promise<T>,
  outcomeOf: (result: T) => CallOutcome,
): Promise<T> {
  const active = tracer;
  if (active === null) return call(NO_HEADERS);
  const span = active.startSpan(method, { kind: SpanKind.CLIENT, attributes: urlAttributes(method, url) });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  try {
    const result = await call(headers);
    const outcome = outcomeOf(result);
    if (outcome.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
    if (outcome.status === null || outcome.status >= 400) {
      span.setAttribute(ATTR_ERROR_TYPE, outcome.status === null ? 'no_answer' : String(outcome.status));
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(outcome.error !== null && { message: outcome.error }),
      });
    }
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : '' });
    throw error;
  } finally {
    span.end();
  }
}

/** Method, host, port and path of a call out; a URL that does not parse (the call fails) gives the method alone. */
function urlAttributes(method: string, url: URL | string): Attributes {
  const parsed = typeof url === 'string' ? URL.parse(url) : url;
  if (parsed === null) return { [ATTR_HTTP_REQUEST_METHOD]: method };
  return {
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_SERVER_ADDRESS]: parsed.hostname,
    [ATTR_SERVER_PORT]: Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)),
    [ATTR_URL_PATH]: parsed.pathname,
  };
}

/**
 * One job's run as a span, `job <kind>`: a child of the context stored with the job when it was
 * queued (jobs.trace_context, see jobsInsert), so that it continues the trace of the request that
 * queued it; the root of a trace of its own when none was stored.
 */
export async function traceJob<T>(
  job: { kind: string; id: number; traceContext?: string | null },
  run: () => Promise<T>,
): Promise<T> {
  const active = tracer;
  if (active === null) return run();
  const parent = job.traceContext ? storedParent(job.traceContext) : ROOT_CONTEXT;
  return active.startActiveSpan(
    `job ${job.kind}`,
    { kind: SpanKind.INTERNAL, attributes: { 'job.kind': job.kind, 'job.id': job.id } },
    parent,
    async (span) => {
      try {
        return await run();
      } finally {
        span.end();
      }
    },
  );
}

/** Marks the active span failed (a job whose handler threw); nothing when tracing is off. */
export function markSpanFailed(error: unknown): void {
  if (tracer === null) return;
  const span = trace.getActiveSpan();
  span?.setStatus({ code: SpanStatusCode.ERROR, message: safeMessage(error) });
}

/**
 * An error's message as a span may hold it: as the logs write it (logger.ts), without a failed
 * statement's parameters or the values PostgreSQL quotes in its data errors.
 */
function safeMessage(error: unknown): string {
  const message = (serializeError(error) as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : '';
}

// ---------------------------------------------------------------------------------------------
// Stored trace context: work done later, elsewhere, continues the trace that caused it

/**
 * The active span's context as a row stores it (trace_context): the W3C traceparent, then a comma
 * and the tracestate when there is one (a traceparent holds no comma). Null when tracing is off or
 * no span is active: nothing is serialized, and nothing stored, when off.
 */
export function currentTraceContext(): string | null {
  if (tracer === null) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const parent = carrier.traceparent;
  if (parent === undefined) return null;
  return carrier.tracestate ? `${parent},${carrier.tracestate}` : parent;
}

/** A stored trace context as a parent; one that does not parse gives the root context. */
function storedParent(stored: string): Context {
  const comma = stored.indexOf(',');
  const carrier =
    comma < 0
      ? { traceparent: stored }
      : { traceparent: stored.slice(0, comma), tracestate: stored.slice(comma + 1) };
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/**
 * Runs `work` in the trace stored with a row (a checkout session's, an order's, an outbox
 * event's), so that the steps of one order make one trace whichever request or process takes them:
 * - outside any span (a background loop), `work` runs with the stored context as its parent;
 * - inside a span of that trace already (a job the trace queued), `work` runs as it is;
 * - inside a span of another trace (the buyer's browser's request on the checkout page), `work`
 *   runs in a new span `name` whose parent is the stored context, linked to that span.
 * Off, or with nothing stored (tracing was off when the row was written), `work` runs as it is.
 */
export function continueStoredTrace<T>(
  stored: string | null | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<T> {
  const active = tracer;
  if (active === null || !stored) return work();
  const parent = storedParent(stored);
  const parentSpan = trace.getSpanContext(parent);
  if (parentSpan === undefined) return work();
  const current = trace.getActiveSpan()?.spanContext();
  if (current === undefined) return context.with(parent, work);
  if (current.traceId === parentSpan.traceId) return work();
  const links: Link[] = [{ context: current }];
  return active.startActiveSpan(name, { kind: SpanKind.INTERNAL, links }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: safeMessage(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
