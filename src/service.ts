// The whole service in one object: database, migrations, keys, the three hosts, and an orderly
// stop. main.ts runs it; tests build it with their own config and clock.
import {
  createAdmissionGate,
  createLogger,
  createRateLimiter,
  enqueueJob,
  IDEMPOTENCY_SWEEP_JOB,
  idempotencyJobHandlers,
  JobRunner,
  loadServiceKeys,
  migrate,
  openDatabase,
  OutageWatch,
  OverloadMonitor,
  readJobQueue,
  requireMigrationsApplied,
  startTracing,
  systemClock,
  type Clock,
  type Database,
  type Host,
  type JobHandlerEntry,
  type RateLimiter,
} from './platform/index.ts';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { buildApiHost, buildAppHost, buildSiteHost } from './hosts.ts';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  countRefusals,
  createMetrics,
  listenForScrapes,
  observeRedisLimiter,
  readAtScrape,
  watchDatabase,
  type Metrics,
  type MetricsListener,
} from './metrics/index.ts';
import { countActiveHolds, OrderBatches, orderJobHandlers } from './orders/index.ts';
import {
  countUndispatchedEvents,
  createWebhookRuntime,
  readPendingDeliveries,
  webhookJobHandlers,
  WebhookSender,
  type Resolver,
} from './webhooks/index.ts';
import { checkoutJobHandlers, SESSION_SWEEP_JOB } from './checkout/index.ts';
import {
  checkPaymentMethods,
  createPaymentGateway,
  PAYMENT_METHOD_REGISTRY,
  paymentJobHandlers,
  type PaymentMethodDefinition,
} from './payments/index.ts';
import { createMailer } from './mail/index.ts';
import { RequestLog } from './auth/index.ts';
import {
  confirmationFollower,
  confirmationJobHandlers,
  refundMailFollower,
  refundMailJobHandlers,
} from './confirmations/index.ts';
import { privacyJobHandlers, RETENTION_JOB } from './privacy/index.ts';

export interface Service {
  ctx: AppContext;
  api: Host;
  site: Host;
  app: Host;
  /** background work; started by listen() when config.runJobs */
  jobs: JobRunner;
  /**
   * binds each host to the port of its URL (or the given ports, 0 = any free port), and the
   * metrics listener to METRICS_PORT when it is set; `metrics` is then its /metrics URL. `metrics:
   * false`: no listener, the metrics are still counted (a worker's, which its primary serves).
   */
  listen(ports?: {
    api?: number;
    site?: number;
    app?: number;
    metrics?: number | false;
  }): Promise<{ api: string; site: string; app: string; metrics?: string }>;
  /** stop accepting, finish in-flight requests, then close the database */
  close(): Promise<void>;
}

export interface CreateServiceOptions {
  clock?: Clock;
  logger?: Logger;
  database?: Database;
  /** PGlite only: the data to start from (tests start from an already migrated database) */
  embeddedData?: Blob;
  limiter?: RateLimiter;
  /** where spans go instead of OTEL_EXPORTER_OTLP_ENDPOINT; turns tracing on (tests: in memory) */
  spanExporter?: SpanExporter;
  /**
   * The payment methods this service takes, the default first: the registry's
   * (payments/methods/registry.ts) unless given (docs/decisions/payment-method-registry.md).
   */
  paymentMethods?: readonly PaymentMethodDefinition[];
  /** what webhook deliveries ask instead of the system's DNS (tests: a stub, so none asks real DNS) */
  webhookResolver?: Resolver;
}

/**
 * Each field of the context, and whether it may be null (metrics, without METRICS_PORT). Its type
 * makes the list name every field, those a module declares included, and no other.
 */
const CONTEXT_FIELDS = {
  config: false,
  database: false,
  clock: false,
  limiter: false,
  writes: false,
  log: false,
  keys: false,
  paymentMethods: false,
  overload: false,
  outage: false,
  gateway: false,
  metrics: true,
  mailer: false,
  requestLog: false,
  orderBatches: false,
  webhooks: false,
} satisfies Record<keyof AppContext, boolean>;

/**
 * Refuses a context lacking a service, which the type check cannot see (a cast, an option given as
 * undefined from JavaScript): the service then fails at start, not at the first request to use it.
 */
export function checkContext(ctx: AppContext): void {
  const missing = Object.entries(CONTEXT_FIELDS)
    .filter(([field, nullable]) => {
      const value: unknown = ctx[field as keyof AppContext];
      return value === undefined || (value === null && !nullable);
    })
    .map(([field]) => field);
  if (missing.length > 0) throw new Error(`the service's context lacks ${missing.join(', ')}`);
}

/**
 * In production on PostgreSQL migrations are a release step (`ticketing db migrate`) and the start
 * only checks them; in development, tests and on PGlite (one process owns its data directory) the
 * start applies them, so that a fresh clone runs with `npm start`.
 */
async function prepareSchema(config: Config, database: Database): Promise<void> {
  if (config.env === 'production' && database.kind === 'postgres') await requireMigrationsApplied(database);
  else await migrate(database);
}

