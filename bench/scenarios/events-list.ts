// GET /v1/events?limit=50 with a bearer token (50 events seeded), next to a bare node:http server
// that JSON.stringify's the identical envelope per request: same load, same run, interleaved.
import { measureInterleaved } from '../lib/load.ts';
import { BUSY_THRESHOLD } from '../lib/machine.ts';
import { startBareServer } from '../lib/processes.ts';
import type { Scenario } from '../lib/scenario.ts';
import { EVENT_COUNT } from '../lib/seed.ts';
import { round } from '../lib/stats.ts';

export const RATIO_GOAL = 0.4;

const fmtCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([g, v]) => `${g} ${v.toFixed(3)}`)
    .join(', ');
export const P99_GOAL_MS = 30;

export const eventsList: Scenario = {
  name: 'GET /v1/events (bearer, 50 events)',
  async run(ctx) {
    const token = await ctx.getToken();
    const path = `/v1/events?limit=${EVENT_COUNT}`;
    const headers = { authorization: `Bearer ${token}` };

    // The real response, once: it is what the bare server will serve.
    const res = await fetch(`${ctx.apiUrl}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${body.slice(0, 300)}`);
    const parsed = JSON.parse(body) as { data?: { events?: unknown[] } };
    const count = parsed.data?.events?.length ?? 0;
    if (count !== EVENT_COUNT)
      throw new Error(`GET ${path} returned ${count} events, expected ${EVENT_COUNT}`);
    const contentType = res.headers.get('content-type') ?? 'application/json; charset=utf-8';
    ctx.log(`  response: ${Buffer.byteLength(body)} bytes, ${count} events, content-type ${contentType}`);

    const bare = await startBareServer(body, contentType);
    try {
      const [service, baseline] = await measureInterleaved(
        [
          {
            name: 'service GET /v1/events',
            url: `${ctx.apiUrl}${path}`,
            headers,
            processes: async () => ({
              server: [ctx.servicePid],
              ...(ctx.database.backendPids && { database: await ctx.database.backendPids() }),
            }),
          },
          {
            name: 'bare node:http',
            url: `${bare.url}${path}`,
            processes: async () => ({ server: [bare.pid] }),
          },
        ],
        ctx.settings,
        ctx.log,
      );
      const ratio = round(service!.median.rps / baseline!.median.rps, 3);
      const onPostgres = ctx.database.kind === 'postgres';
      const note = onPostgres ? '' : ' [goal is for PostgreSQL]';
      return {
        name: this.name,
        table: [
          {
            scenario: 'GET /v1/events (service)',
            rps: service!.median.rps,
            p50: service!.median.p50,
            p99: service!.median.p99,
            non2xx: service!.non2xx,
            ratio,
          },
          {
            scenario: 'bare node:http (same body)',
            rps: baseline!.median.rps,
            p50: baseline!.median.p50,
            p99: baseline!.median.p99,
            non2xx: baseline!.non2xx,
            ratio: null,
          },
        ],
        notes: [
          `CPU ms per request (median): service ${fmtCpu(service!.median.cpuMsPerRequest)}; bare ${fmtCpu(baseline!.median.cpuMsPerRequest)}`,
          `response body ${Buffer.byteLength(body)} bytes; medians of ${ctx.settings.runs} runs; ` +
            `errors ${service!.errors}/${baseline!.errors}, timeouts ${service!.timeouts}/${baseline!.timeouts} (service/bare)`,
          ...(service!.disturbedRuns + baseline!.disturbedRuns > 0
            ? [
                `WARNING: ${service!.disturbedRuns + baseline!.disturbedRuns} of ${2 * ctx.settings.runs} runs started ` +
                  `while other processes used >= ${BUSY_THRESHOLD * 100}% of the CPUs; these figures are not representative`,
              ]
            : []),
        ],
        goals: [
          {
            name: `GET /v1/events req/s vs bare server${note}`,
            target: `>= ${RATIO_GOAL.toFixed(2)}x`,
            measured: `${ratio.toFixed(2)}x`,
            pass: ratio >= RATIO_GOAL,
            applies: onPostgres,
          },
          {
            name: `GET /v1/events p99 latency${note}`,
            target: `<= ${P99_GOAL_MS} ms`,
            measured: `${service!.median.p99} ms`,
            pass: service!.median.p99 <= P99_GOAL_MS,
            applies: onPostgres,
          },
          {
            name: 'GET /v1/events answers 2xx only',
            target: '0 non-2xx, 0 errors',
            measured: `${service!.non2xx} non-2xx, ${service!.errors} errors`,
            pass: service!.non2xx === 0 && service!.errors === 0,
            applies: true,
          },
        ],
        data: {
          path,
          response_bytes: Buffer.byteLength(body),
          content_type: contentType,
          ratio,
          service: service!,
          bare: baseline!,
        },
      };
    } finally {
      await bare.stop();
    }
  },
};
