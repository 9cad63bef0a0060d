// POST /v1/checkout-sessions with a bearer token and a fresh Idempotency-Key on every request
// (a redirect session for one seeded event), at 50 connections, next to pgbench running the same
// SQL statements directly at the same concurrency: same run, interleaved.
//
// The reference script (bench/pgbench/checkout-session.sql) holds the statements the service
// sends for one creation, as captured on the wire: the token check and, sent with it, the event
// on sale with what session creation needs of it; then one statement, a transaction by itself,
// that claims the Idempotency-Key (advisory lock), stores the response and inserts the session
// (only with the stored response). pgbench runs it with -M prepared (the service prepares every
// statement too) and random ids, so every transaction writes new rows like the service's.
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { measureInterleaved, type ExternalRun, type LoadFigures, type Target } from '../lib/load.ts';
import { BUSY_THRESHOLD } from '../lib/machine.ts';
import { ROOT } from '../lib/paths.ts';
import { findPgbench, runPgbench } from '../lib/pgbench.ts';
import type { Goal, Scenario, TableRow } from '../lib/scenario.ts';
import { round } from '../lib/stats.ts';

/** Fixed by the requirement, whatever BENCH_CONNECTIONS says. */
export const CHECKOUT_CONNECTIONS = 50;
export const P99_GOAL_MS = 50;
export const RATIO_GOAL = 0.6;
const PGBENCH_THREADS = 2;
/** the seeded client's return URL domain (bench/lib/seed.ts) */
const RETURN_ORIGIN = 'http://127.0.0.1:5173';
const SCRIPT = join(ROOT, 'bench', 'pgbench', 'checkout-session.sql');

const fmtCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([g, v]) => `${g} ${v.toFixed(3)}`)
    .join(', ');

const count5xx = (f: LoadFigures) =>
  f.runs.reduce(
    (n, r) =>
      n + Object.entries(r.statusCodes).reduce((m, [code, c]) => m + (Number(code) >= 500 ? c : 0), 0),
    0,
  );

