// OpenTelemetry traces, with the product's setup and an in-memory exporter in place of OTLP: a
// request with an incoming traceparent continues its trace, the provider call it makes (through the
// simulator, behind a recording proxy on loopback) sends a traceparent of that trace, a webhook
// delivery sends one of its order's trace, and the request's log lines carry the trace id. The real
// OTLP exporter posts to a collector on loopback. With tracing off, no traceparent is sent and no
// log line has a trace id.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { eq } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { sendRequest } from '../../src/payments/provider-http.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { flushTraces, startTracing, traceJob, tracesUrl } from '../../src/platform/tracing.ts';
import { bearer, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  createOrder,
  makeShop,
  pump,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';

/** Forwards every request to the simulator and keeps the headers it came with. */
async function startRecordingProxy(
  target: string,
): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) {
          headers[name] = value;
        }
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url}`, { method: req.method, headers, body }).then(
        async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          res.writeHead(answer.status, {
            'content-type': answer.headers.get('content-type') ?? 'text/plain',
          });
          res.end(text);
        },
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

interface LogLine {
  msg?: string;
  request_id?: string;
  trace_id?: string;
  span_id?: string;
}

function memoryLogger() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

/** W3C traceparent: version, trace id, parent span id, flags. */
function parseTraceparent(value: unknown): { traceId: string; spanId: string } | null {
  const match = typeof value === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(value) : null;
  return match ? { traceId: match[1]!, spanId: match[2]! } : null;
}

interface World {
  h: Harness;
  sim: Simulator;
  proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  receiver: Receiver;
  lines: LogLine[];
}

async function startWorld(exporter: InMemorySpanExporter | undefined): Promise<World> {
  const sim = await startSimulator({ timeScale: 0.01 });
  const proxy = await startRecordingProxy(sim.url);
  const { lines, logger } = memoryLogger();
  const h = await startWebhookHarness(
    { SIMULATOR_URL: proxy.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' },
    { service: { logger, ...(exporter && { spanExporter: exporter }) } },
  );
  return { h, sim, proxy, receiver: await startReceiver(), lines };
}

async function stopWorld(world: World): Promise<void> {
  await world.h.close();
  await world.receiver.close();
  world.proxy.server.closeAllConnections();
  await new Promise<void>((resolve) => world.proxy.server.close(() => resolve()));
  await world.sim.close();
}

/**
 * An order paid through the simulator: the pay request carries `traceparent`, then the payment is
 * approved, settled and its order.paid delivered to the receiver. Returns the pay request's id.
 */
async function payWithTraceparent(world: World, traceparent: string): Promise<string> {
  const { h, sim, receiver } = world;
  const shop = await makeShop(h);
  await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.paid']);
  const order = await createOrder(h, shop, shop.paidTicket);
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${order.id}/pay`,
    headers: { ...bearer(shop.token), traceparent },
    payload: { payment_method: 'momo', phone: testPhoneNumber('momo', '01') },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const db = h.service.ctx.database.db;
  const [attempt] = await db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, order.id));
  sim.approve(attempt!.reference);
  assert.equal(await reconcileAttempt(h.service.ctx, attempt!.reference), null);
  await pump(h, () => receiver.requests.length > 0, 30_000);
  return String(res.headers['x-request-id']);
}

const newTraceId = () => randomBytes(16).toString('hex');
const newSpanId = () => randomBytes(8).toString('hex');

