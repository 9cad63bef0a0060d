// Overload on checkout-session creation (PostgreSQL): does the service shed what it cannot answer
// in time, quickly, and keep serving what it takes? Against a service process of its own (the
// production defaults; BENCH_SERVICE_ROOT's build when given), with closed-loop clients that each
// send POST /v1/checkout-sessions (a new Idempotency-Key each time) and the next one as soon as
// they have an answer, after a 503's Retry-After as the SDK does (BENCH_OVERLOAD_NO_BACKOFF: at
// once, the harshest clients, whose 503s then take the CPUs of a small machine from the work):
//   1. a sweep of connection counts finds the one that saturates creation: the fewest whose 201s
//      per second reach 90% of the sweep's best. Its 201 p99 is the "unloaded" figure: the most
//      load the service takes without anything waiting for capacity;
//   2. then four times those connections for BENCH_OVERLOAD_SECONDS (20), while /readyz is read
//      every 100 ms on a connection of its own.
// Goals at 4x: at least 99% of requests answered 201 or 503 within 3 s and no client time-out
// (10 s) or network error; the 201s' p99 within 3x its value at saturation; /readyz 503 while
// requests are being shed.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { fetchToken } from '../lib/http.ts';
import { BUSY_THRESHOLD, busyShare, processCpuMs } from '../lib/machine.ts';
import { ROOT, SERVICE_ENTRY, SERVICE_ROOT } from '../lib/paths.ts';
import { startService, type RunningService } from '../lib/processes.ts';
import type { Goal, Scenario, TableRow } from '../lib/scenario.ts';
import { percentile, round } from '../lib/stats.ts';

const SWEEP = [4, 8, 16, 32, 64, 128, 256];
const SWEEP_SECONDS = 5;
const WARMUP_SECONDS = 3;
/** the fewest connections whose throughput reaches this share of the best saturate creation */
const SATURATED_SHARE = 0.9;
const OVERLOAD_FACTOR = 4;
const ANSWER_WITHIN_MS = 3000;
const ANSWERED_GOAL = 0.99;
const P99_FACTOR_GOAL = 3;
/** a client gives up on an answer after this long (autocannon's default) */
const CLIENT_TIMEOUT_MS = 10_000;
const READYZ_EVERY_MS = 100;
/** after the load, how long the service may take to say ready again */
const RECOVERY_LIMIT_MS = 30_000;
/** the seeded client's return URL domain (bench/lib/seed.ts) */
const RETURN_ORIGIN = 'http://127.0.0.1:5173';

/** One request: when it was sent (ms from the run's start), how long it took, and its status. */
interface Answer {
  at: number;
  ms: number;
  /** the HTTP status; 0 = the client timed out, -1 = a network error */
  status: number;
  /** a 503's Retry-After, in ms */
  retryAfterMs?: number;
}

interface Target {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const backOff = !['1', 'true', 'yes'].includes((process.env.BENCH_OVERLOAD_NO_BACKOFF ?? '').toLowerCase());

/**
 * `connections` clients, each sending its next request once it has an answer (after a 503's
 * Retry-After), for `seconds`.
 */
async function closedLoop(target: Target, connections: number, seconds: number): Promise<Answer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const prefix = `overload-${randomBytes(6).toString('hex')}`;
  let sent = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const answers: Answer[] = [];
  const one = () =>
    new Promise<Answer>((resolveAnswer) => {
      const began = performance.now();
      const answer = (status: number, retryAfter?: string) =>
        resolveAnswer({
          at: began - start,
          ms: performance.now() - began,
          status,
          ...(retryAfter !== undefined && { retryAfterMs: Number(retryAfter) * 1000 }),
        });
      let timedOut = false;
      const req = request(
        target.url,
        {
          agent,
          method: 'POST',
          headers: {
            ...target.headers,
            'content-length': String(target.body.length),
            'idempotency-key': `${prefix}-${++sent}`,
          },
        },
        (res) => {
          res.resume();
          const retryAfter = res.headers['retry-after'];
          res.on('end', () => answer(res.statusCode ?? -1, res.statusCode === 503 ? retryAfter : undefined));
          res.on('error', () => answer(-1));
        },
      );
      req.setTimeout(CLIENT_TIMEOUT_MS, () => {
        timedOut = true;
        req.destroy();
      });
      req.on('error', () => answer(timedOut ? 0 : -1));
      req.end(target.body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const a = await one();
        answers.push(a);
        // Told to come back later, it does (as the SDK does), unless BENCH_OVERLOAD_NO_BACKOFF.
        const wait = backOff && a.retryAfterMs ? Math.min(a.retryAfterMs, end - performance.now()) : 0;
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }),
  );
  agent.destroy();
  return answers;
}

