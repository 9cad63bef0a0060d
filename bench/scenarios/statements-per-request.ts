// PostgreSQL only: what one request costs in the database, counted on the wire. A second service
// process is started on the same database through a counting proxy (bench/lib/pg-proxy.ts), so
// the measured service is never slowed by it; sequential requests of each kind, after a warm-up:
//   - GET /v1/events?limit=50 with a full token: the whole request.
//   - GET /v1/events with a token lacking events:read: refused with 403 right after the token
//     check, so it counts the token check alone (goal: at most one database round trip).
//   - POST /v1/checkout-sessions with a new Idempotency-Key: the token check, the event read,
//     and the write (one statement: one round trip).
//   - POST /v1/oauth/token with the right secret.
// The API request log's writes (src/auth/request-log.ts: once a second, whatever the traffic) are
// counted apart: whether one lands in a batch is a matter of timing, and none is a request's.
import { randomBytes } from 'node:crypto';
import { fetchToken, keepAliveAgent, timedRequest } from '../lib/http.ts';
import { startCountingProxy, type WireCounts } from '../lib/pg-proxy.ts';
import { startService } from '../lib/processes.ts';
import type { Goal, Scenario } from '../lib/scenario.ts';
import { round } from '../lib/stats.ts';

const REQUESTS = 200;
const WARMUP = 50;
/** idle sample: any statements the counted instance sends on its own, subtracted per ms (expected 0) */
const IDLE_SAMPLE_MS = 3000;
/** the request log's INSERT and prune: the only statements that name its table */
const REQUEST_LOG_WRITE = (sql: string) => sql.includes('"api_request_log"');

interface PerRequest {
  statements: number;
  round_trips: number;
  parses: number;
}

/** Counts per request, net of the background rate (counts per ms) over the batch's duration. */
const perRequest = (c: WireCounts, n: number, background: WireCounts, ms: number): PerRequest => {
  const net = (total: number, idle: number) =>
    round(Math.max(0, total - (idle / IDLE_SAMPLE_MS) * ms) / n, 2);
  return {
    statements: net(c.statements, background.statements),
    round_trips: net(c.roundTrips, background.roundTrips),
    parses: net(c.parses, background.parses),
  };
};

export const statementsPerRequest: Scenario = {
  name: 'database statements and round trips per request',
  async run(ctx) {
    const url = ctx.database.open.url;
    if (!url || !ctx.settings.countStatements) {
      return {
        name: this.name,
        table: [],
        notes: [
          url
            ? 'database round trips per request: not counted (BENCH_COUNT_STATEMENTS=0)'
            : 'database round trips per request: counted on PostgreSQL only',
        ],
        goals: [],
        data: { counted: false },
      };
    }
    const target = new URL(url);
    const proxy = await startCountingProxy(
      { host: target.hostname, port: Number(target.port || 5432) },
      REQUEST_LOG_WRITE,
    );
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    // RUN_JOBS=false: the counted instance runs no background jobs (the measured service does),
    // so everything on its wire is request work.
    const service = await startService({ DATABASE_URL: proxied.toString(), RUN_JOBS: 'false' }, ctx.log);
    const agent = keepAliveAgent();
    try {
      const full = await fetchToken(service.apiUrl, ctx.partner);
      const noEventsScope = await fetchToken(service.apiUrl, ctx.partner, 'orders:read');
      const tokenBody = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: ctx.partner.clientId,
        client_secret: ctx.partner.clientSecret,
      }).toString();
      const sessionBody = JSON.stringify({
        event_id: ctx.partner.eventIds[0]!,
        on_success_url: 'http://127.0.0.1:5173/thanks',
        on_cancel_url: 'http://127.0.0.1:5173/race',
      });
      const kinds = [
        {
          key: 'events_list',
          label: 'GET /v1/events?limit=50 (200)',
          expected: 200,
          send: () =>
            timedRequest(agent, `${service.apiUrl}/v1/events?limit=50`, {
              headers: { authorization: `Bearer ${full}` },
            }),
        },
        {
          key: 'token_check',
          label: 'token check alone (403 insufficient_scope)',
          expected: 403,
          send: () =>
            timedRequest(agent, `${service.apiUrl}/v1/events?limit=50`, {
              headers: { authorization: `Bearer ${noEventsScope}` },
            }),
        },
        {
          key: 'checkout_session',
          label: 'POST /v1/checkout-sessions, new key (201)',
          expected: 201,
          send: () =>
            timedRequest(agent, `${service.apiUrl}/v1/checkout-sessions`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${full}`,
                'content-type': 'application/json',
                'idempotency-key': `count-${randomBytes(8).toString('hex')}`,
              },
              body: sessionBody,
            }),
        },
        {
          key: 'token_issue',
          label: 'POST /v1/oauth/token (200)',
          expected: 200,
          send: () =>
            timedRequest(agent, `${service.apiUrl}/v1/oauth/token`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: tokenBody,
            }),
        },
      ];
      for (const kind of kinds) for (let i = 0; i < WARMUP; i++) await kind.send();
      proxy.reset();
      await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
      const background = proxy.counts();
      const results: Record<string, PerRequest> = {};
      let logWrites = 0;
      for (const kind of kinds) {
        proxy.reset();
        const started = Date.now();
        for (let i = 0; i < REQUESTS; i++) {
          const res = await kind.send();
          if (res.status !== kind.expected) {
            throw new Error(
              `${kind.label}: expected ${kind.expected}, got ${res.status}: ${res.body.slice(0, 200)}`,
            );
          }
        }
        const counts = proxy.counts();
        results[kind.key] = perRequest(counts, REQUESTS, background, Date.now() - started);
        logWrites += counts.backgroundStatements;
      }
      const check = results.token_check!;
      const goals: Goal[] = [
        {
          name: 'token check: database round trips per request',
          target: '<= 1',
          measured: `${check.round_trips} (${check.statements} statement)`,
          pass: check.round_trips <= 1,
          applies: true,
        },
      ];
      return {
        name: this.name,
        table: [],
        notes: [
          `database work per request (wire count through a proxy, second service instance, ${REQUESTS} sequential requests each):`,
          `    (net of the service's background queries while idle: ${round((background.statements / IDLE_SAMPLE_MS) * 1000, 1)} statements/s)`,
          ...kinds.map((k) => {
            const r = results[k.key]!;
            return `    ${k.label.padEnd(44)} statements ${r.statements}  round trips ${r.round_trips}  parses ${r.parses}`;
          }),
          `    not counted above: ${logWrites} statements of the request log's writes (once a second, off the request path)`,
        ],
        goals,
        data: {
          counted: true,
          requests: REQUESTS,
          background_per_second: {
            statements: round((background.statements / IDLE_SAMPLE_MS) * 1000, 2),
            round_trips: round((background.roundTrips / IDLE_SAMPLE_MS) * 1000, 2),
          },
          request_log_statements: logWrites,
          ...results,
        },
      };
    } finally {
      agent.destroy();
      await service.stop();
      await proxy.close();
    }
  },
};
