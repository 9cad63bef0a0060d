// PostgreSQL only: a flash sale. 1,000 buyers start at once on one paid ticket type of capacity
// 100; each one does what a headless partner does: POST /v1/orders (with an Idempotency-Key),
// then POST /v1/orders/{id}/pay with the simulator's success number 01, then GET the order until
// it is final. Three rounds on fresh events, against this scenario's own service process, its
// own provider simulator process (so that the simulator outlives a killed service) and a database
// of its own on the bench's PostgreSQL server (created and dropped here):
//   A. no fault: exactly 100 paid, the other 900 refused with a clean 409 sold_out, no 5xx but
//      503s shed under overload (buyers retry those after Retry-After, as an SDK does);
//   B. the service is SIGKILLed once about half the payment prompts are out, and restarted on
//      the same ports and database; buyers retry what failed on the network (same Idempotency-Key,
//      /pay again). The provider's confirmed payments must equal the paid orders: none lost, none
//      doubled;
//   C. the same, killed in the middle of the creation burst.
// Throughout every round a sampler reads paid + actively held tickets every 100 ms: never above
// the capacity. The provider's side is asked twice over: a status query (MTN contract) for every
// payment reference in the database, and the simulator's own log of every payment it settled
// (which would also show a payment the service had no record of).
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import postgres from 'postgres';
import type * as ClientsModule from '../../src/auth/clients.ts';
import type * as EventsModule from '../../src/events/events.ts';
import type * as OrganizationsModule from '../../src/organizations/organizations.ts';
import type * as MtnModule from '../../src/payments/methods/momo/mtn-momo.ts';
import type * as MomoSimulatorModule from '../../src/payments/methods/momo/momo-simulator.ts';
import type * as DbModule from '../../src/platform/db.ts';
import type * as MigrateModule from '../../src/platform/migrate.ts';
import { createBenchDatabase } from '../lib/database.ts';
import { raceEventInput } from '../lib/seed.ts';
import { fetchToken } from '../lib/http.ts';
import { importDist, SERVICE_ENTRY } from '../lib/paths.ts';
import {
  startService,
  startSimulatorProcess,
  type RunningService,
  type RunningSimulator,
} from '../lib/processes.ts';
import type { BenchContext, Goal, Scenario } from '../lib/scenario.ts';
import { percentile, round } from '../lib/stats.ts';

const BUYERS = 1000;
const CAPACITY = 100;
const PRICE_MINOR = 30_000;
/** the simulator's "success after ~2 s" number (docs/partners/testing.md) */
const PAY_PHONE = '0770000001';
/** prompt window, polling schedule and simulator delays twenty times faster */
const TIME_SCALE = 0.05;
const SAMPLE_EVERY_MS = 100;
/** When a round kills the service: after this many answers of one kind (counted by the buyers). */
interface KillPlan {
  after: 'creations' | 'prompts';
  count: number;
}
/**
 * B: about half the payment prompts out; C: half the tickets' creations answered, when an order
 * may be committed whose 201 dies with the process (the retry must replay it, not make another).
 */
const ROUNDS: Array<{ label: string; kill: KillPlan | null }> = [
  { label: 'A (no kill)', kill: null },
  { label: 'B (SIGKILL when 50 prompts are out)', kill: { after: 'prompts', count: CAPACITY / 2 } },
  { label: 'C (SIGKILL when 50 creations are answered)', kill: { after: 'creations', count: CAPACITY / 2 } },
];
/** a request whose socket stays silent this long counts as a network error (and is retried) */
const REQUEST_TIMEOUT_MS = 30_000;
const ORDER_POLL_MS = 500;
/** buyers stop retrying and polling this long after the round starts */
const BUYER_DEADLINE_MS = 150_000;
/** every order and payment attempt of the round must be final this long after it starts */
const SETTLE_DEADLINE_MS = 200_000;
const DAY = 24 * 3600 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  /** 0 = no HTTP answer (connection refused or reset, timeout) */
  status: number;
  json: {
    data?: { id?: string; status?: string };
    error_code?: string;
    message?: string;
    errors?: Array<{ field: string; message: string }>;
  } | null;
  replayed: boolean;
  /** Retry-After of a 503, in seconds */
  retryAfter?: number;
  error?: string;
}

/** A 503 the service shed under overload, or while its database was unreachable: retried after Retry-After. */
const isShed = (answer: Answer) => answer.status === 503 && answer.json?.error_code === 'service_unavailable';

function call(
  agent: Agent,
  url: string,
  options: { method: string; token: string; body?: unknown; headers?: Record<string, string> },
): Promise<Answer> {
  return new Promise((resolveAnswer) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        agent,
        method: options.method,
        headers: {
          authorization: `Bearer ${options.token}`,
          ...(payload !== undefined && {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
          }),
          ...options.headers,
        },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          let json: Answer['json'] = null;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer['json'];
          } catch {
            // not JSON: recorded by status only
          }
          const retryAfter = Number(res.headers['retry-after']);
          resolveAnswer({
            status: res.statusCode ?? 0,
            json,
            replayed: res.headers['idempotent-replayed'] === 'true',
            ...(retryAfter > 0 && { retryAfter }),
          });
        });
        res.on('error', (error) =>
          resolveAnswer({ status: 0, json: null, replayed: false, error: error.message }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolveAnswer({ status: 0, json: null, replayed: false, error: error.code ?? error.message }),
    );
    req.end(payload);
  });
}