export const checkoutSessions: Scenario = {
  name: 'POST /v1/checkout-sessions (bearer, Idempotency-Key)',
  async run(ctx) {
    const token = await ctx.getToken();
    const eventId = ctx.partner.eventIds[0]!;
    const body = JSON.stringify({
      event_id: eventId,
      ui_mode: 'redirect',
      on_success_url: `${RETURN_ORIGIN}/thanks`,
      on_cancel_url: `${RETURN_ORIGIN}/race`,
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const url = `${ctx.apiUrl}/v1/checkout-sessions`;
    const prefix = `bench-${randomBytes(6).toString('hex')}`;
    let sent = 0;
    const freshKey = () => ({ 'idempotency-key': `${prefix}-${++sent}` });

    // Once by hand: the request is valid, and the key path is the one measured (a replay).
    const post = (key: string) =>
      fetch(url, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(10_000),
      });
    const first = await post(`${prefix}-check`);
    const firstBody = await first.text();
    if (first.status !== 201)
      throw new Error(`POST /v1/checkout-sessions answered ${first.status}: ${firstBody}`);
    const replay = await post(`${prefix}-check`);
    await replay.arrayBuffer();
    if (replay.status !== 201 || replay.headers.get('idempotent-replayed') !== 'true') {
      throw new Error(`the same Idempotency-Key was not replayed (status ${replay.status})`);
    }
    const session = (JSON.parse(firstBody) as { data: { url: string } }).data;
    const siteUrl = new URL(session.url).origin;
    ctx.log(
      `  request: ${Buffer.byteLength(body)} bytes, response ${Buffer.byteLength(firstBody)} bytes, replay checked`,
    );

    const onPostgres = ctx.database.kind === 'postgres';
    const pgbench = onPostgres ? findPgbench() : null;
    const reference = !onPostgres
      ? 'not run: pgbench needs PostgreSQL'
      : pgbench === null
        ? 'not run: pgbench not found (PATH, /usr/lib/postgresql/*/bin)'
        : null;
    // set inside the pgbench target (TypeScript cannot see that assignment)
    let pgbenchError = null as string | null;
    let pgbenchCommand = '';
    const targets: Target[] = [
      {
        name: 'service POST checkout-sessions',
        url,
        method: 'POST',
        headers,
        body,
        connections: CHECKOUT_CONNECTIONS,
        perRequestHeaders: freshKey,
        processes: async () => ({
          server: [ctx.servicePid],
          ...(ctx.database.backendPids && { database: await ctx.database.backendPids() }),
        }),
      },
    ];
    if (pgbench && ctx.database.open.url) {
      const dbUrl = ctx.database.open.url;
      const apiClient = ctx.partner.clientId;
      targets.push({
        name: 'pgbench same SQL',
        url: SCRIPT,
        async run(seconds): Promise<ExternalRun> {
          try {
            const r = await runPgbench({
              bin: pgbench,
              url: dbUrl,
              script: SCRIPT,
              clients: CHECKOUT_CONNECTIONS,
              threads: PGBENCH_THREADS,
              seconds,
              variables: {
                api_client: apiClient,
                org: ctx.partner.organizationId,
                event: eventId,
                return_origin: RETURN_ORIGIN,
                site_url: siteUrl,
                request_hash: createHash('sha256').update(body).digest('hex'),
              },
            });
            pgbenchCommand = r.command;
            return {
              rps: r.tps,
              p50: r.p50,
              p99: r.p99,
              max: r.max,
              requests: r.transactions,
              non2xx: 0,
              errors: r.failed,
              timeouts: 0,
              statusCodes: {},
              loadGeneratorCpuMs: r.cpuMs,
            };
          } catch (error) {
            pgbenchError ??= error instanceof Error ? error.message : String(error);
            return {
              rps: 0,
              p50: 0,
              p99: 0,
              max: 0,
              requests: 0,
              non2xx: 0,
              errors: 1,
              timeouts: 0,
              statusCodes: {},
              loadGeneratorCpuMs: 0,
            };
          }
        },
      });
    }
    const [service, baseline] = await measureInterleaved(targets, ctx.settings, ctx.log);
    const fiveXx = count5xx(service!);
    const ratio = baseline && !pgbenchError ? round(service!.median.rps / baseline.median.rps, 3) : null;
    const note = onPostgres ? '' : ' [goal is for PostgreSQL]';
    const referenceStatus =
      reference ?? (pgbenchError ? `failed: ${pgbenchError.split('\n').slice(-3).join(' / ')}` : null);

    const table: TableRow[] = [
      {
        scenario: `POST /v1/checkout-sessions (service, -c ${CHECKOUT_CONNECTIONS})`,
        rps: service!.median.rps,
        p50: service!.median.p50,
        p99: service!.median.p99,
        non2xx: service!.non2xx,
        ratio,
        ...(ratio === null && { ratioNote: `- (pgbench ${referenceStatus ?? 'not run'})` }),
      },
    ];
    if (baseline && !pgbenchError) {
      table.push({
        scenario: `pgbench, same SQL (-c ${CHECKOUT_CONNECTIONS} -j ${PGBENCH_THREADS})`,
        rps: baseline.median.rps,
        p50: baseline.median.p50,
        p99: baseline.median.p99,
        non2xx: baseline.errors,
        ratio: null,
      });
    }
    const disturbed = service!.disturbedRuns + (baseline?.disturbedRuns ?? 0);
    const statusCodes: Record<string, number> = {};
    for (const r of service!.runs) {
      for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
    }
    const goals: Goal[] = [
      {
        name: `POST /v1/checkout-sessions p99 latency at ${CHECKOUT_CONNECTIONS} connections${note}`,
        target: `<= ${P99_GOAL_MS} ms`,
        measured: `${service!.median.p99} ms`,
        pass: service!.median.p99 <= P99_GOAL_MS,
        applies: onPostgres,
      },
      {
        name: 'POST /v1/checkout-sessions 5xx answers',
        target: '0',
        measured: String(fiveXx),
        pass: fiveXx === 0,
        applies: true,
      },
      {
        name: 'POST /v1/checkout-sessions answers 201 only',
        target: '0 non-2xx, 0 errors',
        measured: `${service!.non2xx} non-2xx, ${service!.errors} errors, ${service!.timeouts} timeouts`,
        pass: service!.non2xx === 0 && service!.errors === 0 && service!.timeouts === 0,
        applies: true,
      },
    ];
    if (onPostgres) {
      goals.push({
        name: 'POST /v1/checkout-sessions req/s vs pgbench running the same SQL',
        target: `>= ${RATIO_GOAL.toFixed(2)}x`,
        measured: ratio === null ? `not measured (pgbench ${referenceStatus})` : `${ratio.toFixed(2)}x`,
        pass: ratio !== null && ratio >= RATIO_GOAL,
        applies: true,
      });
    }
    return {
      name: this.name,
      table,
      notes: [
        `POST /v1/checkout-sessions: ${CHECKOUT_CONNECTIONS} connections (fixed), a new Idempotency-Key per request; ` +
          `medians of ${ctx.settings.runs} runs; 5xx ${fiveXx}, errors ${service!.errors}, timeouts ${service!.timeouts}; ` +
          `status codes ${JSON.stringify(statusCodes)}`,
        `CPU ms per request (median): service ${fmtCpu(service!.median.cpuMsPerRequest)}` +
          (baseline && !pgbenchError ? `; pgbench ${fmtCpu(baseline.median.cpuMsPerRequest)}` : ''),
        referenceStatus
          ? `reference pgbench: ${referenceStatus}`
          : `reference: ${pgbenchCommand} (the same statements as one session creation)`,
        ...(disturbed > 0
          ? [
              `WARNING: ${disturbed} runs started while other processes used >= ${BUSY_THRESHOLD * 100}% of the CPUs; ` +
                'these figures are not representative',
            ]
          : []),
      ],
      goals,
      data: {
        connections: CHECKOUT_CONNECTIONS,
        request_body: JSON.parse(body) as unknown,
        ratio,
        five_xx: fiveXx,
        status_codes: statusCodes,
        service: service!,
        pgbench: baseline && !pgbenchError ? { command: pgbenchCommand, ...baseline } : null,
        reference_status: referenceStatus ?? 'run',
      },
    };
  },
};