describe('tracing on, with an in-memory exporter', () => {
  const exporter = new InMemorySpanExporter();
  let world: World;
  before(async () => {
    world = await startWorld(exporter);
  });
  after(async () => {
    await stopWorld(world);
  });

  test('the request continues the incoming trace; its provider call, logs and webhook carry trace ids', async () => {
    const traceId = newTraceId();
    const parentId = newSpanId();
    const requestId = await payWithTraceparent(world, `00-${traceId}-${parentId}-01`);
    await flushTraces();
    const spans = exporter.getFinishedSpans();

    const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /v1/orders/:orderId/pay');
    assert.ok(server, 'a server span for the pay request');
    assert.equal(server.spanContext().traceId, traceId);
    assert.equal(server.parentSpanContext?.spanId, parentId);
    assert.equal(server.attributes['http.request.method'], 'POST');
    assert.equal(server.attributes['http.route'], '/v1/orders/:orderId/pay');
    assert.equal(server.attributes['http.response.status_code'], 202);

    // The provider calls (token, request-to-pay) went out inside the trace, each in a CLIENT span.
    const sent = world.proxy.seen.map((headers) => parseTraceparent(headers.traceparent));
    const inTrace = sent.filter((p) => p?.traceId === traceId);
    assert.ok(inTrace.length >= 1, `a provider call with trace ${traceId}: ${JSON.stringify(sent)}`);
    const clientIds = new Set(
      spans
        .filter((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === traceId)
        .map((s) => s.spanContext().spanId),
    );
    for (const p of inTrace) assert.ok(clientIds.has(p!.spanId), 'traceparent names the CLIENT span');

    // Every line Fastify and the handlers wrote for the request carries its trace id.
    const requestLines = world.lines.filter((l) => l.request_id === requestId);
    assert.ok(requestLines.some((l) => l.msg === 'incoming request'));
    assert.ok(requestLines.some((l) => l.msg === 'request completed'));
    for (const line of requestLines) assert.equal(line.trace_id, traceId, JSON.stringify(line));
    assert.ok(requestLines.every((l) => /^[0-9a-f]{16}$/.test(l.span_id ?? '')));

    // The delivery's CLIENT span, named in its traceparent, continues the trace of the order: the
    // request that created it (the payment, settled here outside any span, continued it too).
    const delivered = parseTraceparent(world.receiver.requests[0]!.headers.traceparent);
    assert.ok(delivered, 'the webhook delivery carries a traceparent');
    const deliverySpan = spans.find((s) => s.spanContext().spanId === delivered.spanId);
    assert.ok(deliverySpan, 'its span was exported');
    assert.equal(deliverySpan.kind, SpanKind.CLIENT);
    assert.equal(deliverySpan.spanContext().traceId, delivered.traceId);
    assert.equal(deliverySpan.attributes['http.response.status_code'], 204);
    const created = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /v1/orders');
    assert.ok(created, 'a server span for the order creation');
    assert.equal(deliverySpan.spanContext().traceId, created.spanContext().traceId);
    assert.equal(deliverySpan.parentSpanContext?.spanId, created.spanContext().spanId);
  });

  test('a request without traceparent starts a trace of its own', async () => {
    exporter.reset();
    const res = await world.h.service.api.inject({ url: '/healthz' });
    assert.equal(res.statusCode, 200);
    await flushTraces();
    const server = exporter.getFinishedSpans().find((s) => s.name === 'GET /healthz');
    assert.ok(server);
    assert.equal(server.parentSpanContext, undefined);
    const line = world.lines.find((l) => l.request_id === res.headers['x-request-id']);
    assert.equal(line?.trace_id, server.spanContext().traceId);
  });

  test('a provider call that gets no answer is a failed CLIENT span', async () => {
    exporter.reset();
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    const outcome = await sendRequest('http://127.0.0.1:1/mtn/token/', { method: 'POST' }, 500);
    assert.equal(outcome.ok, false);
    await flushTraces();
    const [span] = exporter.getFinishedSpans();
    assert.equal(span?.kind, SpanKind.CLIENT);
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.equal(span.attributes['error.type'], 'no_answer');
    assert.equal(span.attributes['url.path'], '/mtn/token/');
  });
});

describe('tracing settings', () => {
  test('OTEL_EXPORTER_OTLP_ENDPOINT is an http(s) URL; traces go to its /v1/traces', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: 'memory://' };
    assert.deepEqual(loadConfig(base).tracing, { endpoint: undefined, serviceName: 'partner-ticketing' });
    const on = loadConfig({
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_SERVICE_NAME: 'tickets-eu',
    });
    assert.deepEqual(on.tracing, { endpoint: 'http://127.0.0.1:4318', serviceName: 'tickets-eu' });
    assert.throws(
      () => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
      (error: unknown) =>
        error instanceof ConfigError && /^OTEL_EXPORTER_OTLP_ENDPOINT must be/.test(error.message),
    );
    assert.equal(tracesUrl('http://127.0.0.1:4318'), 'http://127.0.0.1:4318/v1/traces');
    assert.equal(tracesUrl('https://otel.example.org/otlp/'), 'https://otel.example.org/otlp/v1/traces');
  });
});

describe('the OTLP exporter', () => {
  test('posts the spans to the endpoint /v1/traces with OTEL_EXPORTER_OTLP_HEADERS', async () => {
    const received: Array<{ path: string; authorization: string | undefined; body: string }> = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'authorization=Bearer collector-token';
    const tracing = startTracing({ endpoint, serviceName: 'tickets-probe' });
    delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    try {
      await traceJob({ kind: 'probe', id: 1 }, async () => {});
      await tracing.shutdown();
      assert.equal(received.length, 1);
      assert.equal(received[0]!.path, '/v1/traces');
      assert.equal(received[0]!.authorization, 'Bearer collector-token');
      assert.match(received[0]!.body, /tickets-probe/);
      assert.match(received[0]!.body, /job probe/);
    } finally {
      await tracing.shutdown();
      collector.closeAllConnections();
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});

describe('tracing off', () => {
  let world: World;
  before(async () => {
    world = await startWorld(undefined);
  });
  after(async () => {
    await stopWorld(world);
  });

  test('no traceparent is sent to the provider or the webhook receiver, and no line has a trace id', async () => {
    const requestId = await payWithTraceparent(world, `00-${newTraceId()}-${newSpanId()}-01`);
    assert.ok(world.proxy.seen.length > 0);
    for (const headers of world.proxy.seen) assert.equal(headers.traceparent, undefined);
    for (const request of world.receiver.requests) assert.equal(request.headers.traceparent, undefined);
    assert.ok(world.lines.some((l) => l.request_id === requestId));
    for (const line of world.lines) assert.equal(line.trace_id, undefined, JSON.stringify(line));
  });
});
