// One trace per order: a hosted checkout paid through the simulator, with the product's tracing
// and an in-memory exporter in place of OTLP. The partner's POST /v1/checkout-sessions, the
// buyer's order on the checkout page (its own request, linked), the payment prompt, the payment
// job, the order paid and its order.paid delivery share one trace, each span a child of the one
// that caused it, from contexts stored with the session, order, job and outbox event. Database
// statements are spans with their text and never their values. With tracing off nothing is stored.
// The span tree is printed (and written to TRACE_TREE_FILE), for reading one order's trace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { eq, sql } from 'drizzle-orm';
import { SESSION_SWEEP_JOB } from '../../src/checkout/session-jobs.ts';
import { CONFIRMATION_JOB } from '../../src/confirmations/send-confirmation.ts';
import { HOLD_EXPIRY_JOB } from '../../src/orders/write-orders.ts';
import { PAYMENT_JOB } from '../../src/payments/payment-schedule.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { describeStatement } from '../../src/platform/statement-spans.ts';
import { flushTraces } from '../../src/platform/tracing.ts';
import { bearer, type Harness } from '../helpers/harness.ts';
import { fullForm, makeRace, postForm, readSession, type Race } from '../site/site-helpers.ts';
import {
  createEndpoint,
  pump,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';

/** Where the span tree is written, besides the test's output. */
const TRACE_TREE_FILE = '/tmp/tracing-order-span-tree.txt';

/** What the buyer types (site-helpers.ts fullForm) and the prefill: none may be in a span. */
const BUYER_DATA = ['amina@example.org', 'Amina Nakato', 'Okello Brian', '0772123456', '256772123456'];

interface World {
  h: Harness;
  sim: Simulator;
  receiver: Receiver;
  race: Race;
}

async function startWorld(exporter: InMemorySpanExporter | undefined): Promise<World> {
  // The simulator settles nothing by itself in a test (time scale 1); sim.approve decides.
  const sim = await startSimulator({ timeScale: 1 });
  const h = await startWebhookHarness(
    { SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' },
    { service: { ...(exporter && { spanExporter: exporter }) } },
  );
  const race = await makeRace(h);
  const receiver = await startReceiver();
  await createEndpoint(h, race.partner.organizationId, receiver.url, ['order.paid']);
  return { h, sim, receiver, race };
}

async function stopWorld(world: World): Promise<void> {
  await world.h.close();
  await world.receiver.close();
  await world.sim.close();
}

/**
 * The partner creates a session (its endpoint was registered at the start); the buyer places the
 * order on the checkout page and approves the prompt; the jobs run until order.paid reaches the
 * receiver.
 */
async function payOrder(world: World, sessionHeaders: Record<string, string> = {}) {
  const { h, sim, receiver, race } = world;
  const created = await h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: { ...bearer(race.token), 'content-type': 'application/json', ...sessionHeaders },
    payload: JSON.stringify({
      event_id: race.eventId,
      on_success_url: 'https://shop.example.org/thanks?session_id={CHECKOUT_SESSION_ID}',
      on_cancel_url: 'https://shop.example.org/cart',
      prefill: { buyer_name: 'Amina Nakato', buyer_email: 'amina@example.org' },
    }),
  });
  assert.equal(created.statusCode, 201, created.body);
  const sessionId = created.json().data.id as string;
  const placed = await postForm(
    h,
    `/checkout/${sessionId}/order`,
    fullForm(race, { phone: testPhoneNumber('momo', '01') }),
  );
  assert.equal(placed.statusCode, 303, placed.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const orderId = (await readSession(h, race, sessionId)).order!.id;
  const [attempt] = await h.service.ctx.database.db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId));
  assert.ok(sim.approve(attempt!.reference), 'the prompt is out at the simulator');
  const deliveries = receiver.requests.length;
  await pump(h, () => receiver.requests.length > deliveries, 30_000);
  assert.equal((await readSession(h, race, sessionId)).order!.status, 'paid');
  return { sessionId, orderId, delivery: receiver.requests.at(-1)! };
}

