// Prometheus metrics on METRICS_PORT: a service listening on loopback answers requests, pays orders
// through the simulator and delivers their webhooks, and its /metrics says so series by series (a
// counter rises by exactly what was done); the public hosts never answer /metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { HOLD_EXPIRY_JOB } from '../../src/orders/write-orders.ts';
import { enqueueJobs, readJobQueue } from '../../src/platform/jobs.ts';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { SCRAPE_READ_INTERVAL_MS } from '../../src/metrics/scrape-gauges.ts';
import { bearer, startHarness, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  createOrder,
  makeShop,
  payThroughSimulator,
  pump,
  startReceiver,
  startWebhookHarness,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';
import { parseMetrics, seriesKey, type Samples } from './parse-metrics.ts';

let sim: Simulator;
let h: Harness;
let receiver: Receiver;
let urls: { api: string; site: string; app: string; metrics?: string };
let shop: Shop;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness({
    SIMULATOR_URL: sim.url,
    PAYMENT_TIME_SCALE: '0.01',
    RUN_JOBS: 'false',
    METRICS_PORT: '0',
  });
  urls = await h.service.listen({ api: 0, site: 0, app: 0 });
  receiver = await startReceiver();
  shop = await makeShop(h);
});
after(async () => {
  await h.close();
  await sim.close();
  await receiver.close();
});

async function scrape(): Promise<Samples> {
  const res = await fetch(urls.metrics!);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(await res.text());
}

/**
 * A scrape after the last one's database read has aged out, so the gauges are read anew: the
 * service's clock moves on by the read's interval instead of the test waiting for it.
 */
async function freshScrape(): Promise<Samples> {
  h.clock.advance(SCRAPE_READ_INTERVAL_MS);
  return scrape();
}

const api = (path: string, init: RequestInit = {}) => fetch(`${urls.api}${path}`, init);

