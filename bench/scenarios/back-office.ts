// B6, PostgreSQL only: the organizer app's back office with 100,000 orders (150,000 runners) on
// ONE event, the shape of a big city race. Orders are written straight into the bench database
// by SQL (bench/lib/organizer-seed.ts). A member signs in through the app's own form, and a
// service of its own answers:
//   - the orders list, the event filter, a name search (a surname: one order in 25), a phone
//     search, and the event filter with the name search, then a full name (one order in 500)
//     with and without the event filter and a text every order matches: 50 sequential requests
//     each after a warm-up of 10, p50 and p95 (goal: p95 within 200 ms);
//   - the CSV and the Excel export of all 100,000: time to the last byte (goal: within 10 s)
//     and the service's peak resident memory while it streams against its memory before.
import { readFileSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import { FIRST_NAMES, seedOrganizer, SURNAMES } from '../lib/organizer-seed.ts';
import { keepAliveAgent, timedRequest } from '../lib/http.ts';
import { signInToApp } from '../lib/app-sign-in.ts';
import { startService } from '../lib/processes.ts';
import { type Goal, notMeasuredHere, type Scenario } from '../lib/scenario.ts';
import { percentile, round } from '../lib/stats.ts';

const ORDERS = 100_000;
const EVENTS = 20;
const REQUESTS = 50;
const WARMUP = 10;
const GOAL_MS = 200;
const EXPORT_GOAL_MS = 10_000;

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

interface Download {
  status: number;
  ms: number;
  bytes: number;
  /** CRLF line ends seen: a CSV's rows plus its header */
  lines: number;
  rssBeforeKb: number;
  rssPeakKb: number;
  /** the peak over the download's first half: a peak no higher later means memory does not grow with rows */
  rssFirstHalfPeakKb: number;
}

/** A download read and dropped as it arrives (the bench keeps none of it), timed to its last byte. */
function download(agent: Agent, url: string, cookie: string, pid: number): Promise<Download> {
  return new Promise((resolve, reject) => {
    const rssBeforeKb = rssKb(pid);
    let rssPeakKb = rssBeforeKb;
    const samples: [number, number][] = [];
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const sampler = setInterval(() => {
      const kb = rssKb(pid);
      samples.push([elapsed(), kb]);
      rssPeakKb = Math.max(rssPeakKb, kb);
    }, 25);
    let bytes = 0;
    let lines = 0;
    const req = request(url, { agent, headers: { cookie }, timeout: 60_000 }, (res) => {
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      });
      res.on('end', () => {
        clearInterval(sampler);
        rssPeakKb = Math.max(rssPeakKb, rssKb(pid));
        const ms = elapsed();
        const rssFirstHalfPeakKb = Math.max(
          rssBeforeKb,
          ...samples.filter(([at]) => at <= ms / 2).map(([, kb]) => kb),
        );
        resolve({
          status: res.statusCode ?? 0,
          ms,
          bytes,
          lines,
          rssBeforeKb,
          rssPeakKb,
          rssFirstHalfPeakKb,
        });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`request timed out: ${url}`)));
    req.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    req.end();
  });
}

