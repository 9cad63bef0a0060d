// PostgreSQL only: a webhook backlog. 10,000 order.paid events land in the outbox at once (one
// transaction, written by the outbox's own function); the service's webhook sender takes them from
// the outbox queue and sends them to one endpoint, a local receiver (bench/webhook-receiver.ts), while
// POST /v1/checkout-sessions runs at the checkout scenario's 50 connections. Each drain is paired
// with a run of the same load without a backlog just before it; the goals are the drain rate and
// the p99 of the run during the drain against the run without. The service is this scenario's
// own, on a database of its own: a loopback receiver needs WEBHOOK_ALLOW_PRIVATE_URLS=true, which
// NODE_ENV=production refuses, so it runs with NODE_ENV=development (every other setting as the
// main bench service's).
import { randomBytes } from 'node:crypto';
import autocannon, { type AutocannonResult } from 'autocannon';
import postgres from 'postgres';
import type * as EventsModule from '../../src/events/events.ts';
import type * as DbModule from '../../src/platform/db.ts';
import type * as OutboxModule from '../../src/webhooks/outbox.ts';
import type * as EndpointsModule from '../../src/webhooks/webhook-endpoints.ts';
import { createBenchDatabase } from '../lib/database.ts';
import { fetchToken } from '../lib/http.ts';
import { measureInterleaved, type ExternalRun, type LoadTarget } from '../lib/load.ts';
import { importDist, SERVICE_ENTRY } from '../lib/paths.ts';
import { startService, type RunningService } from '../lib/processes.ts';
import type { Goal, Scenario } from '../lib/scenario.ts';
import { seedBenchData } from '../lib/seed.ts';
import { median, round } from '../lib/stats.ts';
import { startWebhookReceiver, type RunningReceiver } from '../lib/webhook-receiver-process.ts';
import { CHECKOUT_CONNECTIONS } from './checkout-sessions.ts';
import { drainNotes, drainGoals, drainToll, type DrainResult } from './webhook-backlog-report.ts';

/** the requirement's backlog; BENCH_WEBHOOK_DELIVERIES changes it for trial runs */
export const BACKLOG = 10_000;
/** seconds of the checkout warm-up without a backlog */
const WARMUP_SECONDS = 5;
/** the service's default WEBHOOK_SEND_RATE: a drain's checkout load lasts about count / this */
const DEFAULT_SEND_RATE = 600;
/** the warm-up drain, discarded */
const WARMUP_DELIVERIES = 1000;
/** the checkout load stops after this even if the drain goes on */
const MAX_LOAD_MS = 90_000;
/** a drain not done this long after its events were committed counts as incomplete */
const DRAIN_DEADLINE_MS = 600_000;
const VERIFY_EVERY = 50;
const RETURN_ORIGIN = 'http://127.0.0.1:5173';
export const WEBHOOK_SERVICE_ENV = { NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function backlogSize(): number {
  const raw = process.env.BENCH_WEBHOOK_DELIVERIES;
  if (!raw) return BACKLOG;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 100 || n > 100_000) {
    throw new Error(`BENCH_WEBHOOK_DELIVERIES must be a whole number from 100 to 100000, got "${raw}"`);
  }
  return n;
}

interface Stage {
  service: RunningService;
  receiver: RunningReceiver;
  sql: postgres.Sql;
  database: Awaited<ReturnType<typeof DbModule.openDatabase>>;
  writeOutboxEvents: typeof OutboxModule.writeOutboxEvents;
  organizationId: string;
  /** the data of a real order.paid event: the Order as the API shows it */
  orderData: unknown;
  backendPids: () => Promise<number[]>;
}

/** Writes `count` order.paid events in one transaction; returns their shared created_at. */
export async function writeBacklog(
  stage: Pick<Stage, 'database' | 'writeOutboxEvents' | 'organizationId' | 'orderData'>,
  count: number,
): Promise<Date> {
  const at = new Date();
  await stage.database.transaction(async (tx) => {
    for (let done = 0; done < count; done += 1000) {
      const events = Array.from({ length: Math.min(1000, count - done) }, () => ({
        organizationId: stage.organizationId,
        type: 'order.paid',
        data: stage.orderData,
        at,
      }));
      await stage.writeOutboxEvents(tx, events);
    }
  });
  return at;
}