/** The trace_context stored with each kind of row (the jobs still queued, the outbox events). */
async function storedContexts(h: Harness, sessionId: string, orderId: string) {
  const rows = <T>(query: ReturnType<typeof sql>) => h.service.ctx.database.rows<T>(query);
  const [session] = await rows<{ trace_context: string | null }>(
    sql`SELECT trace_context FROM checkout_sessions WHERE id = ${sessionId}`,
  );
  const [order] = await rows<{ trace_context: string | null }>(
    sql`SELECT trace_context FROM orders WHERE id = ${orderId}`,
  );
  const events = await rows<{ type: string; trace_context: string | null }>(
    sql`SELECT type, trace_context FROM outbox_events WHERE payload -> 'data' ->> 'id' = ${orderId}`,
  );
  const jobs = await rows<{ kind: string; trace_context: string | null }>(
    sql`SELECT kind, trace_context FROM jobs WHERE payload ->> 'order_id' = ${orderId}`,
  );
  return { session: session!.trace_context, order: order!.trace_context, events, jobs };
}

/** W3C traceparent: trace id and parent span id. */
function parseTraceparent(value: unknown): { traceId: string; spanId: string } | null {
  const match =
    typeof value === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01](?:,.*)?$/.exec(value) : null;
  return match ? { traceId: match[1]!, spanId: match[2]! } : null;
}

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const startOf = (span: ReadableSpan) => span.startTime[0] * 1e9 + span.startTime[1];

/** The spans from `span` up to its trace's root, `span` first. */
function ancestry(span: ReadableSpan, byId: Map<string, ReadableSpan>): ReadableSpan[] {
  const chain = [span];
  for (let up = byId.get(parentOf(span) ?? ''); up; up = byId.get(parentOf(up) ?? '')) chain.push(up);
  return chain;
}

/** One line per span of the trace, indented under its parent, in start order, with its links. */
function spanTree(spans: ReadableSpan[], traceId: string): string[] {
  const inTrace = spans.filter((s) => traceOf(s) === traceId).sort((a, b) => startOf(a) - startOf(b));
  const ids = new Set(inTrace.map(idOf));
  const children = new Map<string, ReadableSpan[]>();
  for (const span of inTrace) {
    const parent = parentOf(span);
    const key = parent !== undefined && ids.has(parent) ? parent : '';
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    const links = span.links.map((l) => `${l.context.traceId}/${l.context.spanId}`);
    lines.push(
      `${'  '.repeat(depth)}${span.name} [${SpanKind[span.kind]}] span=${idOf(span)} parent=${
        parentOf(span) ?? '-'
      }${links.length > 0 ? ` links=${links.join(',')}` : ''}`,
    );
    for (const child of children.get(idOf(span)) ?? []) walk(child, depth + 1);
  };
  for (const root of children.get('') ?? []) walk(root, 0);
  return lines;
}

/** Every text a span carries: its name, attributes (its links' too) and status message. */
function textsOf(span: ReadableSpan): string[] {
  const values = (attributes: Attributes | undefined) =>
    Object.values(attributes ?? {}).flatMap((v) => (Array.isArray(v) ? v.map(String) : [String(v)]));
  return [
    span.name,
    span.status.message ?? '',
    ...values(span.attributes),
    ...span.links.flatMap((l) => values(l.attributes)),
    ...span.events.flatMap((e) => [e.name, ...values(e.attributes)]),
  ];
}