export const backOffice: Scenario = {
  name: 'B6 back office: 100,000 orders on one event',
  async run(ctx) {
    const url = ctx.database.open.url;
    if (!url) return notMeasuredHere(this.name, 'B6 back office');
    const started = Date.now();
    const seeded = await seedOrganizer(url, {
      orders: ORDERS,
      events: EVENTS,
      eventOf: '1',
      paidWhen: 'i % 11 < 8',
      lastPosition: 'n % 2',
    });
    ctx.log(`  seeded ${ORDERS} orders on one event in ${round((Date.now() - started) / 1000, 1)} s`);
    const service = await startService(ctx.database.serviceEnv, ctx.log);
    try {
      const appUrl = service.env.APP_URL!;
      const cookie = await signInToApp(appUrl, seeded.email, seeded.password);
      const agent = keepAliveAgent();
      const get = (path: string) =>
        timedRequest(agent, `${appUrl}${path}`, { headers: { cookie }, timeoutMs: 30_000 });
      const event = seeded.eventIds[0]!;
      const surname = (i: number) => SURNAMES[i % SURNAMES.length]!;
      const fullName = (i: number) => `${FIRST_NAMES[i % FIRST_NAMES.length]} ${surname(i)}`;
      const pick = (i: number) => 1 + ((i * 7919) % ORDERS);
      const cases: [string, (i: number) => string][] = [
        ['list, first page', () => '/orders'],
        ['event filter', () => `/orders?event=${event}`],
        ['name search', (i) => `/orders?q=${surname(i)}`],
        ['phone search', (i) => `/orders?q=077${String(pick(i)).padStart(7, '0')}`],
        ['event filter + name search', (i) => `/orders?event=${event}&q=${surname(i)}`],
        // a rare text (about 500 matching orders, runners' names included) and one that every
        // order matches: the two ways the search answers
        ['full name search', (i) => `/orders?q=${encodeURIComponent(fullName(i))}`],
        [
          'event filter + full name search',
          (i) => `/orders?event=${event}&q=${encodeURIComponent(fullName(i))}`,
        ],
        ['search matching every order', () => '/orders?q=example.org'],
      ];
      const figures: Record<string, { p50: number; p95: number; max: number }> = {};
      for (const [name, path] of cases) {
        for (let i = 0; i < WARMUP; i++) await get(path(i + 1000));
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const res = await get(path(i));
          if (res.status !== 200) throw new Error(`${path(i)} answered ${res.status}`);
          times.push(res.ms);
        }
        figures[name] = {
          p50: round(percentile(times, 50), 1),
          p95: round(percentile(times, 95), 1),
          max: round(Math.max(...times), 1),
        };
      }
      const exports: Record<string, Download> = {};
      for (const file of ['csv', 'xlsx'] as const) {
        const result = await download(agent, `${appUrl}/orders.${file}`, cookie, service.pid);
        if (file === 'csv' && (result.status !== 200 || result.lines - 1 !== ORDERS))
          throw new Error(`the CSV answered ${result.status} with ${result.lines - 1} rows`);
        if (file === 'xlsx' && result.status === 404) continue; // before the Excel export existed
        if (result.status !== 200) throw new Error(`the ${file} export answered ${result.status}`);
        exports[file] = result;
      }
      const goals: Goal[] = cases.map(([name]) => ({
        name: `B6 orders page, ${name} p95`,
        target: `<= ${GOAL_MS} ms`,
        measured: `${figures[name]!.p95} ms`,
        pass: figures[name]!.p95 <= GOAL_MS,
        applies: true,
      }));
      for (const file of ['csv', 'xlsx'] as const) {
        const d = exports[file];
        goals.push({
          name: `B6 ${file === 'csv' ? 'CSV' : 'Excel'} export of ${ORDERS} orders`,
          target: `<= ${EXPORT_GOAL_MS / 1000} s`,
          measured: d
            ? `${round(d.ms / 1000, 2)} s, peak RSS ${round(d.rssPeakKb / 1024)} MB (${round(d.rssBeforeKb / 1024)} MB before)`
            : 'no such export',
          pass: d !== undefined && d.ms <= EXPORT_GOAL_MS,
          applies: true,
        });
      }
      return {
        name: this.name,
        table: [],
        notes: [
          ...Object.entries(figures).map(
            ([name, f]) => `orders page, ${name}: p50 ${f.p50} ms, p95 ${f.p95} ms, max ${f.max} ms`,
          ),
          ...Object.entries(exports).map(
            ([file, d]) =>
              `${file} of ${ORDERS} orders: ${round(d.ms / 1000, 2)} s, ${round(d.bytes / 1e6, 1)} MB; ` +
              `service RSS ${round(d.rssBeforeKb / 1024)} MB before, ${round(d.rssPeakKb / 1024)} MB at most while streaming ` +
              `(${round(d.rssFirstHalfPeakKb / 1024)} MB at most in its first half)`,
          ),
        ],
        goals,
        data: { figures, exports },
      };
    } finally {
      await service.stop();
    }
  },
};
