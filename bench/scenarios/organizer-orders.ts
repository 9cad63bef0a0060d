// PostgreSQL only: the organizer app at scale. 100,000 orders with their registrations
// across 20 events of one organization are written straight into the bench database by SQL
// (bench/lib/organizer-seed.ts; B6 in back-office.ts puts them all on one event instead): the
// first event gets 10,000 paid orders of two runners each (20,000 runners), the rest share the
// others. A member signs in through the app's own form, and a service of its own answers:
//   - the orders list, and searches by order code, name, e-mail and phone, and filters by event
//     and status: sequential requests, p50 and p95 (goal: p95 within 200 ms);
//   - the CSV export of all 100,000: time to the last byte (goal: within 10 s) and the service's
//     peak resident memory while it streams, against its memory before (flat memory);
//   - the start list of the 20,000-runner event (goal: within 1 s) and its sales overview.
import { readFileSync } from 'node:fs';
import { signInToApp } from '../lib/app-sign-in.ts';
import { keepAliveAgent, timedRequest } from '../lib/http.ts';
import { FIRST_NAMES, seedOrganizer, SURNAMES } from '../lib/organizer-seed.ts';
import { startService } from '../lib/processes.ts';
import { type Goal, notMeasuredHere, type Scenario } from '../lib/scenario.ts';
import { percentile, round } from '../lib/stats.ts';

const ORDERS = 100_000;
const EVENTS = 20;
const REQUESTS = 40;
const WARMUP = 5;
/** paid orders of two runners each in the first event: its start list holds 20,000 */
const BIG_EVENT_ORDERS = 10_000;

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

export const organizerOrders: Scenario = {
  name: 'organizer orders at 100,000 orders',
  async run(ctx) {
    const url = ctx.database.open.url;
    if (!url) return notMeasuredHere(this.name, 'organizer orders at scale');
    const started = Date.now();
    // the first event's orders all paid, with two runners each; the rest round-robin over the others
    const seeded = await seedOrganizer(url, {
      orders: ORDERS,
      events: EVENTS,
      eventOf: `CASE WHEN i <= ${BIG_EVENT_ORDERS} THEN 1 ELSE 2 + i % ${EVENTS - 1} END`,
      paidWhen: `i <= ${BIG_EVENT_ORDERS} OR i % 11 < 8`,
      lastPosition: `CASE WHEN n <= ${BIG_EVENT_ORDERS} THEN 1 ELSE n % 2 END`,
    });
    ctx.log(
      `  seeded ${ORDERS} orders over ${EVENTS} events in ${round((Date.now() - started) / 1000, 1)} s`,
    );
    const service = await startService(ctx.database.serviceEnv, ctx.log);
    try {
      const appUrl = service.env.APP_URL!;
      const cookie = await signInToApp(appUrl, seeded.email, seeded.password);
      const agent = keepAliveAgent();
      const get = (path: string) =>
        timedRequest(agent, `${appUrl}${path}`, { headers: { cookie }, timeoutMs: 30_000 });
      const pick = (i: number) => 1 + ((i * 7919) % ORDERS);
      const cases: [string, (i: number) => string][] = [
        ['list, first page', () => '/orders'],
        ['by order code', (i) => `/orders?q=S${String(pick(i)).padStart(7, '0')}`],
        [
          'by buyer name',
          (i) => `/orders?q=${encodeURIComponent(`${FIRST_NAMES[i % 20]} ${SURNAMES[i % 25]}`)}`,
        ],
        ['by e-mail', (i) => `/orders?q=${encodeURIComponent(`runner${pick(i)}@example.org`)}`],
        ['by phone', (i) => `/orders?q=077${String(pick(i)).padStart(7, '0')}`],
        ['event and status', (i) => `/orders?event=${seeded.eventIds[i % EVENTS]}&status=paid`],
      ];
      const figures: Record<string, { p50: number; p95: number }> = {};
      for (const [name, path] of cases) {
        for (let i = 0; i < WARMUP; i++) await get(path(i + 1000));
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const res = await get(path(i));
          if (res.status !== 200) throw new Error(`${path(i)} answered ${res.status}`);
          times.push(res.ms);
        }
        figures[name] = { p50: round(percentile(times, 50), 1), p95: round(percentile(times, 95), 1) };
      }
      const before = rssKb(service.pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssKb(service.pid))), 25);
      const csv = await get('/orders.csv');
      clearInterval(sampler);
      peak = Math.max(peak, rssKb(service.pid));
      const rows = csv.body.split('\r\n').length - 2;
      if (csv.status !== 200 || rows !== ORDERS)
        throw new Error(`the CSV answered ${csv.status} with ${rows} rows`);
      const pages: [string, string][] = [
        ['start list, 20,000 runners', `/events/${seeded.eventIds[0]}/start-list`],
        ['sales overview, 20,000 runners', `/?event=${seeded.eventIds[0]}`],
      ];
      const pageFigures: Record<string, { p50: number; p95: number }> = {};
      for (const [name, path] of pages) {
        for (let i = 0; i < WARMUP; i++) await get(path);
        const times: number[] = [];
        for (let i = 0; i < REQUESTS / 2; i++) {
          const res = await get(path);
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
          times.push(res.ms);
        }
        pageFigures[name] = { p50: round(percentile(times, 50), 1), p95: round(percentile(times, 95), 1) };
      }
      const startList = pageFigures['start list, 20,000 runners']!;
      const slowest = Math.max(...Object.values(figures).map((f) => f.p95));
      const goals: Goal[] = [
        {
          name: 'orders list and search p95 (100,000 orders)',
          target: '<= 200 ms',
          measured: `${slowest} ms (slowest case)`,
          pass: slowest <= 200,
          applies: true,
        },
        {
          name: 'CSV export of 100,000 orders',
          target: '<= 10 s',
          measured: `${round(csv.ms / 1000, 2)} s, peak RSS ${round(peak / 1024)} MB (${round(before / 1024)} MB before)`,
          pass: csv.ms <= 10_000,
          applies: true,
        },
        {
          name: 'start list of a 20,000-runner event',
          target: '<= 1 s',
          measured: `p95 ${startList.p95} ms`,
          pass: startList.p95 <= 1000,
          applies: true,
        },
      ];
      return {
        name: this.name,
        table: [],
        notes: [
          ...Object.entries(figures).map(
            ([name, f]) => `orders page, ${name}: p50 ${f.p50} ms, p95 ${f.p95} ms`,
          ),
          ...Object.entries(pageFigures).map(([name, f]) => `${name}: p50 ${f.p50} ms, p95 ${f.p95} ms`),
          `CSV of ${rows} orders: ${round(csv.ms / 1000, 2)} s, ${round(csv.body.length / 1e6, 1)} MB; service RSS ${round(before / 1024)} MB before, ${round(peak / 1024)} MB at most while streaming`,
        ],
        goals,
        data: {
          figures,
          pages: pageFigures,
          csv: { ms: round(csv.ms), rows, rss_before_kb: before, rss_peak_kb: peak },
        },
      };
    } finally {
      await service.stop();
    }
  },
};