describe('one trace per order, tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let world: World;
  before(async () => {
    world = await startWorld(exporter);
  });
  after(async () => {
    await stopWorld(world);
  });

  test('a hosted checkout paid by mobile money is one trace, from the session to the order.paid delivery', async () => {
    const { h } = world;
    const { sessionId, orderId, delivery } = await payOrder(world);
    await flushTraces();
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [idOf(s), s]));
    const one = (name: string, where: (s: ReadableSpan) => boolean = () => true) => {
      const found = spans.filter((s) => s.name === name && where(s));
      assert.equal(found.length, 1, `one span ${name}: ${found.length}`);
      return found[0]!;
    };

    // The partner's request is the root: its trace is the order's.
    const session = one('POST /v1/checkout-sessions');
    assert.equal(session.kind, SpanKind.SERVER);
    assert.equal(parentOf(session), undefined);
    const traceId = traceOf(session);
    const stored = await storedContexts(h, sessionId, orderId);
    assert.deepEqual(parseTraceparent(stored.session), { traceId, spanId: idOf(session) });
    assert.equal(stored.order, stored.session, "the session's order stores the session's context");

    // The buyer's request is a trace of its own; its work on the order continues the session's
    // trace, in a span linked to it.
    const siteRequest = one('POST /checkout/:sessionId/order');
    assert.notEqual(traceOf(siteRequest), traceId);
    const placing = one('checkout order');
    assert.equal(traceOf(placing), traceId);
    assert.equal(parentOf(placing), idOf(session));
    assert.deepEqual(
      placing.links.map((l) => l.context.spanId),
      [idOf(siteRequest)],
    );

    // The prompt went out inside it (the token and request-to-pay calls to the simulator).
    const prompts = spans.filter((s) => s.kind === SpanKind.CLIENT && s.attributes['url.path'] !== undefined);
    const promptCalls = prompts.filter((s) => parentOf(s) === idOf(placing));
    assert.ok(
      promptCalls.some((s) => String(s.attributes['url.path']).includes('requesttopay')),
      `a request-to-pay call under the order: ${prompts.map((s) => s.attributes['url.path']).join(' ')}`,
    );

    // The payment job was queued by the payment's transaction, under the order's span.
    const job = one(`job ${PAYMENT_JOB}`);
    assert.equal(traceOf(job), traceId);
    const queuedBy = byId.get(parentOf(job)!)!;
    assert.equal(queuedBy.name, 'transaction');
    assert.equal(parentOf(queuedBy), idOf(placing));

    // The delivery's CLIENT span is the one named by the traceparent the receiver got, a child of
    // the transaction that paid the order in the job.
    const sent = parseTraceparent(delivery.headers.traceparent);
    assert.ok(sent, 'the delivery carries a traceparent');
    assert.equal(sent.traceId, traceId);
    const attempt = byId.get(sent.spanId)!;
    assert.equal(attempt.kind, SpanKind.CLIENT);
    assert.equal(attempt.attributes['http.response.status_code'], 204);
    const chain = ancestry(attempt, byId);
    assert.deepEqual(
      chain.map((s) => s.name),
      [
        'POST',
        'transaction',
        `job ${PAYMENT_JOB}`,
        'transaction',
        'checkout order',
        'POST /v1/checkout-sessions',
      ],
    );
    // The transaction that paid it wrote the order paid and its event.
    const paying = chain[1]!;
    const statements = spans.filter((s) => parentOf(s) === idOf(paying)).map((s) => s.name);
    for (const name of ['UPDATE orders', 'INSERT outbox_events'])
      assert.ok(statements.includes(name), `${name} in ${statements.join(', ')}`);

    const event = stored.events.find((e) => e.type === 'order.paid')!;
    assert.deepEqual(parseTraceparent(event.trace_context), { traceId, spanId: idOf(paying) });
    // The hold's expiry job is still queued: it too continues the order's trace.
    const hold = stored.jobs.find((j) => j.kind === HOLD_EXPIRY_JOB)!;
    assert.equal(parseTraceparent(hold.trace_context)?.traceId, traceId);
    // The buyer's confirmation mail follows order.paid in the same trace.
    assert.equal(traceOf(one(`job ${CONFIRMATION_JOB}`)), traceId);

    // Database statements are CLIENT spans with their text, placeholders and all.
    const insert = spans.find((s) => s.name === 'INSERT orders' && traceOf(s) === traceId);
    assert.ok(insert, 'the order insert is a span of the trace');
    assert.equal(insert.kind, SpanKind.CLIENT);
    assert.equal(insert.attributes['db.system.name'], 'postgresql');
    assert.equal(insert.attributes['db.operation.name'], 'INSERT');
    assert.match(String(insert.attributes['db.query.text']), /^insert into "orders" .*\$1/is);
    const statementSpans = spans.filter((s) => s.attributes['db.query.text'] !== undefined);
    assert.ok(statementSpans.length > 20, `statement spans: ${statementSpans.length}`);
    // None holds the buyer's data: values are parameters, never recorded.
    for (const span of spans) {
      for (const text of textsOf(span)) {
        for (const value of BUYER_DATA) assert.ok(!text.includes(value), `${value} in span ${span.name}`);
      }
    }
    // Background loops' claims make no spans of their own; a job queued outside any trace (the
    // recurring session sweep, at start) is the root of its own.
    assert.ok(spans.every((s) => s.attributes['db.query.text'] === undefined || parentOf(s) !== undefined));
    const sweep = spans.find((s) => s.name === `job ${SESSION_SWEEP_JOB}`);
    assert.ok(sweep, 'the sweep ran');
    assert.equal(parentOf(sweep), undefined);

    // ---- the span tree, for the closing note ----
    const tree = spanTree(spans, traceId);
    const linked = spanTree(spans, traceOf(siteRequest));
    const text = [
      `===== span tree of one paid order (trace ${traceId}, ${tree.length} spans) =====`,
      ...tree,
      `===== linked from "checkout order": the buyer's request (trace ${traceOf(siteRequest)}) =====`,
      ...linked,
      '===== end of span tree =====',
    ].join('\n');
    writeFileSync(TRACE_TREE_FILE, `${text}\n`);
    console.log(text);
  });

  test('a session created inside a partner trace keeps its traceparent and tracestate for the order', async () => {
    exporter.reset();
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const { sessionId, orderId, delivery } = await payOrder(world, {
      traceparent: `00-${traceId}-${parentId}-01`,
      tracestate: 'shop=cart-1042',
    });
    const stored = await storedContexts(world.h, sessionId, orderId);
    assert.match(stored.session!, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01,shop=cart-1042$`));
    assert.equal(parseTraceparent(delivery.headers.traceparent)?.traceId, traceId);
    assert.equal(delivery.headers.tracestate, 'shop=cart-1042');
    await flushTraces();
    const placing = exporter.getFinishedSpans().find((s) => s.name === 'checkout order')!;
    assert.equal(traceOf(placing), traceId);
    assert.equal(placing.spanContext().traceState?.serialize(), 'shop=cart-1042');
  });
});

describe('statement names', () => {
  test('a span is named by the operation and the table the statement names first', () => {
    const cases: Array<[string, string, string | null]> = [
      ['select "id", "status" from "orders" where "orders"."id" = $1', 'SELECT', 'orders'],
      [
        'insert into "orders" ("id", "status") select id, status from json_populate_recordset(NULL::"orders", $1::json)',
        'INSERT',
        'orders',
      ],
      ['update "jobs" set "run_at" = $1 where "jobs"."id" = $2', 'UPDATE', 'jobs'],
      ['delete from "jobs" where "jobs"."id" = $1', 'DELETE', 'jobs'],
      ['\n  SELECT kind FROM (SELECT kind FROM jobs LIMIT $1) AS live', 'SELECT', 'jobs'],
      ['-- a comment\nSELECT * FROM claim_webhook_deliveries($1)', 'SELECT', null],
      ['WITH c AS (SELECT 1) SELECT * FROM c', 'WITH', null],
      ['select 1', 'SELECT', null],
    ];
    for (const [text, operation, table] of cases) {
      assert.deepEqual(describeStatement(text), { operation, table }, text);
    }
  });
});

describe('one trace per order, tracing off', () => {
  let world: World;
  before(async () => {
    world = await startWorld(undefined);
  });
  after(async () => {
    await stopWorld(world);
  });

  test('no trace context is stored and no traceparent is sent', async () => {
    const { h } = world;
    const { sessionId, orderId, delivery } = await payOrder(world);
    const stored = await storedContexts(h, sessionId, orderId);
    assert.equal(stored.session, null);
    assert.equal(stored.order, null);
    assert.ok(stored.events.length > 0 && stored.jobs.length > 0);
    for (const row of [...stored.events, ...stored.jobs]) assert.equal(row.trace_context, null);
    const [anywhere] = await h.service.ctx.database.rows<{ n: number }>(sql`
      SELECT (SELECT count(*) FROM checkout_sessions WHERE trace_context IS NOT NULL)
        + (SELECT count(*) FROM orders WHERE trace_context IS NOT NULL)
        + (SELECT count(*) FROM outbox_events WHERE trace_context IS NOT NULL)
        + (SELECT count(*) FROM jobs WHERE trace_context IS NOT NULL) AS n`);
    assert.equal(Number(anywhere!.n), 0);
    assert.equal(delivery.headers.traceparent, undefined);
  });
});
