// What the webhook-backlog scenario measured, as lines and goals (webhook-backlog.ts runs it).
import type { LoadFigures, RunFigures } from '../lib/load.ts';
import type { Goal } from '../lib/scenario.ts';

export const DRAIN_GOAL_PER_S = 500;
export const P99_RATIO_GOAL = 1.2;

export interface DrainResult {
  warmUp: boolean;
  /** order.paid events committed in one transaction */
  deliveries: number;
  /** distinct webhook-ids the receiver got */
  received: number;
  complete: boolean;
  duplicates: number;
  verified: number;
  verifyFailures: number;
  failureExample: string | null;
  otherTypes: number;
  /** from the commit to the first delivery received */
  firstAfterMs: number | null;
  /** from the first delivery received to the last */
  drainMs: number | null;
  /** from the commit to the last delivery received */
  endToEndMs: number | null;
  /** received / drainMs: the drain rate */
  perSecond: number | null;
  /** how long the checkout load ran (it stops when the drain is done, at the latest after 90 s) */
  loadMs: number;
  /** deliveries received while the load ran, per second of load */
  perSecondUnderLoad: number;
  checkoutRps: number;
  checkoutP99: number;
  /** the deliveries of this backlog by status, once recorded */
  statuses: Record<string, number>;
  attemptsPerDelivery: number;
  /** from the first delivery row written to the last */
  fanOutMs: number | null;
}

export interface DrainSummary {
  deliveries: number;
  ratioMedian: number;
  ratios: number[];
  rateMedian: number;
  rates: number[];
  underLoadMedian: number;
}

/**
 * What a drain took from checkout, read from a pair of runs: checkout's throughput during the drain
 * as a share of the run without, and the CPU per delivery received under load that each process
 * group spent beyond what checkout's own requests cost in the run without (µs). At 50 connections
 * p99 follows the capacity left, so these say where a ratio came from.
 */
export function drainToll(without: RunFigures, during: RunFigures, drain: DrainResult): string {
  const delivered = (drain.perSecondUnderLoad * drain.loadMs) / 1000;
  const perDelivery = (group: string) =>
    Math.round(
      (((during.cpuMsPerRequest[group] ?? 0) - (without.cpuMsPerRequest[group] ?? 0)) *
        during.requests *
        1000) /
        Math.max(1, delivered),
    );
  return (
    `checkout throughput ${(during.rps / Math.max(1, without.rps)).toFixed(2)} of without; ` +
    `the drain's CPU per delivery under load: service ${perDelivery('server')} µs, ` +
    `PostgreSQL ${perDelivery('database')} µs, receiver ${perDelivery('receiver')} µs`
  );
}

const seconds = (ms: number | null) => (ms === null ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);

/** One line per drain, each after its label. */
export function drainNotes(drains: DrainResult[], labels: string[]): string[] {
  return drains.map(
    (d, i) =>
      `  ${labels[i] ?? ''}${d.warmUp ? ' (warm-up)' : ''} ${d.received}/${d.deliveries} received in ${seconds(d.drainMs)} ` +
      `first to last = ${d.perSecond ?? 'n/a'}/s (first ${seconds(d.firstAfterMs)} after the commit, last ${seconds(d.endToEndMs)}; ` +
      `rows written over ${seconds(d.fanOutMs)}); ${d.perSecondUnderLoad}/s during ${seconds(d.loadMs)} of checkout load ` +
      `(${d.checkoutRps} req/s, p99 ${d.checkoutP99} ms); duplicates ${d.duplicates}, signatures ${d.verified} verified ` +
      `${d.verifyFailures} failed; deliveries ${JSON.stringify(d.statuses)}, ${d.attemptsPerDelivery} attempts each`,
  );
}

export function drainGoals(summary: DrainSummary, drains: DrainResult[], loads: LoadFigures[]): Goal[] {
  const fiveXx = loads.reduce(
    (n, f) =>
      n +
      f.runs.reduce(
        (m, r) => m + Object.entries(r.statusCodes).reduce((k, [c, v]) => k + (Number(c) >= 500 ? v : 0), 0),
        0,
      ),
    0,
  );
  const other = loads.reduce((n, f) => n + f.non2xx + f.errors + f.timeouts, 0);
  const spread = (values: number[]) => `${Math.min(...values)} to ${Math.max(...values)}`;
  const intact = drains.every(
    (d) =>
      d.complete &&
      d.duplicates === 0 &&
      d.verifyFailures === 0 &&
      d.verified > 0 &&
      d.otherTypes === 0 &&
      d.statuses.delivered === d.deliveries &&
      Object.keys(d.statuses).length === 1 &&
      d.attemptsPerDelivery === 1,
  );
  return [
    {
      name: `webhook backlog: ${summary.deliveries} deliveries drain rate during checkout load (median of ${drains.length})`,
      target: `>= ${DRAIN_GOAL_PER_S}/s`,
      measured: `${summary.rateMedian}/s (spread ${spread(summary.rates)})`,
      pass: drains.length > 0 && summary.rateMedian >= DRAIN_GOAL_PER_S,
      applies: true,
    },
    {
      name: 'webhook backlog: checkout-session p99 during the drain vs without (median of pair ratios)',
      target: `<= ${P99_RATIO_GOAL}x`,
      measured: `${summary.ratioMedian}x (spread ${spread(summary.ratios)})`,
      pass: drains.length > 0 && summary.ratioMedian <= P99_RATIO_GOAL,
      applies: true,
    },
    {
      name: 'webhook backlog: every delivery received once, signed, recorded delivered',
      target: 'all, no duplicate, sampled signatures verify, 1 attempt each',
      measured: drains
        .map((d) => `${d.received}/${d.deliveries} (${d.duplicates} dup, ${d.verifyFailures} bad sig)`)
        .join('; '),
      pass: drains.length > 0 && intact,
      applies: true,
    },
    {
      name: 'webhook backlog: checkout-session answers',
      target: '201 only, 0 5xx',
      measured: `${fiveXx} 5xx, ${other} non-2xx/errors/timeouts`,
      pass: fiveXx === 0 && other === 0,
      applies: true,
    },
  ];
}