interface RunFigures {
  connections: number;
  seconds: number;
  requests: number;
  created: number;
  created_per_second: number;
  /** of the 201s, ms */
  p50: number;
  p99: number;
  max: number;
  shed: number;
  /** of the 503s, ms */
  shed_p99: number;
  timeouts: number;
  network_errors: number;
  other_statuses: Record<string, number>;
  /** share of all requests answered 201 or 503 within ANSWER_WITHIN_MS */
  answered_in_time: number;
  /** share of the 201s answered within ANSWER_WITHIN_MS */
  created_in_time: number;
  background_busy: number | null;
  cpu_ms_per_request: { server: number; load_generator: number };
}

function figures(
  answers: Answer[],
  connections: number,
  seconds: number,
  background: number | null,
  cpu: { server: number; load_generator: number },
): RunFigures {
  const created = answers.filter((a) => a.status === 201).map((a) => a.ms);
  const shed = answers.filter((a) => a.status === 503).map((a) => a.ms);
  const other: Record<string, number> = {};
  for (const a of answers) {
    if (a.status > 0 && a.status !== 201 && a.status !== 503) other[a.status] = (other[a.status] ?? 0) + 1;
  }
  const inTime = (a: Answer) => (a.status === 201 || a.status === 503) && a.ms <= ANSWER_WITHIN_MS;
  const share = (n: number, of: number) => (of === 0 ? 0 : round(n / of, 4));
  const perRequest = (ms: number) => round(ms / Math.max(1, answers.length), 3);
  return {
    connections,
    seconds,
    requests: answers.length,
    created: created.length,
    created_per_second: round(created.length / seconds, 1),
    p50: round(percentile(created, 50), 1),
    p99: round(percentile(created, 99), 1),
    max: round(created.length ? Math.max(...created) : Number.NaN, 1),
    shed: shed.length,
    shed_p99: round(percentile(shed, 99), 1),
    timeouts: answers.filter((a) => a.status === 0).length,
    network_errors: answers.filter((a) => a.status === -1).length,
    other_statuses: other,
    answered_in_time: share(answers.filter(inTime).length, answers.length),
    created_in_time: share(created.filter((ms) => ms <= ANSWER_WITHIN_MS).length, created.length),
    background_busy: background === null ? null : round(background, 3),
    cpu_ms_per_request: { server: perRequest(cpu.server), load_generator: perRequest(cpu.load_generator) },
  };
}

/** One measured closed-loop run, with the CPU the service and this process spent. */
async function measure(
  target: Target,
  service: RunningService,
  connections: number,
  seconds: number,
  during?: (start: number) => () => Promise<void>,
): Promise<{ figures: RunFigures; answers: Answer[] }> {
  await new Promise((r) => setTimeout(r, 500));
  const background = await busyShare(1000, [service.pid]);
  const serverBefore = processCpuMs([service.pid]);
  const selfBefore = process.cpuUsage();
  const stop = during?.(performance.now());
  const answers = await closedLoop(target, connections, seconds);
  await stop?.();
  const self = process.cpuUsage(selfBefore);
  const cpu = {
    server: processCpuMs([service.pid]) - serverBefore,
    load_generator: (self.user + self.system) / 1000,
  };
  return { figures: figures(answers, connections, seconds, background, cpu), answers };
}

interface ReadyzSample {
  /** ms from the overload run's start */
  at: number;
  status: number;
}