describe('the metrics listener', () => {
  test('listens on 127.0.0.1 by default, at /metrics', () => {
    assert.match(urls.metrics ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  });

  test('the public hosts never answer /metrics', async () => {
    for (const base of [urls.api, urls.site, urls.app]) {
      for (const path of ['/metrics', '/metrics/', '/metrics?format=text']) {
        const res = await fetch(`${base}${path}`);
        const body = await res.text();
        assert.equal(res.status, 404, `${base}${path}`);
        assert.ok(!body.includes('# HELP'), `${base}${path} shows no metrics`);
      }
    }
  });

  test('answers only GET and HEAD, and only at /metrics', async () => {
    const post = await fetch(urls.metrics!, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    const elsewhere = await fetch(new URL('/other', urls.metrics));
    assert.equal(elsewhere.status, 404);
    assert.doesNotMatch(await elsewhere.text(), /# HELP/);
    const head = await fetch(urls.metrics!, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('process metrics are there', async () => {
    const samples = await scrape();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      assert.ok(samples.has(name), name);
    }
  });
});

describe('holds and the job queue', () => {
  // First of the tests that make orders: no other hold or expiry job is there.
  test('a pending order is an active hold; once it lapses its expiry job is due, with its lag', async () => {
    const before = await freshScrape();
    const holds = before.get('order_holds_active');
    assert.equal(holds, 0);
    assert.equal(before.get(`job_queue_depth{kind="${HOLD_EXPIRY_JOB}"}`), 0);
    assert.equal(before.get(`job_queue_lag_seconds{kind="${HOLD_EXPIRY_JOB}"}`), 0);
    const order = await createOrder(h, shop, shop.paidTicket);
    assert.equal(order.status, 'pending');
    assert.equal((await freshScrape()).get('order_holds_active'), 1);

    // The hold is 15 minutes: 5 minutes after it, the hold is gone and its expiry job 300 s late.
    h.clock.advance(20 * 60_000);
    const late = await freshScrape();
    assert.equal(late.get('order_holds_active'), 0);
    assert.equal(late.get(`job_queue_depth{kind="${HOLD_EXPIRY_JOB}"}`), 1);
    const lag = late.get(`job_queue_lag_seconds{kind="${HOLD_EXPIRY_JOB}"}`)!;
    assert.ok(lag >= 300 && lag < 330, `lag ${lag}`);
    assert.equal(late.get('job_queue_scan_truncated'), 0);

    await h.service.jobs.runDue();
    const done = await freshScrape();
    assert.equal(done.get(`job_queue_depth{kind="${HOLD_EXPIRY_JOB}"}`), 0);
    assert.equal(done.get(`job_queue_lag_seconds{kind="${HOLD_EXPIRY_JOB}"}`), 0);
  });
});

describe('request durations', () => {
  test('count each answer by host, route pattern, method and status', async () => {
    const series = (route: string, status: number, host = 'api', suffix = 'count', le?: string) =>
      seriesKey(`http_request_duration_seconds_${suffix}`, {
        host,
        method: 'GET',
        route,
        status: String(status),
        ...(le && { le }),
      });
    const before = await scrape();
    for (let i = 0; i < 3; i++) {
      const res = await api(`/v1/events/${shop.eventId}`, { headers: bearer(shop.token) });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    const missing = await api('/v1/events/evt_doesnotexist', { headers: bearer(shop.token) });
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
    for (const path of ['/no-such-route-1', '/no-such-route-2']) await (await api(path)).arrayBuffer();
    await (await fetch(`${urls.site}/healthz`)).arrayBuffer();
    const after = await scrape();
    const rise = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    assert.equal(rise(series('/v1/events/:eventId', 200)), 3);
    assert.equal(rise(series('/v1/events/:eventId', 404)), 1);
    assert.equal(rise(series('unmatched', 404)), 2);
    assert.equal(rise(series('/healthz', 200, 'site')), 1);
    // the route label is the pattern: no raw path reaches a label
    const labels = [...after.keys()].filter((key) => key.startsWith('http_request_duration_seconds'));
    assert.ok(!labels.some((key) => key.includes(shop.eventId) || key.includes('no-such-route')));
    const count = after.get(series('/v1/events/:eventId', 200))!;
    assert.equal(after.get(series('/v1/events/:eventId', 200, 'api', 'bucket', '+Inf')), count);
    assert.ok(after.get(series('/v1/events/:eventId', 200, 'api', 'sum'))! > 0);
  });
});

describe('payments and webhooks', () => {
  test('an order paid through the simulator: one successful momo attempt, its order.paid delivered once', async () => {
    await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.paid']);
    const before = await scrape();
    await payThroughSimulator(h, sim, shop, 'momo');
    const waiting = await freshScrape();
    assert.equal(waiting.get('webhook_events_undispatched'), 1);
    assert.equal(waiting.get('webhook_deliveries_pending'), 0);
    await pump(h, () => receiver.requests.length === 1);
    const after = await freshScrape();
    const rise = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    assert.equal(rise('payment_attempts_total{outcome="successful",provider="momo"}'), 1);
    assert.equal(rise('payment_attempts_total{outcome="successful",provider="airtel"}'), 0);
    assert.equal(rise('webhook_delivery_outcomes_total{outcome="delivered"}'), 1);
    assert.equal(rise('webhook_delivery_outcomes_total{outcome="failed_attempt"}'), 0);
    assert.equal(after.get('webhook_events_undispatched'), 0);
    assert.equal(after.get('webhook_deliveries_pending'), 0);
  });

  test('failed delivery attempts are counted, and the delivery stays pending until one succeeds', async () => {
    // Retries come within milliseconds at this time scale: count the failures the receiver gives.
    let failing = true;
    let failures = 0;
    receiver.respond = () => (failing ? (failures++, { status: 503 }) : { status: 204 });
    const before = await scrape();
    await payThroughSimulator(h, sim, shop, 'airtel');
    await pump(h, () => failures > 0);
    const pending = await freshScrape();
    assert.equal(pending.get('webhook_deliveries_pending'), 1);
    failing = false;
    const sent = receiver.requests.length;
    await pump(h, () => receiver.requests.length === sent + 1);
    const after = await freshScrape();
    const rise = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    assert.equal(rise('webhook_delivery_outcomes_total{outcome="failed_attempt"}'), failures);
    assert.equal(rise('webhook_delivery_outcomes_total{outcome="delivered"}'), 1);
    assert.equal(rise('payment_attempts_total{outcome="successful",provider="airtel"}'), 1);
    assert.equal(after.get('webhook_deliveries_pending'), 0);
    receiver.respond = () => ({ status: 204 });
  });

  test('a declined payment counts by provider and failure kind', async () => {
    const before = await scrape();
    const order = await createOrder(h, shop, shop.paidTicket);
    const res = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/pay`,
      headers: bearer(shop.token),
      payload: { payment_method: 'airtel', phone: testPhoneNumber('airtel', '03') },
    });
    assert.equal(res.statusCode, 202, res.body);
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
    const [attempt] = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    // the simulator declines after 20 ms (2 s at time scale 0.01)
    const deadline = Date.now() + 5000;
    while ((await reconcileAttempt(h.service.ctx, attempt!.reference)) !== null) {
      assert.ok(Date.now() < deadline, 'the decline arrives');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const after = await scrape();
    const rise = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    assert.equal(rise('payment_attempts_total{outcome="payment_declined",provider="airtel"}'), 1);
    assert.equal(rise('payment_attempts_total{outcome="successful",provider="airtel"}'), 0);
  });
});

describe('database', () => {
  test('its connections as configured, and the duration of its calls by operation', async () => {
    const samples = await scrape();
    const { database } = h.service.ctx;
    if (database.kind === 'postgres') {
      assert.equal(samples.get('db_connections{pool="reads"}'), 2);
      assert.equal(samples.get('db_connections{pool="transactions"}'), 12);
      const busy = samples.get('db_transaction_connections_busy')!;
      assert.ok(busy >= 0 && busy <= 12, String(busy));
      assert.equal(samples.get('db_transaction_connections_waiting'), 0);
    } else {
      assert.equal(samples.get('db_connections{pool="embedded"}'), 1);
      assert.ok(!samples.has('db_transaction_connections_busy'));
    }
    assert.equal(samples.get('db_transactions_in_flight'), 0);
    for (const operation of ['rows', 'transaction']) {
      assert.ok(samples.get(`db_query_duration_seconds_count{operation="${operation}"}`)! > 0, operation);
    }
    const transactions = samples.get('db_query_duration_seconds_count{operation="transaction"}')!;
    await database.transaction(async () => {});
    await database.transaction(async () => {});
    const later = await scrape();
    assert.equal(later.get('db_query_duration_seconds_count{operation="transaction"}'), transactions + 2);
  });

  test('transactions in flight are counted while they run, and a scrape never waits on them', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = h.service.ctx.database.transaction(() => held);
    try {
      // A fresh read: on PGlite it waits for the one connection, which the transaction holds.
      const samples = await freshScrape();
      assert.equal(samples.get('db_transactions_in_flight'), 1);
      if (h.service.ctx.database.kind === 'pglite') {
        assert.equal(samples.get('webhook_deliveries_pending'), undefined, 'answered without the late read');
      }
    } finally {
      release();
      await running;
    }
    assert.equal((await scrape()).get('db_transactions_in_flight'), 0);
  });
});

describe('the job queue read', () => {
  test('walks the queue oldest first and stops at its limit', async () => {
    const { database } = h.service.ctx;
    const now = h.clock.now();
    const hoursFromNow = (hours: number) => new Date(now.getTime() + hours * 3600_000);
    const kind = 'metrics.test_only';
    await enqueueJobs(
      database.db,
      [-4, -3, -2, -1, 24].map((hours) => ({ kind, runAt: hoursFromNow(hours) })),
    );
    try {
      const ofKind = async (limit: number) =>
        (await readJobQueue(database, now, limit)).find((row) => row.kind === kind);
      assert.deepEqual(await ofKind(3), { kind, live: 3, due: 3, oldestDueAt: hoursFromNow(-4) });
      assert.deepEqual(await ofKind(1000), { kind, live: 5, due: 4, oldestDueAt: hoursFromNow(-4) });
    } finally {
      await database.db.delete(jobs).where(eq(jobs.kind, kind));
    }
  });
});

describe('without METRICS_PORT', () => {
  test('there is no metrics listener, and nothing is counted', async () => {
    const plain = await startHarness();
    try {
      const started = await plain.service.listen({ api: 0, site: 0, app: 0 });
      assert.equal(started.metrics, undefined);
      assert.equal(plain.service.ctx.metrics, null);
      const before = await scrape();
      await (await fetch(`${started.api}/healthz`)).arrayBuffer();
      const after = await scrape();
      const key =
        'http_request_duration_seconds_count{host="api",method="GET",route="/healthz",status="200"}';
      assert.equal(after.get(key) ?? 0, before.get(key) ?? 0);
    } finally {
      await plain.close();
    }
  });
});
