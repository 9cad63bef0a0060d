// Prometheus metrics of one service: a registry of its own (tests run several services in one
// process), the process metrics prom-client collects, and the instruments the modules feed. Built
// only when METRICS_PORT is set; without it nothing is counted and no hook runs.
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import type { DatabaseObserver } from '../platform/db.ts';

/** How a webhook delivery attempt ended: sent (delivered), to be retried, given up, or not sent. */
export type WebhookOutcome = 'delivered' | 'failed_attempt' | 'failed' | 'cancelled';

export interface Metrics {
  registry: Registry;
  /** every answer of the three hosts; route is the route's pattern ('unmatched' for a 404) */
  httpRequests: Histogram<'host' | 'route' | 'method' | 'status'>;
  /** Database's own calls (rows, statement, write) and whole transactions */
  dbQueries: Histogram<'operation'>;
  webhookDeliveries: Counter<'outcome'>;
  paymentAttempts: Counter<'provider' | 'outcome'>;
  /** for openDatabase: times each call of the database's own methods */
  database: DatabaseObserver;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
    dbQueries,
    webhookDeliveries: new Counter({
      name: 'webhook_delivery_outcomes_total',
      help: 'Webhook delivery attempts by outcome: delivered, failed_attempt (retried), failed (given up), cancelled (endpoint disabled or gone)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    paymentAttempts: new Counter({
      name: 'payment_attempts_total',
      help: 'Payment attempts ended, by provider (momo, airtel) and outcome (successful or the failure kind)',
      labelNames: ['provider', 'outcome'],
      registers: [registry],
    }),
    database: { observe: (operation, seconds) => dbQueries.observe({ operation }, seconds) },
  };
}

/** Each service's metrics, attached by the composition root (service.ts): the context knows no module. */
const attached = new WeakMap<AppContext, Metrics>();

export function attachMetrics(ctx: AppContext, metrics: Metrics): void {
  attached.set(ctx, metrics);
}

/** The service's metrics, or undefined when METRICS_PORT is not set (then nothing is counted). */
export function metricsOf(ctx: AppContext): Metrics | undefined {
  return attached.get(ctx);
}
