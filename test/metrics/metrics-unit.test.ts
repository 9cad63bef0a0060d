// The metrics without a service: a registry per service (two in one process count apart), the
// once-a-second database read shared by scrapes, gauges left out when that read fails, and the
// METRICS_PORT and METRICS_HOST settings.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import {
  cachedRead,
  readAtScrape,
  SCRAPE_COUNT_LIMIT,
  type ScrapeSources,
} from '../../src/metrics/scrape-gauges.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { parseMetrics } from './parse-metrics.ts';

describe('a registry per service', () => {
  test('two in one process each have the process metrics and count apart', async () => {
    const [one, two] = [createMetrics(), createMetrics()];
    one.paymentAttempts.inc({ provider: 'momo', outcome: 'successful' });
    one.paymentAttempts.inc({ provider: 'momo', outcome: 'successful' });
    two.paymentAttempts.inc({ provider: 'airtel', outcome: 'provider_error' });
    const [a, b] = [parseMetrics(await one.registry.metrics()), parseMetrics(await two.registry.metrics())];
    assert.equal(a.get('payment_attempts_total{outcome="successful",provider="momo"}'), 2);
    assert.equal(a.has('payment_attempts_total{outcome="provider_error",provider="airtel"}'), false);
    assert.equal(b.get('payment_attempts_total{outcome="provider_error",provider="airtel"}'), 1);
    assert.equal(b.has('payment_attempts_total{outcome="successful",provider="momo"}'), false);
    for (const samples of [a, b]) assert.ok(samples.has('process_cpu_user_seconds_total'));
  });
});

describe('the scrape-time read', () => {
  test('is shared by every call within the interval, and made again after it', async () => {
    let now = 0;
    let reads = 0;
    const read = cachedRead(
      async () => ++reads,
      1000,
      () => now,
    );
    assert.deepEqual(await Promise.all([read(), read()]), [1, 1]);
    now = 999;
    assert.equal(await read(), 1);
    now = 1000;
    assert.equal(await read(), 2);
    assert.equal(reads, 2);
  });

  test('a failed read is not kept: the next call reads again', async () => {
    let reads = 0;
    const read = cachedRead(
      async () => {
        if (++reads === 1) throw new Error('database unreachable');
        return reads;
      },
      1000,
      () => 0,
    );
    await assert.rejects(read(), /database unreachable/);
    assert.equal(await read(), 2);
  });

  test('when it fails, its gauges are left out of the scrape and the failure is counted once', async () => {
    const metrics = createMetrics();
    let fail = true;
    const sources: ScrapeSources = {
      clock: systemClock,
      log: createLogger('silent'),
      jobKinds: ['order.expire_hold', 'payment.poll'],
      readJobQueue: async (now) => {
        if (fail) throw new Error('database unreachable');
        return [
          { kind: 'payment.poll', live: 4, due: 1, oldestDueAt: new Date(now.getTime() - 90_000) },
          { kind: 'other.kind', live: 2, due: 0, oldestDueAt: null },
        ];
      },
      countActiveHolds: async () => 7,
      countUndispatchedEvents: async () => 3,
      readPendingDeliveries: async (now) => ({ pending: 5, oldestDueAt: new Date(now.getTime() - 30_000) }),
    };
    readAtScrape(metrics, sources);
    const failed = parseMetrics(await metrics.registry.metrics());
    assert.equal(failed.get('metrics_database_read_errors_total'), 1);
    for (const name of [
      'job_queue_depth',
      'order_holds_active',
      'webhook_deliveries_pending',
      'webhook_delivery_lag_seconds',
    ]) {
      assert.ok(![...failed.keys()].some((key) => key.startsWith(name)), name);
    }
    assert.ok(failed.has('process_cpu_user_seconds_total'), 'the rest of the scrape is there');

    fail = false;
    const read = parseMetrics(await metrics.registry.metrics());
    assert.equal(read.get('metrics_database_read_errors_total'), 1);
    assert.equal(read.get('order_holds_active'), 7);
    assert.equal(read.get('webhook_events_undispatched'), 3);
    assert.equal(read.get('webhook_deliveries_pending'), 5);
    const webhookLag = read.get('webhook_delivery_lag_seconds')!;
    assert.ok(webhookLag >= 30 && webhookLag < 40, String(webhookLag));
    assert.equal(read.get('job_queue_depth{kind="payment.poll"}'), 1);
    assert.equal(read.get('job_queue_depth{kind="order.expire_hold"}'), 0);
    assert.equal(read.get('job_queue_depth{kind="other.kind"}'), 0);
    const lag = read.get('job_queue_lag_seconds{kind="payment.poll"}')!;
    assert.ok(lag >= 90 && lag < 100, String(lag));
    assert.equal(read.get('job_queue_lag_seconds{kind="other.kind"}'), 0);
    assert.equal(read.get('job_queue_scan_truncated'), 0);
  });

  test('a job queue read that reaches its limit says its counts are lower bounds', async () => {
    const metrics = createMetrics();
    const limits: number[] = [];
    readAtScrape(metrics, {
      clock: systemClock,
      log: createLogger('silent'),
      jobKinds: ['payment.poll'],
      readJobQueue: async (now, limit) => {
        limits.push(limit);
        return [{ kind: 'payment.poll', live: limit, due: 0, oldestDueAt: null }];
      },
      countActiveHolds: async () => 0,
      countUndispatchedEvents: async () => 0,
      readPendingDeliveries: async (now, limit) => {
        limits.push(limit);
        return { pending: 0, oldestDueAt: null };
      },
    });
    const samples = parseMetrics(await metrics.registry.metrics());
    assert.deepEqual(limits, [SCRAPE_COUNT_LIMIT, SCRAPE_COUNT_LIMIT]);
    assert.equal(samples.get('job_queue_scan_truncated'), 1);
    assert.equal(samples.get('webhook_delivery_lag_seconds'), 0);
  });
});

describe('settings', () => {
  test('without METRICS_PORT there are no metrics; with it, 127.0.0.1 unless METRICS_HOST says otherwise', () => {
    assert.equal(loadConfig({ NODE_ENV: 'test' }).metrics, undefined);
    assert.deepEqual(loadConfig({ NODE_ENV: 'test', METRICS_PORT: '9464' }).metrics, {
      host: '127.0.0.1',
      port: 9464,
    });
    assert.deepEqual(loadConfig({ NODE_ENV: 'test', METRICS_PORT: '0', METRICS_HOST: '::1' }).metrics, {
      host: '::1',
      port: 0,
    });
    assert.deepEqual(
      loadConfig({ NODE_ENV: 'test', METRICS_PORT: '9464', METRICS_HOST: 'metrics.internal' }).metrics,
      { host: 'metrics.internal', port: 9464 },
    );
  });

  test('a bad port or host stops the start, naming the variable', () => {
    const refusals: Array<[string, string]> = [
      ['METRICS_PORT', '-1'],
      ['METRICS_PORT', '65536'],
      ['METRICS_PORT', '94.5'],
      ['METRICS_PORT', 'metrics'],
      ['METRICS_HOST', 'http://127.0.0.1'],
      ['METRICS_HOST', '127.0.0.1:9464'],
      ['METRICS_HOST', 'a host'],
    ];
    for (const [name, value] of refusals) {
      assert.throws(
        () => loadConfig({ NODE_ENV: 'test', METRICS_PORT: '9464', [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${name} must be`),
        `${name}=${value}`,
      );
    }
  });
});