export async function createService(config: Config, options: CreateServiceOptions = {}): Promise<Service> {
  const log = options.logger ?? createLogger(config.logLevel);
  // First: the hosts' hooks and log controller are chosen by whether tracing is on.
  const tracing = startTracing(config.tracing, { exporter: options.spanExporter });
  const metrics = config.metrics ? createMetrics() : null;
  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      lockDataDir: true,
      ...(options.embeddedData && { load: options.embeddedData }),
      connections: config.databaseConnections,
      observer: metrics?.database,
    }));
  try {
    await prepareSchema(config, database);
  } catch (error) {
    if (!options.database) await database.close();
    throw error;
  }
  const paymentMethods = checkPaymentMethods(options.paymentMethods ?? PAYMENT_METHOD_REGISTRY);
  const payments = await createPaymentGateway(config, log, paymentMethods);
  const limiter =
    options.limiter ??
    createRateLimiter(config.redisUrl, {
      keyPrefix: config.redisKeyPrefix,
      log: log.child({ component: 'redis' }),
      ...(metrics && config.redisUrl && { observer: observeRedisLimiter(metrics) }),
    });
  const clock = options.clock ?? systemClock;
  // Every service of the context is built here, before any host: a field left out fails the type
  // check, and checkContext below refuses one given as undefined.
  const ctx: AppContext = {
    config,
    database,
    clock,
    // With metrics, each refusal is counted by limiter (rate_limit_refusals_total).
    limiter: metrics ? countRefusals(limiter, metrics) : limiter,
    writes: createAdmissionGate(config.writeConcurrency),
    log,
    keys: await loadServiceKeys(database),
    // The methods taken: a live method without its settings is not (payments/gateway.ts).
    paymentMethods: payments.gateway.methods,
    // The service's clock, which tests move: a wait of seconds needs no sleeping to be seen.
    overload: new OverloadMonitor(config.overload, {
      log: log.child({ component: 'overload' }),
      now: () => clock.now().getTime(),
    }),
    outage: new OutageWatch(database, log.child({ component: 'database' })),
    gateway: payments.gateway,
    metrics,
    mailer: createMailer({ config, database, log: log.child({ component: 'mail' }) }),
    requestLog: new RequestLog({ database, log }),
    orderBatches: new OrderBatches({ config, database }),
    webhooks: createWebhookRuntime(config, options.webhookResolver),
  };
  checkContext(ctx);
  const api = await buildApiHost(ctx, log);
  const site = await buildSiteHost(ctx, log);
  const app = await buildAppHost(ctx, log);
  await Promise.all([api.ready(), site.ready(), app.ready()]);
  // Once the hosts are built (building blocks the loop, which is not load): until close.
  ctx.overload.start();
  ctx.requestLog.start();

  const handlers: Record<string, JobHandlerEntry> = {
    ...orderJobHandlers,
    ...checkoutJobHandlers,
    ...idempotencyJobHandlers,
    ...paymentJobHandlers(ctx),
    ...webhookJobHandlers,
    ...confirmationJobHandlers(ctx),
    ...refundMailJobHandlers(ctx),
    ...privacyJobHandlers(ctx),
  };
  // order.paid events are followed by the buyer's confirmation mail
  const webhookSender = new WebhookSender(ctx, [confirmationFollower, refundMailFollower]);
  const jobs = new JobRunner({
    database,
    outage: ctx.outage,
    clock: ctx.clock,
    log: log.child({ component: 'jobs' }),
    handlers,
    queues: [webhookSender],
  });
  if (metrics) readMetricsAtScrape(metrics, ctx, Object.keys(handlers));
  // Recurring sweeps: one row each (dedupe key), whichever process runs it.
  for (const kind of [SESSION_SWEEP_JOB, IDEMPOTENCY_SWEEP_JOB, RETENTION_JOB]) {
    await enqueueJob(database.db, { kind, runAt: ctx.clock.now(), dedupeKey: `recurring:${kind}` });
  }

  let closed = false;
  let metricsListener: MetricsListener | undefined;
  return {
    ctx,
    api,
    site,
    app,
    jobs,
    async listen(ports = {}) {
      const bind = async (host: Host, url: URL, port: number | undefined) => {
        const address = await host.listen({
          host: url.hostname.replace(/^\[|\]$/g, ''),
          port: port ?? Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
        });
        return address.replace('[::1]', 'localhost');
      };
      const [a, s, p] = await Promise.all([
        bind(api, config.apiUrl, ports.api),
        bind(site, config.siteUrl, ports.site),
        bind(app, config.appUrl, ports.app),
      ]);
      if (metrics && config.metrics && ports.metrics !== false) {
        metricsListener = await listenForScrapes(metrics, {
          host: config.metrics.host,
          port: ports.metrics ?? config.metrics.port,
          log,
        });
      }
      if (config.runJobs) jobs.start();
      return { api: a, site: s, app: p, ...(metricsListener && { metrics: metricsListener.url }) };
    },
    async close() {
      if (closed) return;
      closed = true;
      // Fastify's close stops accepting and waits for in-flight requests (return503OnClosing).
      await Promise.all([api.close(), site.close(), app.close(), metricsListener?.close()]);
      ctx.overload.stop();
      await ctx.requestLog.close();
      await jobs.stop();
      webhookSender.close();
      await Promise.allSettled([...payments.gateway.inflight]);
      await payments.close();
      await ctx.mailer.close();
      await ctx.limiter.close();
      ctx.outage.stop();
      await database.close();
      await tracing.shutdown();
    },
  };
}

/** The gauges read from the database at scrape time, each from the module that owns its rows. */
function readMetricsAtScrape(metrics: Metrics, ctx: AppContext, jobKinds: string[]): void {
  const { database } = ctx;
  watchDatabase(metrics, database);
  readAtScrape(metrics, {
    clock: ctx.clock,
    log: ctx.log,
    jobKinds,
    readJobQueue: (now, limit) => readJobQueue(database, now, limit),
    countActiveHolds: (now, limit) => countActiveHolds(database, now, limit),
    countUndispatchedEvents: (limit) => countUndispatchedEvents(database, limit),
    readPendingDeliveries: (now, limit) => readPendingDeliveries(database, now, limit),
  });
}