/** The deliveries of one backlog once the service has recorded them (or after 20 s). */
async function deliveriesOf(sql: postgres.Sql, at: Date) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const rows = await sql<{ status: string; n: number; attempts: number; fan_out_ms: number }[]>`
      SELECT d.status, count(*)::int AS n, sum(d.attempts)::int AS attempts,
        (extract(epoch FROM max(d.created_at) - min(d.created_at)) * 1000)::float8 AS fan_out_ms
      FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE e.created_at = ${at.toISOString()}::timestamptz
      GROUP BY d.status`;
    const pending = rows.find((r) => r.status === 'pending')?.n ?? 0;
    if (pending === 0 || Date.now() > deadline) {
      const total = rows.reduce((n, r) => n + r.n, 0);
      return {
        statuses: Object.fromEntries(rows.map((r) => [r.status, r.n])),
        attemptsPerDelivery: total ? round(rows.reduce((n, r) => n + r.attempts, 0) / total, 3) : 0,
        fanOutMs: rows.length ? Math.round(Math.max(...rows.map((r) => r.fan_out_ms))) : null,
      };
    }
    await sleep(250);
  }
}

/** One drain: the backlog committed, the checkout load started at once and stopped when it is done. */
async function drain(
  stage: Stage,
  target: LoadTarget & { perRequestHeaders: () => Record<string, string> },
  count: number,
  warmUp: boolean,
): Promise<{ run: ExternalRun; result: DrainResult }> {
  await stage.receiver.reset();
  const at = await writeBacklog(stage, count);
  const committed = Date.now();
  const fresh = target.perRequestHeaders;
  const selfBefore = process.cpuUsage();
  const load = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers ?? {},
    body: target.body!,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...fresh() } }) }],
    connections: CHECKOUT_CONNECTIONS,
    pipelining: 1,
    duration: MAX_LOAD_MS / 1000,
    timeout: 10,
  }) as Promise<AutocannonResult> & { stop(): void };
  const loadFrom = Date.now();
  let stats = await stage.receiver.stats();
  while (stats.unique < count && Date.now() < loadFrom + MAX_LOAD_MS) {
    await sleep(100);
    stats = await stage.receiver.stats();
  }
  load.stop();
  const loaded = await load;
  const loadTo = Date.now();
  const self = process.cpuUsage(selfBefore);
  while (stats.unique < count && Date.now() < committed + DRAIN_DEADLINE_MS) {
    await sleep(250);
    stats = await stage.receiver.stats();
  }
  stats = await stage.receiver.stats({ from: loadFrom, to: loadTo });
  const database = await deliveriesOf(stage.sql, at);
  const spanMs = stats.first !== null && stats.last !== null ? stats.last - stats.first : null;
  const result: DrainResult = {
    warmUp,
    deliveries: count,
    received: stats.unique,
    complete: stats.unique >= count,
    duplicates: stats.duplicates,
    verified: stats.verified,
    verifyFailures: stats.verifyFailures,
    failureExample: stats.failureExample,
    otherTypes: stats.otherTypes,
    firstAfterMs: stats.first === null ? null : Math.round(stats.first - committed),
    drainMs: spanMs === null ? null : Math.round(spanMs),
    endToEndMs: stats.last === null ? null : Math.round(stats.last - committed),
    perSecond: spanMs ? round((stats.unique / spanMs) * 1000, 1) : null,
    loadMs: loadTo - loadFrom,
    perSecondUnderLoad: round((stats.inWindow / Math.max(1, loadTo - loadFrom)) * 1000, 1),
    checkoutRps: round(loaded.requests.average, 1),
    checkoutP99: loaded.latency.p99,
    ...database,
  };
  return {
    result,
    run: {
      rps: round(loaded.requests.average, 1),
      p50: loaded.latency.p50,
      p99: loaded.latency.p99,
      max: loaded.latency.max,
      requests: loaded.requests.total,
      non2xx: loaded.non2xx,
      errors: loaded.errors,
      timeouts: loaded.timeouts,
      statusCodes: Object.fromEntries(Object.entries(loaded.statusCodeStats).map(([k, v]) => [k, v.count])),
      loadGeneratorCpuMs: (self.user + self.system) / 1000,
    },
  };
}

