// Prometheus metrics of one service: a registry of its own (tests run several services in one
// process), the process metrics prom-client collects, and the instruments the modules feed. Built
// only when METRICS_PORT is set; without it the context's `metrics` is null, nothing is counted
// and no hook runs.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseObserver, RedisLimiterObserver } from '../platform/index.ts';
import { registerBuildInfo } from './build-info.ts';

/** How a webhook delivery attempt ended: sent (delivered), to be retried, given up, or not sent. */
export type WebhookOutcome = 'delivered' | 'failed_attempt' | 'failed' | 'cancelled';

/**
 * The limits whose refusals (429) rate_limit_refusals_total counts, one series each from the start:
 * the rate limiters (RATE_LIMIT_*), the payment prompts per phone and the hosted page's tickets per IP.
 */
export const RATE_LIMITERS = [
  'token',
  'bearer',
  'publishable',
  'site',
  'callback',
  'sign_in_account',
  'sign_in_ip',
  'prompt_per_phone',
  'holds_per_ip',
] as const;
export type RateLimiterName = (typeof RATE_LIMITERS)[number];

declare module '../context.ts' {
  interface AppContext {
    /** null when METRICS_PORT is not set: then nothing is counted */
    readonly metrics: Metrics | null;
  }
}

export interface Metrics {
  registry: Registry;
  /** every answer of the three hosts; route is the route's pattern ('unmatched' for a 404) */
  httpRequests: Histogram<'host' | 'route' | 'method' | 'status'>;
  /** requests answered 503 at once by load shedding (platform/overload.ts), by host */
  requestsShed: Counter<'host'>;
  /** Database's own calls (rows, statement, write) and whole transactions */
  dbQueries: Histogram<'operation'>;
  webhookDeliveries: Counter<'outcome'>;
  paymentAttempts: Counter<'provider' | 'outcome'>;
  /** requests refused 429 by a limit, by limiter (RATE_LIMITERS; `other` for a key of no known limiter) */
  rateLimitRefusals: Counter<'limiter'>;
  /** for openDatabase: times each call of the database's own methods */
  database: DatabaseObserver;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerBuildInfo(registry);
  const rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused 429 by a limit, by limiter: token, bearer, publishable, site, callback, sign_in_account, sign_in_ip, prompt_per_phone, holds_per_ip',
    labelNames: ['limiter'],
    registers: [registry],
  });
  // Every series from the start, so that rate() sees the first refusal.
  for (const limiter of RATE_LIMITERS) rateLimitRefusals.inc({ limiter }, 0);
  const dbQueries = new Histogram({
    name: 'db_query_duration_seconds',
    help: "Duration of the database's own calls: rows, statement, write, and whole transactions",
    labelNames: ['operation'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    registry,
    httpRequests: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response sent, by host, route pattern, method and status',
      labelNames: ['host', 'route', 'method', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    requestsShed: new Counter({
      name: 'http_requests_shed_total',
      help: 'Requests answered 503 service_unavailable at once because the process was overloaded, by host (api, site)',
      labelNames: ['host'],
      registers: [registry],
    }),
    dbQueries,
    webhookDeliveries: new Counter({
      name: 'webhook_delivery_outcomes_total',
      help: 'Webhook delivery attempts by outcome: delivered, failed_attempt (retried), failed (given up), cancelled (endpoint disabled or gone)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    paymentAttempts: new Counter({
      name: 'payment_attempts_total',
      help: "Payment attempts ended, by provider (the method's key: momo, airtel, mpesa) and outcome (successful or the failure kind)",
      labelNames: ['provider', 'outcome'],
      registers: [registry],
    }),
    rateLimitRefusals,
    database: { observe: (operation, seconds) => dbQueries.observe({ operation }, seconds) },
  };
}

/**
 * redis_up and the checks counted in memory while Redis could not be used: registered only when
 * REDIS_URL is set (without it limits are in memory by design, and no Redis is missing).
 */
export function observeRedisLimiter(metrics: Metrics): RedisLimiterObserver {
  const registers = [metrics.registry];
  const up = new Gauge({
    name: 'redis_up',
    help: "1 while rate limits count in Redis, 0 while Redis cannot be reached and they count in this process's memory",
    registers,
  });
  const fallbacks = new Counter({
    name: 'rate_limit_redis_fallbacks_total',
    help: "Rate-limit checks counted in this process's memory because Redis could not be reached",
    registers,
  });
  return { redisUp: (isUp) => up.set(isUp ? 1 : 0), countedInMemory: () => fallbacks.inc() };
}