/** Answers per endpoint: status -> count (0 = network error), error_code -> count. */
class Tally {
  readonly statuses: Record<string, Record<string, number>> = {};
  readonly codes: Record<string, Record<string, number>> = {};
  /** the first message seen per endpoint and error code, to tell what an unexpected code meant */
  readonly examples: Record<string, Record<string, string>> = {};
  add(endpoint: string, answer: Answer): void {
    const s = (this.statuses[endpoint] ??= {});
    s[answer.status] = (s[answer.status] ?? 0) + 1;
    const code =
      answer.status === 0
        ? `network: ${answer.error}`
        : (answer.json?.error_code ?? (answer.status >= 400 ? `HTTP ${answer.status}` : undefined));
    if (code) {
      const c = (this.codes[endpoint] ??= {});
      c[code] = (c[code] ?? 0) + 1;
      const e = (this.examples[endpoint] ??= {});
      e[code] ??= [answer.json?.message, ...(answer.json?.errors ?? []).map((f) => `${f.field} ${f.message}`)]
        .filter(Boolean)
        .join('; ')
        .slice(0, 200);
    }
  }
  count(predicate: (status: number) => boolean): number {
    let n = 0;
    for (const byStatus of Object.values(this.statuses))
      for (const [status, count] of Object.entries(byStatus)) if (predicate(Number(status))) n += count;
    return n;
  }
}

interface BuyerOutcome {
  /** the final answer to POST /v1/orders: 201, 409 (sold_out), ... or 0 (gave up) */
  createStatus: number;
  createCode: string | null;
  createMs: number | null;
  orderId: string | null;
  payStatus: number | null;
  payCode: string | null;
  /** the last order status read by polling */
  orderStatus: string | null;
  retriedAfterNetworkError: boolean;
  replayed: boolean;
}

interface Sampler {
  stop(): Promise<{
    samples: number;
    maxCounters: number;
    maxFromOrders: number;
    maxGapMs: number;
    allHeldMs: number | null;
    allPaidMs: number | null;
  }>;
}

/**
 * Every 100 ms: paid + held as the service enforces it (the ticket type's counters) and as the
 * orders say it (registrations of paid orders plus of pending orders whose hold has not lapsed),
 * both in one statement, so one snapshot.
 */