/** Reads /readyz every READYZ_EVERY_MS until stopped, on a connection of its own. */
function sampleReadyz(apiUrl: string, start: number): () => Promise<ReadyzSample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: ReadyzSample[] = [];
  let stopped = false;
  const readOnce = () =>
    new Promise<void>((done) => {
      const at = performance.now() - start;
      const req = request(`${apiUrl}/readyz`, { agent, timeout: 2000 }, (res) => {
        res.resume();
        res.on('end', () => {
          samples.push({ at, status: res.statusCode ?? -1 });
          done();
        });
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => {
        samples.push({ at, status: 0 });
        done();
      });
      req.end();
    });
  const loop = (async () => {
    while (!stopped) {
      const next = performance.now() + READYZ_EVERY_MS;
      await readOnce();
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    agent.destroy();
    return samples;
  };
}

async function readyzStatus(apiUrl: string): Promise<number> {
  try {
    const res = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** The service's log lines of a stretch of its output: errors, and the overload monitor's. */
function logLines(output: string): { errors: number; overload: string[] } {
  let errors = 0;
  const overload: string[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as { level?: number; component?: string; msg?: string };
      if ((parsed.level ?? 0) >= 50) errors++;
      if (parsed.component === 'overload') overload.push(line);
    } catch {
      // a line cut by the output's bound
    }
  }
  return { errors, overload };
}

const ms = (value: number) => `${Math.round(value)} ms`;

/** A whole-number BENCH_OVERLOAD_* setting; `fallback` when unset. */
function whole(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

export const overload: Scenario = {
  name: 'overload: POST /v1/checkout-sessions at 4x the connections that saturate it',
  async run(ctx) {
    const onPostgres = ctx.database.kind === 'postgres';
    const seconds = whole('BENCH_OVERLOAD_SECONDS', 20, 1, 300);
    const pinned = whole('BENCH_OVERLOAD_SATURATION', 0, 1, 5000);
    const pinnedOverload = whole('BENCH_OVERLOAD_CONNECTIONS', 0, 1, 10_000);
    // The service inherits the bench's environment: shedding settings given there apply to it.
    const given = Object.entries(process.env).filter(([name]) => name.startsWith('OVERLOAD_'));
    const service = await startService(ctx.database.serviceEnv, ctx.log, SERVICE_ENTRY);
    try {
      ctx.log(
        `  service: ${SERVICE_ENTRY} (pid ${service.pid})` +
          (SERVICE_ROOT === ROOT ? '' : '  [BENCH_SERVICE_ROOT: another checkout]') +
          (given.length ? `  [NOT the defaults: ${given.map(([n, v]) => `${n}=${v}`).join(' ')}]` : '') +
          (backOff ? '' : '  [clients ignore Retry-After: BENCH_OVERLOAD_NO_BACKOFF]'),
      );
      const token = await fetchToken(service.apiUrl, ctx.partner);
      const target: Target = {
        url: `${service.apiUrl}/v1/checkout-sessions`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({
            event_id: ctx.partner.eventIds[0]!,
            ui_mode: 'redirect',
            on_success_url: `${RETURN_ORIGIN}/thanks`,
            on_cancel_url: `${RETURN_ORIGIN}/race`,
          }),
        ),
      };
      const check = await closedLoop(target, 1, 0.001);
      if (check[0]?.status !== 201)
        throw new Error(`POST /v1/checkout-sessions answered ${check[0]?.status}`);

      // 1. Where creation saturates.
      await closedLoop(target, 32, WARMUP_SECONDS);
      const steps = pinned > 0 ? [pinned] : SWEEP;
      const sweep: RunFigures[] = [];
      for (const connections of steps) {
        const { figures: f } = await measure(target, service, connections, SWEEP_SECONDS);
        sweep.push(f);
        ctx.log(
          `  sweep -c ${String(connections).padStart(3)}: ${f.created_per_second.toFixed(0).padStart(5)} created/s` +
            `  p50 ${ms(f.p50)}  p99 ${ms(f.p99)}  503 ${f.shed}  time-outs ${f.timeouts}` +
            `  (background CPU ${f.background_busy === null ? '?' : `${Math.round(f.background_busy * 100)}%`})`,
        );
      }
      const best = Math.max(...sweep.map((f) => f.created_per_second));
      const saturated = sweep.find((f) => f.created_per_second >= SATURATED_SHARE * best)!;
      const connections = pinnedOverload > 0 ? pinnedOverload : saturated.connections * OVERLOAD_FACTOR;
      const loadName =
        pinnedOverload > 0 ? `-c ${connections} (BENCH_OVERLOAD_CONNECTIONS)` : `4x (-c ${connections})`;
      ctx.log(
        `  saturation: -c ${saturated.connections} (${saturated.created_per_second.toFixed(0)} created/s` +
          (pinned > 0
            ? ', pinned by BENCH_OVERLOAD_SATURATION'
            : `, >= ${SATURATED_SHARE * 100}% of the best`) +
          `), 201 p99 ${ms(saturated.p99)}; overload: -c ${connections} for ${seconds} s`,
      );

      // 2. Four times that, with /readyz read throughout.
      let readyz: ReadyzSample[] = [];
      const { figures: loaded, answers } = await measure(target, service, connections, seconds, (start) => {
        const stop = sampleReadyz(service.apiUrl, start);
        return async () => {
          readyz = await stop();
        };
      });
      const stoppedAt = performance.now();
      let recoveredMs: number | null = null;
      while (performance.now() - stoppedAt < RECOVERY_LIMIT_MS) {
        if ((await readyzStatus(service.apiUrl)) === 200) {
          recoveredMs = performance.now() - stoppedAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      // since the service started; the output is bounded (32 to 64 KB), so the oldest may be gone
      const logs = logLines(service.output());

      const shedTimes = answers.filter((a) => a.status === 503).map((a) => a.at);
      const firstShed = shedTimes.length ? Math.min(...shedTimes) : null;
      const lastShed = shedTimes.length ? Math.max(...shedTimes) : null;
      const duringShedding =
        firstShed === null ? [] : readyz.filter((s) => s.at >= firstShed && s.at <= lastShed!);
      const readyz503 = duringShedding.filter((s) => s.status === 503).length;
      const readyzCounts: Record<string, number> = {};
      for (const s of readyz) readyzCounts[s.status] = (readyzCounts[s.status] ?? 0) + 1;
      const ratio = round(loaded.p99 / saturated.p99, 2);

      ctx.log(
        `  overload -c ${connections}: ${loaded.requests} requests, ${loaded.created} created (${loaded.created_per_second.toFixed(0)}/s,` +
          ` p50 ${ms(loaded.p50)}, p99 ${ms(loaded.p99)}, max ${ms(loaded.max)}), ${loaded.shed} shed (p99 ${ms(loaded.shed_p99)}),` +
          ` ${loaded.timeouts} time-outs, ${loaded.network_errors} network errors, other ${JSON.stringify(loaded.other_statuses)}`,
      );
      ctx.log(
        `  /readyz: ${JSON.stringify(readyzCounts)} over the run; ${readyz503} of ${duringShedding.length} samples 503 while shedding` +
          (firstShed === null ? '' : ` (first 503 at ${(firstShed / 1000).toFixed(1)} s)`) +
          `; ready again ${recoveredMs === null ? `not within ${RECOVERY_LIMIT_MS / 1000} s` : `${(recoveredMs / 1000).toFixed(1)} s after the load`}`,
      );
      ctx.log(
        `  service log meanwhile: ${logs.errors} error lines, ${logs.overload.length} overload lines` +
          (logs.overload.length ? `:\n    ${logs.overload.join('\n    ')}` : ''),
      );

      const disturbed = [...sweep, loaded].some(
        (f) => f.background_busy !== null && f.background_busy >= BUSY_THRESHOLD,
      );
      const goals: Goal[] = [
        {
          name: `overload: answered within ${ANSWER_WITHIN_MS / 1000} s at ${loadName}`,
          target: `>= ${ANSWERED_GOAL * 100}% of requests 201 or 503 within ${ANSWER_WITHIN_MS / 1000} s, no time-out or network error`,
          measured:
            `${(loaded.answered_in_time * 100).toFixed(2)}% of ${loaded.requests} ` +
            `(201s within: ${(loaded.created_in_time * 100).toFixed(2)}%), ${loaded.timeouts} time-outs, ${loaded.network_errors} network errors`,
          pass:
            loaded.answered_in_time >= ANSWERED_GOAL && loaded.timeouts === 0 && loaded.network_errors === 0,
          applies: onPostgres,
        },
        {
          name: `overload: 201 p99 at ${loadName} vs at saturation`,
          target: `<= ${P99_FACTOR_GOAL}x`,
          measured: `${ms(loaded.p99)} vs ${ms(saturated.p99)} (-c ${saturated.connections}): ${ratio}x`,
          pass: ratio <= P99_FACTOR_GOAL,
          applies: onPostgres,
        },
        {
          name: 'overload: /readyz while shedding',
          target: '503 while requests are shed',
          measured:
            firstShed === null
              ? 'nothing was shed'
              : `${readyz503} of ${duringShedding.length} samples 503 while ${loaded.shed} requests were shed`,
          pass: readyz503 > 0,
          applies: onPostgres,
        },
      ];
      const row = (label: string, f: RunFigures, ratioTo: RunFigures | null): TableRow => ({
        scenario: label,
        rps: f.created_per_second,
        p50: Math.round(f.p50),
        p99: Math.round(f.p99),
        non2xx: f.requests - f.created,
        ratio: ratioTo === null ? null : round(f.created_per_second / ratioTo.created_per_second, 2),
      });
      return {
        name: overload.name,
        table: [
          row(`POST checkout-sessions at saturation (-c ${saturated.connections})`, saturated, null),
          row(`POST checkout-sessions at ${loadName}`, loaded, saturated),
        ],
        notes: [
          `overload: req/s above are 201s; at ${loadName} ${loaded.shed} shed, ` +
            `${(loaded.answered_in_time * 100).toFixed(2)}% answered 201 or 503 within 3 s` +
            (disturbed ? '  [WARNING: other processes used the CPUs; figures disturbed]' : ''),
        ],
        goals,
        data: {
          service_root: SERVICE_ROOT,
          service_overload_env: Object.fromEntries(given),
          clients_honour_retry_after: backOff,
          sweep,
          saturation: {
            connections: saturated.connections,
            pinned: pinned > 0,
            created_per_second: saturated.created_per_second,
            p99: saturated.p99,
          },
          overload: loaded,
          p99_ratio: ratio,
          readyz: {
            counts: readyzCounts,
            during_shedding: duringShedding.length,
            during_shedding_503: readyz503,
          },
          first_shed_ms: firstShed,
          recovered_ms: recoveredMs,
          service_log: { error_lines: logs.errors, overload_lines: logs.overload },
        },
      };
    } finally {
      await service.stop();
    }
  },
};