/** A real paid order (a free ticket is paid at once): its order.paid event is the backlog's template. */
export async function firstRealDelivery(
  stage: Pick<Stage, 'database' | 'receiver' | 'sql'>,
  apiUrl: string,
  token: string,
  eventId: string,
) {
  const { ticketTypesOf } = await importDist<typeof EventsModule>('events/events.js');
  const free = (await ticketTypesOf(stage.database.db, [eventId])).find((t) => t.priceMinor === 0)!;
  const res = await fetch(`${apiUrl}/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      event_id: eventId,
      items: [{ ticket_type_id: free.id, participant_name: 'Webhook Runner' }],
      buyer: { name: 'Webhook Buyer', email: 'webhooks@bench.example', phone: '0772123456' },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { data?: { id: string; status: string } };
  if (res.status !== 201 || body.data?.status !== 'paid') {
    throw new Error(`the free order answered ${res.status}: ${JSON.stringify(body)}`);
  }
  const deadline = Date.now() + 15_000;
  let stats = await stage.receiver.stats();
  while (stats.unique < 1 && Date.now() < deadline) {
    await sleep(100);
    stats = await stage.receiver.stats();
  }
  if (stats.unique !== 1 || stats.verified !== 1) {
    throw new Error(`the real order.paid webhook did not arrive verified: ${JSON.stringify(stats)}`);
  }
  const [row] = await stage.sql<{ payload: { data: unknown } }[]>`
    SELECT payload FROM outbox_events WHERE type = 'order.paid' ORDER BY created_at LIMIT 1`;
  return { orderId: body.data.id, data: row!.payload.data };
}

export const webhookBacklog: Scenario = {
  name: 'webhooks: backlog drain during checkout load',
  async run(ctx) {
    if (ctx.database.kind !== 'postgres' || !ctx.database.open.url) {
      return {
        name: this.name,
        table: [],
        notes: ['webhook backlog: needs PostgreSQL (several connections, like production); not run'],
        goals: [],
        data: { run: false, reason: 'needs PostgreSQL' },
      };
    }
    const count = backlogSize();
    // The run without a backlog lasts about as long as a drain's load, so that both p99s are read
    // over alike windows: in a shorter one a second of slow commits weighs several times more.
    const sendRate = Number(process.env.WEBHOOK_SEND_RATE) || DEFAULT_SEND_RATE;
    const baselineSeconds = Math.min(90, Math.max(5, Math.round(count / sendRate)));
    const { openDatabase } = await importDist<typeof DbModule>('platform/db.js');
    const outbox = await importDist<typeof OutboxModule>('webhooks/outbox.js');
    const { insertWebhookEndpoint } = await importDist<typeof EndpointsModule>(
      'webhooks/webhook-endpoints.js',
    );
    const own = await createBenchDatabase(ctx.database.open.url);
    let database: Stage['database'] | null = null;
    let sql: postgres.Sql | null = null;
    let receiver: RunningReceiver | null = null;
    let service: RunningService | null = null;
    try {
      const partner = await seedBenchData(own.open);
      database = await openDatabase({ url: own.open.url!, connections: { reads: 1, transactions: 1 } });
      sql = postgres(own.open.url!, { max: 2, onnotice: () => {} });
      const { endpoint, secret } = await insertWebhookEndpoint(database.db, {
        organizationId: partner.organizationId,
        url: 'http://127.0.0.1:1/hooks', // replaced once the receiver listens
        eventTypes: ['order.paid'],
        now: new Date(),
      });
      receiver = await startWebhookReceiver(secret, VERIFY_EVERY);
      await sql`UPDATE webhook_endpoints SET url = ${receiver.url} WHERE id = ${endpoint.id}`;
      service = await startService(own.serviceEnv, ctx.log, SERVICE_ENTRY, WEBHOOK_SERVICE_ENV);
      ctx.log(
        `  service: node dist/src/main.js (pid ${service.pid}) at ${service.apiUrl}, NODE_ENV=development, ` +
          `WEBHOOK_ALLOW_PRIVATE_URLS=true; receiver (pid ${receiver.pid}) at ${receiver.url}`,
      );
      const token = await fetchToken(service.apiUrl, partner);
      const stage: Stage = {
        service,
        receiver,
        sql,
        database,
        writeOutboxEvents: outbox.writeOutboxEvents,
        organizationId: partner.organizationId,
        orderData: null,
        backendPids: own.backendPids!,
      };
      const real = await firstRealDelivery(stage, service.apiUrl, token, partner.eventIds[1]!);
      stage.orderData = real.data;
      ctx.log(
        `  a real paid order (${real.orderId}) was delivered and verified; its order.paid data ` +
          `(${JSON.stringify(real.data).length} bytes) is the backlog's`,
      );

      const prefix = `bench-wh-${randomBytes(6).toString('hex')}`;
      let sent = 0;
      const processes = async () => ({
        server: [stage.service.pid],
        database: await stage.backendPids(),
        receiver: [stage.receiver.pid],
      });
      const checkout = {
        name: 'checkout, no backlog',
        url: `${service.apiUrl}/v1/checkout-sessions`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          event_id: partner.eventIds[0],
          ui_mode: 'redirect',
          on_success_url: `${RETURN_ORIGIN}/thanks`,
          on_cancel_url: `${RETURN_ORIGIN}/race`,
        }),
        connections: CHECKOUT_CONNECTIONS,
        perRequestHeaders: () => ({ 'idempotency-key': `${prefix}-${++sent}` }),
        processes,
      };
      const drains: DrainResult[] = [];
      let warming = ctx.settings.warmupSeconds > 0;
      const settings = {
        ...ctx.settings,
        warmupSeconds: warming ? WARMUP_SECONDS : 0,
        durationSeconds: baselineSeconds,
      };
      const [baseline, during] = await measureInterleaved(
        [
          checkout,
          {
            name: `checkout, draining ${count}`,
            url: `${receiver.url} (${count} order.paid deliveries)`,
            processes,
            async run() {
              const warmUp = warming;
              warming = false;
              const { run, result } = await drain(
                stage,
                checkout,
                warmUp ? Math.min(WARMUP_DELIVERIES, count) : count,
                warmUp,
              );
              ctx.log(drainNotes([result], ['drain'])[0]!);
              if (!warmUp) drains.push(result);
              return run;
            },
          },
        ],
        settings,
        ctx.log,
      );
      const pairs = drains.map((d, i) => ({ baselineP99: baseline!.runs[i]!.p99, drain: d }));
      const ratios = pairs.map((p) => round(p.drain.checkoutP99 / Math.max(1, p.baselineP99), 3));
      const rates = drains.map((d) => d.perSecond ?? 0);
      const summary = {
        deliveries: count,
        ratioMedian: round(median(ratios), 3),
        ratios,
        rateMedian: round(median(rates), 1),
        rates,
        underLoadMedian: round(median(drains.map((d) => d.perSecondUnderLoad)), 1),
      };
      const goals: Goal[] = drainGoals(summary, drains, [baseline!, during!]);
      return {
        name: this.name,
        table: [
          {
            scenario: `POST /v1/checkout-sessions, no backlog (-c ${CHECKOUT_CONNECTIONS}, ${baselineSeconds} s)`,
            rps: baseline!.median.rps,
            p50: baseline!.median.p50,
            p99: baseline!.median.p99,
            non2xx: baseline!.non2xx,
            ratio: null,
          },
          {
            scenario: `POST /v1/checkout-sessions, draining ${count} webhooks`,
            rps: during!.median.rps,
            p50: during!.median.p50,
            p99: during!.median.p99,
            non2xx: during!.non2xx,
            ratio: round(during!.median.rps / baseline!.median.rps, 3),
          },
        ],
        notes: [
          `webhook backlog (PostgreSQL; own service with NODE_ENV=development and WEBHOOK_ALLOW_PRIVATE_URLS=true, ` +
            `receiver on 127.0.0.1; ${count} order.paid events committed at once` +
            (count === BACKLOG ? '' : `, NOT the requirement's ${BACKLOG} (BENCH_WEBHOOK_DELIVERIES)`) +
            `; each drain paired with the ${baselineSeconds} s checkout run before it):`,
          ...drainNotes(
            drains,
            pairs.map(
              (p, i) =>
                `pair ${i + 1}: checkout p99 ${p.baselineP99} ms without, ratio ${ratios[i]}x; ` +
                `${drainToll(baseline!.runs[i]!, during!.runs[i]!, p.drain)};`,
            ),
          ),
          `  median p99 ratio ${summary.ratioMedian}x (spread ${Math.min(...ratios)} to ${Math.max(...ratios)}), ` +
            `median drain ${summary.rateMedian}/s (spread ${Math.min(...rates)} to ${Math.max(...rates)}), ` +
            `median under load ${summary.underLoadMedian}/s`,
        ],
        goals,
        data: {
          run: true,
          deliveries: count,
          standard_count: count === BACKLOG,
          service_env: WEBHOOK_SERVICE_ENV,
          summary,
          drains,
          baseline: baseline!,
          during: during!,
        },
      };
    } finally {
      await service?.stop().catch(() => {});
      await receiver?.stop().catch(() => {});
      await sql?.end({ timeout: 5 });
      await database?.close();
      await own.drop();
    }
  },
};
