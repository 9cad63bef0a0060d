// POST /v1/oauth/token timing: unknown client id vs known id with a wrong secret vs the right
// secret. The three kinds are interleaved round-robin (rotating the order every round) over one
// kept-alive connection, so drift and connection effects hit all three alike; the medians must
// lie within 0.5 ms of each other, or the endpoint tells a prober which client ids exist.
import { randomBytes } from 'node:crypto';
import { keepAliveAgent, timedRequest } from '../lib/http.ts';
import type { Scenario } from '../lib/scenario.ts';
import { median, percentile, round } from '../lib/stats.ts';

export const TIMING_GOAL_MS = 0.5;
const WARMUP_ROUNDS = 100;
const DEADLINE_MS = 300_000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Same prefix and length as `like`, random base62 body. */
function lookalike(like: string): string {
  const cut = like.indexOf('_') + 1;
  let body = '';
  for (const byte of randomBytes(like.length - cut)) body += BASE62[byte % 62];
  return like.slice(0, cut) + body;
}

type Kind = 'unknown_client' | 'wrong_secret' | 'right_secret';
const KINDS: Kind[] = ['unknown_client', 'wrong_secret', 'right_secret'];
const EXPECTED: Record<Kind, number> = { unknown_client: 401, wrong_secret: 401, right_secret: 200 };

export const tokenTiming: Scenario = {
  name: 'POST /v1/oauth/token timing',
  async run(ctx) {
    const { clientId, clientSecret } = ctx.partner;
    const bodies: Record<Kind, string> = {
      unknown_client: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: lookalike(clientId),
        client_secret: clientSecret,
      }).toString(),
      wrong_secret: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: lookalike(clientSecret),
      }).toString(),
      right_secret: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    };
    const agent = keepAliveAgent();
    const url = `${ctx.apiUrl}/v1/oauth/token`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const samples: Record<Kind, number[]> = { unknown_client: [], wrong_secret: [], right_secret: [] };
    const unexpected: Record<string, number> = {};
    const deadline = Date.now() + DEADLINE_MS;
    const rounds = WARMUP_ROUNDS + ctx.settings.tokenSamples;
    try {
      for (let round_ = 0; round_ < rounds; round_++) {
        if (Date.now() > deadline)
          throw new Error(`token timing did not finish within ${DEADLINE_MS / 1000} s`);
        for (let k = 0; k < KINDS.length; k++) {
          const kind = KINDS[(round_ + k) % KINDS.length]!;
          const res = await timedRequest(agent, url, { method: 'POST', headers, body: bodies[kind] });
          if (res.status !== EXPECTED[kind]) {
            const key = `${kind}:${res.status}`;
            unexpected[key] = (unexpected[key] ?? 0) + 1;
          }
          if (round_ >= WARMUP_ROUNDS) samples[kind].push(res.ms);
        }
      }
    } finally {
      agent.destroy();
    }
    const summary = Object.fromEntries(
      KINDS.map((kind) => [
        kind,
        {
          samples: samples[kind].length,
          median_ms: round(median(samples[kind]), 3),
          p10_ms: round(percentile(samples[kind], 10), 3),
          p90_ms: round(percentile(samples[kind], 90), 3),
          p99_ms: round(percentile(samples[kind], 99), 3),
        },
      ]),
    ) as Record<Kind, { samples: number; median_ms: number; p10_ms: number; p90_ms: number; p99_ms: number }>;
    const medians = KINDS.map((k) => summary[k].median_ms);
    const spread = round(Math.max(...medians) - Math.min(...medians), 3);
    const clean = Object.keys(unexpected).length === 0;
    ctx.log(
      `  ${KINDS.map((k) => `${k} ${summary[k].median_ms.toFixed(3)} ms`).join(', ')}; max difference ${spread.toFixed(3)} ms`,
    );
    return {
      name: this.name,
      table: [],
      notes: [
        `token endpoint, ${ctx.settings.tokenSamples} sequential samples per kind (after ${WARMUP_ROUNDS} warm-up rounds), round-robin, one keep-alive connection:`,
        ...KINDS.map(
          (k) =>
            `    ${k.padEnd(15)} median ${summary[k].median_ms.toFixed(3)} ms  p10 ${summary[k].p10_ms.toFixed(3)}  p90 ${summary[k].p90_ms.toFixed(3)}  p99 ${summary[k].p99_ms.toFixed(3)}`,
        ),
        `    max difference between medians: ${spread.toFixed(3)} ms`,
        ...(clean ? [] : [`    unexpected statuses: ${JSON.stringify(unexpected)}`]),
      ],
      goals: [
        {
          name: 'token endpoint medians (unknown id / wrong secret / right secret) within',
          target: `<= ${TIMING_GOAL_MS} ms apart`,
          measured: `${spread.toFixed(3)} ms apart`,
          pass: spread <= TIMING_GOAL_MS && clean,
          applies: true,
        },
      ],
      data: {
        ...summary,
        max_difference_ms: spread,
        unexpected_statuses: unexpected,
        warmup_rounds: WARMUP_ROUNDS,
      },
    };
  },
};