function startSampler(sql: postgres.Sql, ticketTypeId: string, startedAt: number): Sampler {
  let stopped = false;
  const result = {
    samples: 0,
    maxCounters: 0,
    maxFromOrders: 0,
    maxGapMs: 0,
    allHeldMs: null as number | null,
    allPaidMs: null as number | null,
  };
  const loop = (async () => {
    let last = Date.now();
    while (!stopped) {
      const began = Date.now();
      const [row] = await sql<{ paid: number; held: number; from_orders: number }[]>`
        SELECT tt.paid_count AS paid, tt.held_count AS held,
          (SELECT count(*)::int FROM registrations r JOIN orders o ON o.id = r.order_id
            WHERE r.ticket_type_id = tt.id
              AND (o.status = 'paid' OR (o.status = 'pending' AND o.hold_expires_at > now()))) AS from_orders
        FROM ticket_types tt WHERE tt.id = ${ticketTypeId}`;
      const now = Date.now();
      result.samples++;
      result.maxGapMs = Math.max(result.maxGapMs, now - last);
      last = now;
      result.maxCounters = Math.max(result.maxCounters, row!.paid + row!.held);
      result.maxFromOrders = Math.max(result.maxFromOrders, row!.from_orders);
      if (result.allHeldMs === null && row!.paid + row!.held >= CAPACITY) result.allHeldMs = now - startedAt;
      if (result.allPaidMs === null && row!.paid >= CAPACITY) result.allPaidMs = now - startedAt;
      await sleep(Math.max(0, SAMPLE_EVERY_MS - (Date.now() - began)));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return result;
    },
  };
}

interface Reconciliation {
  references: number;
  /** references the provider reports successful (status query), or logged as settled successful */
  providerConfirmed: number;
  confirmedOrders: number;
  paidOrders: number;
  /** provider said success, order not paid (or success for a reference the service never recorded) */
  lost: string[];
  /** an order with more than one successful provider payment */
  doubled: string[];
  /** paid in the database without a successful provider payment */
  paidUnconfirmed: string[];
  /** the status query and the simulator's log disagree about a reference */
  sourcesDisagree: number;
  /** the attempt row's status disagrees with the provider's answer */
  attemptRowsDisagree: number;
  paidAfterExpiry: number;
  /** order.paid outbox events: an order paid twice would have two */
  paidEvents: number;
  paidTwice: string[];
  paidWithoutEvent: string[];
  /** ticket_types.paid_count equals the registrations of paid orders */
  countersMatch: boolean;
  providerStatuses: Record<string, number>;
}

async function reconcile(options: {
  sql: postgres.Sql;
  simulator: RunningSimulator;
  eventId: string;
  ticketTypeId: string;
  since: number;
}): Promise<Reconciliation> {
  const { sql, simulator, eventId } = options;
  const { createMtnMomoProvider } = await importDist<typeof MtnModule>('payments/methods/momo/mtn-momo.js');
  const { momoSimulator } = await importDist<typeof MomoSimulatorModule>(
    'payments/methods/momo/momo-simulator.js',
  );
  const mtn = createMtnMomoProvider({ ...momoSimulator.settings(simulator.url), timeoutMs: 10_000 });
  const attempts = await sql<{ reference: string; order_id: string; status: string; method: string }[]>`
    SELECT pa.reference, pa.order_id, pa.status, pa.method
    FROM payment_attempts pa JOIN orders o ON o.id = pa.order_id
    WHERE o.event_id = ${eventId}`;
  const byReference = new Map(attempts.map((a) => [a.reference, a]));
  const queried = new Map<string, string>();
  for (let i = 0; i < attempts.length; i += 10) {
    await Promise.all(
      attempts.slice(i, i + 10).map(async (a) => {
        if (a.method !== 'momo') throw new Error(`unexpected payment method ${a.method}`);
        const status = await mtn.getStatus(a.reference);
        queried.set(a.reference, status.status);
      }),
    );
  }
  const logged = new Map<string, string>();
  for (const line of simulator.logLines()) {
    if (line.msg === 'simulated payment final' && line.receivedAt >= options.since) {
      logged.set(String(line.reference), String(line.state));
    }
  }
  const confirmed = new Set<string>();
  for (const [reference, status] of queried) if (status === 'successful') confirmed.add(reference);
  for (const [reference, state] of logged) if (state === 'successful') confirmed.add(reference);
  let sourcesDisagree = 0;
  for (const reference of new Set([...queried.keys(), ...logged.keys()])) {
    const q = queried.get(reference);
    const l = logged.get(reference);
    if ((q === 'successful') !== (l === 'successful')) sourcesDisagree++;
  }
  let attemptRowsDisagree = 0;
  for (const a of attempts)
    if ((a.status === 'successful') !== confirmed.has(a.reference)) attemptRowsDisagree++;

  const perOrder = new Map<string, number>();
  const lost: string[] = [];
  for (const reference of confirmed) {
    const attempt = byReference.get(reference);
    if (!attempt) {
      lost.push(`reference ${reference} (unknown to the service)`);
      continue;
    }
    perOrder.set(attempt.order_id, (perOrder.get(attempt.order_id) ?? 0) + 1);
  }
  const paid = await sql<{ id: string; paid_after_expiry: boolean }[]>`
    SELECT id, paid_after_expiry FROM orders WHERE event_id = ${eventId} AND status = 'paid'`;
  const flagged = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM orders WHERE event_id = ${eventId} AND paid_after_expiry`;
  const paidIds = new Set(paid.map((p) => p.id));
  for (const orderId of perOrder.keys()) if (!paidIds.has(orderId)) lost.push(orderId);
  const [counters] = await sql<{ paid_count: number; paid_regs: number }[]>`
    SELECT tt.paid_count,
      (SELECT count(*)::int FROM registrations r JOIN orders o ON o.id = r.order_id
        WHERE r.ticket_type_id = tt.id AND o.status = 'paid') AS paid_regs
    FROM ticket_types tt WHERE tt.id = ${options.ticketTypeId}`;
  const events = await sql<{ order_id: string; n: number }[]>`
    SELECT payload->'data'->>'id' AS order_id, count(*)::int AS n FROM outbox_events
    WHERE type = 'order.paid' AND payload->'data'->>'event_id' = ${eventId}
    GROUP BY 1`;
  const eventsPerOrder = new Map(events.map((e) => [e.order_id, e.n]));
  const providerStatuses: Record<string, number> = {};
  for (const status of queried.values()) providerStatuses[status] = (providerStatuses[status] ?? 0) + 1;
  return {
    references: attempts.length,
    providerConfirmed: confirmed.size,
    confirmedOrders: perOrder.size,
    paidOrders: paidIds.size,
    lost,
    doubled: [...perOrder].filter(([, n]) => n > 1).map(([id]) => id),
    paidUnconfirmed: [...paidIds].filter((id) => !perOrder.has(id)),
    sourcesDisagree,
    attemptRowsDisagree,
    paidAfterExpiry: flagged[0]!.n,
    paidEvents: events.reduce((sum, e) => sum + e.n, 0),
    paidTwice: events.filter((e) => e.n > 1).map((e) => e.order_id),
    paidWithoutEvent: [...paidIds].filter((id) => !eventsPerOrder.has(id)),
    countersMatch: counters!.paid_count === counters!.paid_regs,
    providerStatuses,
  };
}

interface ServiceLog {
  errors: number;
  warnings: number;
  /** the first few error and warning lines, shortened */
  examples: string[];
}

/** Error and warning lines the service processes logged since `since` (their JSON log, pino levels). */
function readServiceLog(services: RunningService[], since: number): ServiceLog {
  const result: ServiceLog = { errors: 0, warnings: 0, examples: [] };
  for (const service of services) {
    for (const line of service.output().split('\n')) {
      if (!line.startsWith('{')) continue;
      let entry: {
        level?: number;
        time?: string;
        msg?: string;
        err?: { message?: string };
        req?: { url?: string };
      };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if ((entry.level ?? 0) < 40 || Date.parse(entry.time ?? '') < since) continue;
      if (entry.level! >= 50) result.errors++;
      else result.warnings++;
      if (result.examples.length < 5) {
        const parts = [entry.level! >= 50 ? 'error' : 'warn', entry.msg, entry.err?.message, entry.req?.url];
        result.examples.push(parts.filter(Boolean).join(': ').slice(0, 300));
      }
    }
  }
  return result;
}

interface KillSnapshot {
  /** answers the buyers had when the kill was sent */
  creations_answered: number;
  prompts_accepted: number;
  /** what the database held right after it */
  paid: number;
  submitting: number;
  pending: number;
  leased_jobs: number;
}

interface RoundResult {
  label: string;
  kill: KillPlan | null;
  buyers: number;
  created: number;
  soldOut: number;
  other4xx: number;
  final5xx: number;
  /** 503 service_unavailable answers, retried after their Retry-After; not counted in answers5xx */
  shed: number;
  gaveUp: number;
  answers5xx: number;
  networkErrors: number;
  retriedBuyers: number;
  replayedCreates: number;
  payAccepted: number;
  paidSeenByBuyers: number;
  paidInDatabase: number;
  /** every order of the event: more than the 201s would mean a retried creation made a second one */
  ordersInDatabase: number;
  pendingAtEnd: number;
  openAttemptsAtEnd: number;
  settled: boolean;
  createP50Ms: number;
  createP99Ms: number;
  allAnsweredMs: number;
  settledMs: number;
  sampler: Awaited<ReturnType<Sampler['stop']>>;
  reconciliation: Reconciliation;
  killedAtMs: number | null;
  restartMs: number | null;
  atKill: KillSnapshot | null;
  serviceLog: ServiceLog;
  statuses: Record<string, Record<string, number>>;
  errorCodes: Record<string, Record<string, number>>;
  errorExamples: Record<string, Record<string, string>>;
}

interface Stage {
  ctx: BenchContext;
  sql: postgres.Sql;
  simulator: RunningSimulator;
  service: RunningService;
  databaseEnv: Record<string, string>;
  token: string;
  insertEvent(label: string): Promise<{ eventId: string; ticketTypeId: string }>;
}

async function runRound(stage: Stage, label: string, kill: KillPlan | null): Promise<RoundResult> {
  const { ctx, sql } = stage;
  const { eventId, ticketTypeId } = await stage.insertEvent(label);
  const apiUrl = stage.service.apiUrl;
  const agent = new Agent({ keepAlive: true, maxSockets: BUYERS });
  const tally = new Tally();
  const startedAt = Date.now();
  const deadline = startedAt + BUYER_DEADLINE_MS;
  const sampler = startSampler(sql, ticketTypeId, startedAt);
  let payAccepted = 0;
  let createAnswered = 0;
  /** 503 service_unavailable answers (shed under overload), each retried */
  let shed = 0;
  // Written from inside the buyers' callbacks, hence an object rather than narrowed locals.
  const fault = {
    killedAtMs: null as number | null,
    restartMs: null as number | null,
    restarting: null as Promise<void> | null,
    atKill: null as KillSnapshot | null,
    error: null as unknown,
  };
  const services = [stage.service];
  const killAndRestart = async () => {
    fault.killedAtMs = Date.now() - startedAt;
    const [answeredAtKill, acceptedAtKill] = [createAnswered, payAccepted];
    ctx.log(
      `  ${label}: ${createAnswered} creations answered, ${payAccepted} prompts out after ${fault.killedAtMs} ms: ` +
        'SIGKILL to the service',
    );
    await stage.service.kill();
    // What the dead process left behind: prompts recorded but perhaps never sent, prompts out, and
    // payment jobs still under its lease (they wait for the lease to run out).
    const [left] = await sql<Omit<KillSnapshot, 'creations_answered' | 'prompts_accepted'>[]>`
      SELECT
        (SELECT count(*)::int FROM orders WHERE event_id = ${eventId} AND status = 'paid') AS paid,
        (SELECT count(*)::int FROM payment_attempts pa JOIN orders o ON o.id = pa.order_id
          WHERE o.event_id = ${eventId} AND pa.status = 'submitting') AS submitting,
        (SELECT count(*)::int FROM payment_attempts pa JOIN orders o ON o.id = pa.order_id
          WHERE o.event_id = ${eventId} AND pa.status = 'pending') AS pending,
        (SELECT count(*)::int FROM jobs WHERE kind = 'payment.reconcile' AND locked_until > now()
          AND payload->>'reference' IN (SELECT pa.reference FROM payment_attempts pa
            JOIN orders o ON o.id = pa.order_id WHERE o.event_id = ${eventId})) AS leased_jobs`;
    fault.atKill = { ...left!, creations_answered: answeredAtKill, prompts_accepted: acceptedAtKill };
    ctx.log(
      `  ${label}: left by the killed process: ${left!.paid} paid, ${left!.submitting} prompts recorded but not ` +
        `confirmed sent, ${left!.pending} prompts out, ${left!.leased_jobs} payment jobs under its lease`,
    );
    const began = Date.now();
    stage.service = await startService(stage.databaseEnv, ctx.log, SERVICE_ENTRY, stage.service.env);
    services.push(stage.service);
    fault.restartMs = Date.now() - began;
    ctx.log(
      `  ${label}: service restarted on the same ports in ${fault.restartMs} ms (pid ${stage.service.pid})`,
    );
  };

  const killIf = (after: KillPlan['after'], count: number) => {
    if (kill?.after !== after || count !== kill.count) return;
    fault.restarting = killAndRestart().catch((error: unknown) => {
      fault.error = error;
    });
  };

  /** Sends until an HTTP answer that is not worth repeating, or the deadline. */
  const send = async (
    endpoint: string,
    url: string,
    options: Parameters<typeof call>[2],
    outcome: BuyerOutcome,
  ): Promise<Answer | null> => {
    while (Date.now() < deadline) {
      const answer = await call(agent, url, options);
      tally.add(endpoint, answer);
      const retry =
        answer.status === 0 ||
        answer.status >= 500 ||
        (answer.status === 409 && answer.json?.error_code === 'idempotency_key_in_use');
      if (!retry) return answer;
      if (answer.status === 0) outcome.retriedAfterNetworkError = true;
      if (isShed(answer)) shed++;
      // As a partner's SDK does: a shed request is sent again after its Retry-After.
      const wait = isShed(answer) && answer.retryAfter ? answer.retryAfter * 1000 : null;
      await sleep(wait ?? (answer.status === 409 ? 1000 : 200 + Math.random() * 300));
    }
    return null;
  };

  const buyer = async (i: number): Promise<BuyerOutcome> => {
    const outcome: BuyerOutcome = {
      createStatus: 0,
      createCode: null,
      createMs: null,
      orderId: null,
      payStatus: null,
      payCode: null,
      orderStatus: null,
      retriedAfterNetworkError: false,
      replayed: false,
    };
    const token = stage.token;
    const began = Date.now();
    const created = await send(
      'POST /v1/orders',
      `${apiUrl}/v1/orders`,
      {
        method: 'POST',
        token,
        headers: { 'idempotency-key': `flash-${label.slice(0, 1)}-${i}-${randomUUID()}` },
        body: {
          event_id: eventId,
          items: [{ ticket_type_id: ticketTypeId, participant_name: `Runner ${i + 1}` }],
          buyer: { name: `Buyer ${i + 1}`, email: `buyer${i + 1}@bench.example`, phone: PAY_PHONE },
        },
      },
      outcome,
    );
    if (!created) return outcome;
    outcome.createMs = Date.now() - began;
    outcome.createStatus = created.status;
    killIf('creations', ++createAnswered);
    outcome.createCode = created.json?.error_code ?? null;
    outcome.replayed = created.replayed;
    if (created.status !== 201) return outcome;
    const orderId = created.json?.data?.id;
    if (!orderId) throw new Error('POST /v1/orders answered 201 without an order id');
    outcome.orderId = orderId;
    const paid = await send(
      'POST /v1/orders/{id}/pay',
      `${apiUrl}/v1/orders/${orderId}/pay`,
      { method: 'POST', token, body: { payment_method: 'momo', phone: PAY_PHONE } },
      outcome,
    );
    outcome.payStatus = paid?.status ?? 0;
    outcome.payCode = paid?.json?.error_code ?? null;
    if (paid?.status === 202) {
      payAccepted++;
      killIf('prompts', payAccepted);
    }
    // Poll even after a refused pay: after a restart it may be refused because it is already paid.
    while (Date.now() < deadline) {
      const read = await send(
        'GET /v1/orders/{id}',
        `${apiUrl}/v1/orders/${orderId}`,
        { method: 'GET', token },
        outcome,
      );
      outcome.orderStatus = read?.json?.data?.status ?? outcome.orderStatus;
      if (!read || read.status !== 200) break;
      if (['paid', 'expired', 'cancelled', 'refunded'].includes(outcome.orderStatus ?? '')) break;
      await sleep(ORDER_POLL_MS);
    }
    return outcome;
  };

  let outcomes: BuyerOutcome[];
  try {
    outcomes = await Promise.all(Array.from({ length: BUYERS }, (_, i) => buyer(i)));
    await fault.restarting;
  } finally {
    agent.destroy();
  }
  if (fault.error) throw fault.error;
  const answeredTimes = outcomes.map((o) => o.createMs).filter((ms): ms is number => ms !== null);
  const allAnsweredMs = answeredTimes.length ? Math.max(...answeredTimes) : Number.NaN;

  // Settled: no pending order and no payment attempt still waiting for the provider.
  let settled = false;
  let state = { pending: 0, open_attempts: 0, paid: 0, orders: 0 };
  while (Date.now() < startedAt + SETTLE_DEADLINE_MS) {
    const [row] = await sql<{ pending: number; open_attempts: number; paid: number; orders: number }[]>`
      SELECT
        (SELECT count(*)::int FROM orders WHERE event_id = ${eventId}) AS orders,
        (SELECT count(*)::int FROM orders WHERE event_id = ${eventId} AND status = 'pending') AS pending,
        (SELECT count(*)::int FROM orders WHERE event_id = ${eventId} AND status = 'paid') AS paid,
        (SELECT count(*)::int FROM payment_attempts pa JOIN orders o ON o.id = pa.order_id
          WHERE o.event_id = ${eventId} AND pa.status IN ('submitting', 'pending')) AS open_attempts`;
    state = row!;
    if (state.pending === 0 && state.open_attempts === 0) {
      settled = true;
      break;
    }
    await sleep(250);
  }
  const settledMs = Date.now() - startedAt;
  const samples = await sampler.stop();
  const reconciliation = await reconcile({
    sql,
    simulator: stage.simulator,
    eventId,
    ticketTypeId,
    since: startedAt,
  });
  const serviceLog = readServiceLog(services, startedAt);
  const createTimes = outcomes.filter((o) => o.createStatus !== 0).map((o) => o.createMs!);
  return {
    label,
    kill,
    buyers: BUYERS,
    created: outcomes.filter((o) => o.createStatus === 201).length,
    soldOut: outcomes.filter((o) => o.createStatus === 409 && o.createCode === 'sold_out').length,
    other4xx: outcomes.filter(
      (o) => o.createStatus >= 400 && o.createStatus < 500 && o.createCode !== 'sold_out',
    ).length,
    final5xx: outcomes.filter((o) => o.createStatus >= 500).length,
    gaveUp: outcomes.filter((o) => o.createStatus === 0 || (o.orderId !== null && o.orderStatus === null))
      .length,
    answers5xx: tally.count((s) => s >= 500) - shed,
    shed,
    networkErrors: tally.count((s) => s === 0),
    retriedBuyers: outcomes.filter((o) => o.retriedAfterNetworkError).length,
    replayedCreates: outcomes.filter((o) => o.replayed).length,
    payAccepted,
    paidSeenByBuyers: outcomes.filter((o) => o.orderStatus === 'paid').length,
    paidInDatabase: state.paid,
    ordersInDatabase: state.orders,
    pendingAtEnd: state.pending,
    openAttemptsAtEnd: state.open_attempts,
    settled,
    createP50Ms: percentile(createTimes, 50),
    createP99Ms: percentile(createTimes, 99),
    allAnsweredMs,
    settledMs,
    sampler: samples,
    reconciliation,
    killedAtMs: fault.killedAtMs,
    restartMs: fault.restartMs,
    atKill: fault.atKill,
    serviceLog,
    statuses: tally.statuses,
    errorCodes: tally.codes,
    errorExamples: tally.examples,
  };
}

const seconds = (ms: number | null) =>
  ms === null || Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(1)} s`;

function goalsFor(r: RoundResult): Goal[] {
  const g = (name: string, target: string, measured: string, pass: boolean): Goal => ({
    name: `flash sale ${r.label}: ${name}`,
    target,
    measured,
    pass,
    applies: true,
  });
  const rec = r.reconciliation;
  const goals: Goal[] = [
    g(
      'paid orders',
      `exactly ${CAPACITY}`,
      `${r.paidInDatabase} paid (counters ${rec.countersMatch ? 'agree' : 'DISAGREE'})`,
      r.paidInDatabase === CAPACITY && rec.countersMatch,
    ),
    g(
      'max sampled paid + held',
      `<= ${CAPACITY}`,
      `${r.sampler.maxCounters} by the counters, ${r.sampler.maxFromOrders} by the orders (${r.sampler.samples} samples)`,
      r.sampler.maxCounters <= CAPACITY && r.sampler.maxFromOrders <= CAPACITY,
    ),
    g(
      '5xx answers',
      '0, besides 503 service_unavailable (shed, retried after Retry-After)',
      `${r.answers5xx} (and ${r.shed} shed)`,
      r.answers5xx === 0,
    ),
    g(
      'provider-confirmed payments = paid orders',
      'none lost, none doubled',
      `${rec.confirmedOrders} confirmed, ${rec.paidOrders} paid; lost ${rec.lost.length}, ` +
        `doubled ${rec.doubled.length + rec.paidTwice.length}, paid without confirmation ${rec.paidUnconfirmed.length}, ` +
        `order.paid events ${rec.paidEvents}`,
      rec.lost.length === 0 &&
        rec.doubled.length === 0 &&
        rec.paidTwice.length === 0 &&
        rec.paidWithoutEvent.length === 0 &&
        rec.paidUnconfirmed.length === 0 &&
        rec.sourcesDisagree === 0 &&
        rec.attemptRowsDisagree === 0,
    ),
    g(
      'every order final',
      `no pending order or open prompt within ${SETTLE_DEADLINE_MS / 1000} s`,
      r.settled
        ? `settled after ${seconds(r.settledMs)}`
        : `${r.pendingAtEnd} pending, ${r.openAttemptsAtEnd} open`,
      r.settled,
    ),
  ];
  const others = BUYERS - CAPACITY;
  if (!r.kill) {
    goals.push(
      g(
        'every other buyer a clean 4xx at creation',
        `${CAPACITY} created (one order each), ${others} sold_out, no network error`,
        `${r.created} created (${r.ordersInDatabase} orders in the database), ${r.soldOut} sold_out, ` +
          `${r.other4xx} other 4xx, ${r.networkErrors} network errors`,
        r.created === CAPACITY &&
          r.ordersInDatabase === CAPACITY &&
          r.soldOut === others &&
          r.other4xx === 0 &&
          r.networkErrors === 0,
      ),
    );
  } else {
    goals.push(
      g(
        'every buyer a final answer after retrying',
        `${CAPACITY} holders (one order each), the rest sold_out, none given up`,
        `${r.created} created (${r.ordersInDatabase} orders in the database), ${r.soldOut} sold_out, ` +
          `${r.other4xx} other 4xx, ${r.gaveUp} gave up`,
        r.created === CAPACITY &&
          r.ordersInDatabase === CAPACITY &&
          r.soldOut === others &&
          r.other4xx === 0 &&
          r.gaveUp === 0,
      ),
    );
  }
  return goals;
}

function notesFor(r: RoundResult): string[] {
  const rec = r.reconciliation;
  const lines = [
    `    ${r.label}: created ${r.created}, sold_out ${r.soldOut}, other 4xx ${r.other4xx}, 5xx ${r.answers5xx}, ` +
      `network errors ${r.networkErrors}, paid ${r.paidInDatabase}, max paid+held ${r.sampler.maxCounters} ` +
      `(orders: ${r.sampler.maxFromOrders})`,
    `      POST /v1/orders p50 ${r.createP50Ms} ms, p99 ${r.createP99Ms} ms; all ${BUYERS} answered after ${seconds(r.allAnsweredMs)}; ` +
      `all held ${seconds(r.sampler.allHeldMs)}, all paid ${seconds(r.sampler.allPaidMs)}, settled ${seconds(r.settledMs)}`,
    `      provider: ${rec.references} references, ${rec.providerConfirmed} successful (status query + simulator log); ` +
      `lost ${rec.lost.length}, doubled ${rec.doubled.length}, paid without confirmation ${rec.paidUnconfirmed.length}, ` +
      `paid_after_expiry ${rec.paidAfterExpiry}, sources disagree ${rec.sourcesDisagree}, attempt rows disagree ${rec.attemptRowsDisagree}`,
    `      order.paid outbox events: ${rec.paidEvents} (orders with two or more: ${rec.paidTwice.length}, ` +
      `paid orders without one: ${rec.paidWithoutEvent.length})`,
    `      sampler: ${r.sampler.samples} samples, largest gap ${r.sampler.maxGapMs} ms`,
  ];
  if (r.atKill) {
    const k = r.atKill;
    lines.push(
      `      SIGKILL at ${seconds(r.killedAtMs)} (${k.creations_answered} creations answered, ${k.prompts_accepted} pay calls ` +
        `answered 202), restarted in ${seconds(r.restartMs)}; ${r.retriedBuyers} buyers retried after network ` +
        `errors, ${r.replayedCreates} creations replayed by Idempotency-Key`,
      `      left by the killed process: ${k.paid} paid, ${k.submitting} prompts recorded but not confirmed sent, ` +
        `${k.pending} prompts out, ${k.leased_jobs} payment jobs under its lease ` +
        `(those wait for it to run out: 60 s, not time-scaled)`,
    );
  }
  if (r.serviceLog.errors || r.serviceLog.warnings) {
    lines.push(
      `      service log: ${r.serviceLog.errors} errors, ${r.serviceLog.warnings} warnings; ` +
        r.serviceLog.examples.join(' | '),
    );
  }
  if (rec.lost.length) lines.push(`      lost: ${rec.lost.slice(0, 10).join(', ')}`);
  if (rec.doubled.length) lines.push(`      doubled: ${rec.doubled.slice(0, 10).join(', ')}`);
  if (rec.paidTwice.length) lines.push(`      paid twice: ${rec.paidTwice.slice(0, 10).join(', ')}`);
  if (rec.paidWithoutEvent.length)
    lines.push(`      paid without order.paid: ${rec.paidWithoutEvent.slice(0, 10).join(', ')}`);
  if (rec.paidUnconfirmed.length)
    lines.push(`      paid without confirmation: ${rec.paidUnconfirmed.slice(0, 10).join(', ')}`);
  for (const [endpoint, codes] of Object.entries(r.errorCodes)) {
    lines.push(
      `      ${endpoint}: ${Object.entries(codes)
        .map(([code, n]) => {
          const example = code === 'sold_out' ? '' : r.errorExamples[endpoint]?.[code];
          return `${code} x${n}${example ? ` ("${example}")` : ''}`;
        })
        .join(', ')}`,
    );
  }
  return lines;
}

export const flashSale: Scenario = {
  name: 'flash sale',
  async run(ctx) {
    if (ctx.database.kind !== 'postgres' || !ctx.database.open.url) {
      return {
        name: this.name,
        table: [],
        notes: ['flash sale: needs PostgreSQL (PGlite has one connection and hides races); not run'],
        goals: [],
        data: { run: false, reason: 'needs PostgreSQL' },
      };
    }
    const { openDatabase } = await importDist<typeof DbModule>('platform/db.js');
    const { migrate } = await importDist<typeof MigrateModule>('platform/migrate.js');
    const { createOrganization } = await importDist<typeof OrganizationsModule>(
      'organizations/organizations.js',
    );
    const { insertApiClient } = await importDist<typeof ClientsModule>('auth/clients.js');
    const { insertEvent, ticketTypesOf } = await importDist<typeof EventsModule>('events/events.js');

    // A database of its own on the same server: the bench's main service runs the job runner on
    // the main bench database with its own in-process simulator, and would otherwise claim this
    // sale's payment jobs and settle them against the wrong provider.
    const own = await createBenchDatabase(ctx.database.open.url);
    const url = own.open.url!;
    let database: Awaited<ReturnType<typeof openDatabase>> | null = null;
    let sql: postgres.Sql | null = null;
    let simulator: RunningSimulator | null = null;
    let service: RunningService | null = null;
    let stage: Stage | null = null;
    try {
      database = await openDatabase({ url, connections: { reads: 1, transactions: 1 } });
      await migrate(database);
      const db = database.db;
      sql = postgres(url, { max: 2, onnotice: () => {} });
      const { organizationId, clientId, clientSecret } = await database.transaction(async (tx) => {
        const org = await createOrganization(tx, {
          name: 'Flash Sale Running Club',
          paymentsEnabled: true,
          supportEmail: 'support@flash.example',
        });
        const { client, clientSecret } = await insertApiClient(tx, {
          organizationId: org.id,
          name: 'Flash sale partner',
          scopes: ['orders:write', 'orders:read', 'events:read'],
          allowedDomains: [],
          returnUrlDomains: [],
        });
        return { organizationId: org.id, clientId: client.id, clientSecret };
      });
      const createFlashEvent = async (label: string) => {
        const now = Date.now();
        const startsAt = now + 30 * DAY;
        const event = await insertEvent(
          db,
          organizationId,
          raceEventInput(startsAt, {
            name: `Flash Sale City Run ${label} ${now.toString(36)}`,
            organizer_name: 'Flash Sale Running Club',
            support_email: 'support@flash.example',
            ticket_types: [{ name: '10 km', price_minor: PRICE_MINOR, capacity: CAPACITY, distance_km: 10 }],
          }),
        );
        const [tt] = await ticketTypesOf(db, [event.id]);
        return { eventId: event.id, ticketTypeId: tt!.id };
      };

      simulator = await startSimulatorProcess({ timeScale: TIME_SCALE, log: ctx.log });
      const serviceEnv = {
        PAYMENT_PROVIDER: 'simulator',
        SIMULATOR_URL: simulator.url,
        PAYMENT_TIME_SCALE: String(TIME_SCALE),
      };
      service = await startService(own.serviceEnv, ctx.log, SERVICE_ENTRY, serviceEnv);
      ctx.log(
        `  simulator: node dist/src/payments/simulator/main.js (pid ${simulator.pid}) at ${simulator.url}, time scale ${TIME_SCALE}`,
      );
      ctx.log(
        `  service: node dist/src/main.js (pid ${service.pid}) at ${service.apiUrl}, SIMULATOR_URL=${simulator.url}, PAYMENT_TIME_SCALE=${TIME_SCALE}`,
      );
      stage = {
        ctx,
        sql,
        simulator,
        service,
        databaseEnv: own.serviceEnv,
        token: await fetchToken(service.apiUrl, { clientId, clientSecret }),
        insertEvent: createFlashEvent,
      };
      const rounds: RoundResult[] = [];
      for (const { label, kill } of ROUNDS) {
        ctx.log(`  round ${label}: ${BUYERS} buyers, ${CAPACITY} tickets`);
        const result = await runRound(stage, label, kill);
        ctx.log(notesFor(result).join('\n'));
        rounds.push(result);
      }
      return {
        name: this.name,
        table: [],
        notes: [
          `flash sale (PostgreSQL; ${BUYERS} buyers at once, 1 ticket type of ${CAPACITY} at UGX ${PRICE_MINOR}, ` +
            `pay with ${PAY_PHONE}, time scale ${TIME_SCALE}; own service and simulator processes):`,
          ...rounds.flatMap(notesFor),
        ],
        goals: rounds.flatMap(goalsFor),
        data: {
          run: true,
          buyers: BUYERS,
          capacity: CAPACITY,
          price_minor: PRICE_MINOR,
          time_scale: TIME_SCALE,
          rounds_planned: ROUNDS,
          rounds: rounds.map((r) => ({
            ...r,
            sampler: { ...r.sampler, every_ms: SAMPLE_EVERY_MS },
            createP50Ms: round(r.createP50Ms, 0),
            createP99Ms: round(r.createP99Ms, 0),
          })),
        },
      };
    } finally {
      // stage.service is the restarted one after round B's kill
      await (stage?.service ?? service)?.stop().catch(() => {});
      await simulator?.stop().catch(() => {});
      await sql?.end({ timeout: 5 });
      await database?.close();
      await own.drop();
    }
  },
};
