// Hold contention: 1,000 concurrent POST /v1/orders for one free ticket type of capacity 100
// (free, so no payment provider is involved and the winners are paid at once). Exactly 100 must
// succeed and 900 get a clean 409 sold_out, with no 5xx; the database must then hold exactly 100
// paid orders for it and the event detail must show remaining 0.
//
// The 1,000 connections are opened first (in batches of 100, so the listen backlog never
// overflows and no SYN waits a second for its retry), then the 1,000 requests are written in one
// loop: what is measured is the service deciding 1,000 racing holds, not TCP set-up. Requests are
// written as bytes built beforehand and answers read by a small HTTP/1.1 reader, as autocannon
// does, so that the load generator takes as little as it can of the CPUs the service shares.
// holds/s = 100 / time from the first request written to the 100th 201; attempts/s = 1,000 /
// time until the last answer. No Idempotency-Key is sent (none is asked for).
//
// Reference (PostgreSQL): pgbench running the service's inventory UPDATE (src/events/inventory.ts)
// alone, in autocommit, on one row of a scratch copy of ticket_types, with 20 clients. The
// service can put up to WRITE_CONCURRENCY (32) transactions on that row at once, but pgbench's
// rate is higher at 20 clients than at 32 (measured on the 2-CPU machine: about 3,500 against
// 3,100 to 3,200 tps), so 20 is the harder reference. Its tps is the hot-row update rate of this
// machine.
//
// Each burst uses up its ticket type, so bench/lib/seed.ts seeds one per burst (warm-up + runs).
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import postgres from 'postgres';
import { BUSY_THRESHOLD, busyShare, processCpuMs } from '../lib/machine.ts';
import { ROOT } from '../lib/paths.ts';
import { findPgbench, runPgbench, type PgbenchFigures } from '../lib/pgbench.ts';
import type { Goal, Scenario } from '../lib/scenario.ts';
import { HOLD_CAPACITY, type HoldEvent } from '../lib/seed.ts';
import { median, round } from '../lib/stats.ts';

export const ATTEMPTS = 1000;
export const HOLD_RATIO_GOAL = 0.3;
/**
 * Bursts run and discarded before the measured ones (when BENCH_WARMUP > 0). After one, the next
 * two still came 20 to 60% slower than those after them (nine-burst runs on the 2-CPU machine):
 * the order path is hot only in bursts, and a burst calls most of its code 100 times.
 */
export const WARMUP_BURSTS = 3;
/** pgbench clients of the hot-row reference: its best rate, above its rate at the service's 32 */
export const REFERENCE_CLIENTS = 20;
const CONNECT_BATCH = 100;
const REQUEST_TIMEOUT_MS = 60_000;
const HOT_ROW_SCRIPT = join(ROOT, 'bench', 'pgbench', 'hot-row-update.sql');

interface Answer {
  status: number;
  errorCode: string | null;
  orderStatus: string | null;
  /** ms after the first request was written */
  at: number;
  error: string | null;
}

export interface BurstFigures {
  created: number;
  createdPaid: number;
  soldOut: number;
  other4xx: number;
  fiveXx: number;
  networkErrors: number;
  statusCodes: Record<string, number>;
  /** ms from the first request written to the first 201 */
  msToFirstHold: number;
  /** ms from the first request written to the 100th 201 */
  msToLastHold: number;
  /** ms from the first request written to the last answer */
  msTotal: number;
  holdsPerSecond: number;
  attemptsPerSecond: number;
  /** CPU ms per attempt, by process group */
  cpuMsPerAttempt: Record<string, number>;
  backgroundBusy: number | null;
  check: DatabaseCheck;
}

interface DatabaseCheck {
  /** how it was checked: the database directly (PostgreSQL) or the API (PGlite) */
  via: 'database' | 'api';
  paidOrders: number;
  /** orders of the event in any status */
  orders: number;
  registrations: number;
  paidCount: number | null;
  heldCount: number | null;
  remaining: number;
  ok: boolean;
}

function openSockets(host: string, port: number, n: number): Promise<Socket[]> {
  return (async () => {
    const sockets: Socket[] = [];
    while (sockets.length < n) {
      const batch = Math.min(CONNECT_BATCH, n - sockets.length);
      sockets.push(
        ...(await Promise.all(
          Array.from(
            { length: batch },
            () =>
              new Promise<Socket>((resolveSocket, reject) => {
                const socket = connect({ host, port, noDelay: true });
                socket.once('connect', () => resolveSocket(socket));
                socket.once('error', reject);
              }),
          ),
        )),
      );
    }
    return sockets;
  })();
}

/** One request as bytes, built before the burst (as autocannon does): writing it costs the load
 * generator a socket write, not an HTTP client's request object, on the CPUs the service shares. */
function requestBytes(target: URL, headers: Record<string, string>, body: string): Buffer {
  const head = [
    'POST /v1/orders HTTP/1.1',
    `host: ${target.host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** The body of a chunked response (RFC 9112 section 7.1), or null while it is incomplete. */
function dechunk(raw: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd === -1) return null;
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    if (raw.length < lineEnd + 2 + size + 2) return null;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Status and body of an HTTP/1.1 response read so far, or null while it is incomplete. */
function parseResponse(raw: Buffer, ended: boolean): { status: number; body: Buffer } | null {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const head = raw.subarray(0, headEnd).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const rest = raw.subarray(headEnd + 4);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const n = Number(length[1]);
    return rest.length >= n ? { status, body: rest.subarray(0, n) } : null;
  }
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    const body = dechunk(rest);
    return body ? { status, body } : null;
  }
  return ended ? { status, body: rest } : null;
}

/** Sends one prepared request on a connected socket; resolves with the answer (never rejects). */
function send(socket: Socket, bytes: Buffer, started: bigint): Promise<Answer> {
  return new Promise((resolveAnswer) => {
    const at = () => Number(process.hrtime.bigint() - started) / 1e6;
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolveAnswer(answer);
    };
    const failed = (error: string) =>
      done({ status: 0, errorCode: null, orderStatus: null, at: at(), error });
    const read = (ended: boolean) => {
      const response = parseResponse(Buffer.concat(chunks), ended);
      if (!response) {
        if (ended) failed('connection closed before a whole response');
        return;
      }
      let errorCode: string | null = null;
      let orderStatus: string | null = null;
      try {
        const parsed = JSON.parse(response.body.toString('utf8')) as {
          error_code?: string;
          data?: { status?: string };
        };
        errorCode = parsed.error_code ?? null;
        orderStatus = parsed.data?.status ?? null;
      } catch {
        // not JSON: counted by status only
      }
      done({ status: response.status, errorCode, orderStatus, at: at(), error: null });
    };
    const timer = setTimeout(() => failed('timed out'), REQUEST_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      read(false);
    });
    socket.once('end', () => read(true));
    socket.once('close', () => read(true));
    socket.once('error', (e) => failed(e.message));
    socket.write(bytes);
  });
}

async function apiJson<T>(url: string, token: string): Promise<T> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** remaining from GET /v1/events/{id}, and (PGlite) the orders from GET /v1/orders?event_id. */
async function checkThroughApi(apiUrl: string, token: string, hold: HoldEvent) {
  const detail = await apiJson<{
    data: { ticket_types: Array<{ ticket_type_id: string; remaining: number }> };
  }>(`${apiUrl}/v1/events/${hold.eventId}`, token);
  const remaining = detail.data.ticket_types.find((t) => t.ticket_type_id === hold.ticketTypeId)?.remaining;
  if (remaining === undefined)
    throw new Error(`ticket type ${hold.ticketTypeId} missing from the event detail`);
  let orders = 0;
  let paidOrders = 0;
  let registrations = 0;
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ event_id: hold.eventId, limit: '50', ...(cursor && { cursor }) });
    const page: {
      data: {
        orders: Array<{ status: string; registrations: Array<{ ticket_type_id: string }> }>;
        next_cursor: string | null;
      };
    } = await apiJson(`${apiUrl}/v1/orders?${query.toString()}`, token);
    for (const o of page.data.orders) {
      orders++;
      if (o.status === 'paid') paidOrders++;
      registrations += o.registrations.filter((r) => r.ticket_type_id === hold.ticketTypeId).length;
    }
    cursor = page.data.next_cursor;
  } while (cursor);
  return { remaining, orders, paidOrders, registrations };
}

async function checkDatabase(
  sql: postgres.Sql | null,
  apiUrl: string,
  token: string,
  hold: HoldEvent,
): Promise<DatabaseCheck> {
  const api = await checkThroughApi(apiUrl, token, hold);
  if (!sql) {
    return {
      via: 'api',
      paidOrders: api.paidOrders,
      orders: api.orders,
      registrations: api.registrations,
      paidCount: null,
      heldCount: null,
      remaining: api.remaining,
      ok:
        api.paidOrders === HOLD_CAPACITY &&
        api.orders === HOLD_CAPACITY &&
        api.registrations === HOLD_CAPACITY &&
        api.remaining === 0,
    };
  }
  const [orders] = await sql<{ all: number; paid: number }[]>`
    SELECT count(*)::int AS all, count(*) FILTER (WHERE status = 'paid')::int AS paid
    FROM orders WHERE event_id = ${hold.eventId}`;
  const [regs] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM registrations
    WHERE ticket_type_id = ${hold.ticketTypeId} AND status = 'confirmed'`;
  const [tt] = await sql<{ paid_count: number; held_count: number }[]>`
    SELECT paid_count, held_count FROM ticket_types WHERE id = ${hold.ticketTypeId}`;
  return {
    via: 'database',
    paidOrders: orders!.paid,
    orders: orders!.all,
    registrations: regs!.n,
    paidCount: tt!.paid_count,
    heldCount: tt!.held_count,
    remaining: api.remaining,
    ok:
      orders!.paid === HOLD_CAPACITY &&
      orders!.all === HOLD_CAPACITY &&
      regs!.n === HOLD_CAPACITY &&
      tt!.paid_count === HOLD_CAPACITY &&
      tt!.held_count === 0 &&
      api.remaining === 0,
  };
}

async function burst(options: {
  apiUrl: string;
  token: string;
  hold: HoldEvent;
  processes: () => Promise<Record<string, number[]>>;
  sql: postgres.Sql | null;
  backgroundBusy: number | null;
}): Promise<BurstFigures> {
  const target = new URL(options.apiUrl);
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  const requests = Array.from({ length: ATTEMPTS }, (_, i) =>
    requestBytes(
      target,
      headers,
      JSON.stringify({
        event_id: options.hold.eventId,
        items: [{ ticket_type_id: options.hold.ticketTypeId, participant_name: `Runner ${i + 1}` }],
        buyer: { name: `Buyer ${i + 1}`, email: `runner${i + 1}@bench.example`, phone: '0772123456' },
      }),
    ),
  );
  const sockets = await openSockets(target.hostname, Number(target.port), ATTEMPTS);
  const groups = await options.processes();
  const before = Object.fromEntries(Object.entries(groups).map(([g, pids]) => [g, processCpuMs(pids)]));
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const answers = await Promise.all(sockets.map((s, i) => send(s, requests[i]!, started)));
  const self = process.cpuUsage(selfBefore);
  const cpuMsPerAttempt: Record<string, number> = {};
  for (const [g, pids] of Object.entries(groups)) {
    cpuMsPerAttempt[g] = round((processCpuMs(pids) - before[g]!) / ATTEMPTS, 3);
  }
  cpuMsPerAttempt.load_generator = round((self.user + self.system) / 1000 / ATTEMPTS, 3);

  const statusCodes: Record<string, number> = {};
  for (const a of answers) statusCodes[String(a.status)] = (statusCodes[String(a.status)] ?? 0) + 1;
  const created = answers.filter((a) => a.status === 201);
  const successTimes = created.map((a) => a.at).sort((a, b) => a - b);
  const msToLastHold = successTimes.length > 0 ? successTimes[successTimes.length - 1]! : Number.NaN;
  const msTotal = Math.max(...answers.map((a) => a.at));
  return {
    created: created.length,
    createdPaid: created.filter((a) => a.orderStatus === 'paid').length,
    soldOut: answers.filter((a) => a.status === 409 && a.errorCode === 'sold_out').length,
    other4xx: answers.filter((a) => a.status >= 400 && a.status < 500 && a.errorCode !== 'sold_out').length,
    fiveXx: answers.filter((a) => a.status >= 500).length,
    networkErrors: answers.filter((a) => a.error !== null).length,
    statusCodes,
    msToFirstHold: round(successTimes[0] ?? Number.NaN, 1),
    msToLastHold: round(msToLastHold, 1),
    msTotal: round(msTotal, 1),
    holdsPerSecond: round((created.length / msToLastHold) * 1000, 1),
    attemptsPerSecond: round((ATTEMPTS / msTotal) * 1000, 1),
    cpuMsPerAttempt,
    backgroundBusy: options.backgroundBusy === null ? null : round(options.backgroundBusy, 3),
    check: await checkDatabase(options.sql, options.apiUrl, options.token, options.hold),
  };
}

const describe = (b: BurstFigures) =>
  `201 ${b.created} (paid ${b.createdPaid}), sold_out ${b.soldOut}, other 4xx ${b.other4xx}, 5xx ${b.fiveXx}, ` +
  `network errors ${b.networkErrors}; 1st hold after ${b.msToFirstHold} ms, 100th after ${b.msToLastHold} ms = ${b.holdsPerSecond} holds/s; ` +
  `all answered after ${b.msTotal} ms = ${b.attemptsPerSecond} attempts/s; ` +
  `CPU ms/attempt ${Object.entries(b.cpuMsPerAttempt)
    .map(([g, v]) => `${g} ${v.toFixed(3)}`)
    .join(', ')}; ` +
  `check (${b.check.via}): ${b.check.paidOrders} paid orders of ${b.check.orders}, ${b.check.registrations} registrations, remaining ${b.check.remaining}` +
  (b.check.paidCount === null ? '' : `, paid_count ${b.check.paidCount} held_count ${b.check.heldCount}`) +
  (b.backgroundBusy === null ? '' : `  (background CPU before run ${(b.backgroundBusy * 100).toFixed(0)}%)`);

export const holdContention: Scenario = {
  name: 'hold contention: 1,000 concurrent POST /v1/orders for 100 free tickets',
  async run(ctx) {
    const holds = ctx.partner.holdEvents;
    const needed = ctx.settings.runs + WARMUP_BURSTS;
    if (holds.length < needed) {
      throw new Error(
        `hold contention needs ${needed} seeded ticket types (warm-up + runs), got ${holds.length}`,
      );
    }
    const token = await ctx.getToken();
    const onPostgres = ctx.database.kind === 'postgres';
    const url = ctx.database.open.url;
    const sql = url ? postgres(url, { max: 1, onnotice: () => {} }) : null;
    const pgbench = onPostgres ? findPgbench() : null;
    const processes = async () => ({
      server: [ctx.servicePid],
      ...(ctx.database.backendPids && { database: await ctx.database.backendPids() }),
    });
    let reference: string | null = !onPostgres
      ? 'not run: pgbench needs PostgreSQL'
      : pgbench === null
        ? 'not run: pgbench not found (PATH, /usr/lib/postgresql/*/bin)'
        : null;
    let hotRowCommand = '';
    try {
      // The scratch hot row: a copy of a fresh ticket type (same columns, CHECK and key) with room
      // for every update pgbench can make.
      if (sql && pgbench) {
        await sql`CREATE TABLE bench_hot_row (LIKE ticket_types INCLUDING ALL)`;
        await sql`INSERT INTO bench_hot_row SELECT * FROM ticket_types WHERE id = ${holds[0]!.ticketTypeId}`;
        await sql`UPDATE bench_hot_row SET capacity = 2000000000, held_count = 0, paid_count = 0`;
      }
      const hotRow = async (seconds: number): Promise<PgbenchFigures | null> => {
        if (!sql || !pgbench || reference) return null;
        try {
          const r = await runPgbench({
            bin: pgbench,
            url: url!,
            script: HOT_ROW_SCRIPT,
            clients: REFERENCE_CLIENTS,
            threads: 2,
            seconds,
            variables: { tt: holds[0]!.ticketTypeId },
          });
          hotRowCommand = r.command;
          return r;
        } catch (error) {
          reference = `failed: ${(error instanceof Error ? error.message : String(error)).split('\n').slice(-3).join(' / ')}`;
          return null;
        }
      };

      const ownPids = async () => Object.values(await processes()).flat();
      if (ctx.settings.warmupSeconds > 0) {
        for (let i = 0; i < WARMUP_BURSTS; i++) {
          const w = await burst({
            apiUrl: ctx.apiUrl,
            token,
            hold: holds[ctx.settings.runs + i]!,
            processes,
            sql,
            backgroundBusy: null,
          });
          ctx.log(
            `  warm-up ${i + 1}/${WARMUP_BURSTS} burst: ${w.holdsPerSecond} holds/s, ${w.attemptsPerSecond} attempts/s (discarded)`,
          );
        }
        const p = await hotRow(ctx.settings.warmupSeconds);
        if (p) ctx.log(`  warm-up  pgbench hot-row update: ${p.tps.toFixed(0)} tps (discarded)`);
      }
      const bursts: BurstFigures[] = [];
      const hotRows: PgbenchFigures[] = [];
      for (let i = 0; i < ctx.settings.runs; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const background = await busyShare(1000, await ownPids());
        const b = await burst({
          apiUrl: ctx.apiUrl,
          token,
          hold: holds[i]!,
          processes,
          sql,
          backgroundBusy: background,
        });
        bursts.push(b);
        ctx.log(`  run ${i + 1}/${ctx.settings.runs}  burst: ${describe(b)}`);
        const p = await hotRow(ctx.settings.durationSeconds);
        if (p) {
          hotRows.push(p);
          ctx.log(
            `  run ${i + 1}/${ctx.settings.runs}  pgbench hot-row update -c ${REFERENCE_CLIENTS}: ${p.tps.toFixed(0)} tps, ` +
              `p50 ${p.p50} ms, p99 ${p.p99} ms, failed ${p.failed}`,
          );
        }
      }

      const holdsPerSecond = round(median(bursts.map((b) => b.holdsPerSecond)), 1);
      const attemptsPerSecond = round(median(bursts.map((b) => b.attemptsPerSecond)), 1);
      const hotRowTps = hotRows.length > 0 && !reference ? round(median(hotRows.map((p) => p.tps)), 1) : null;
      const ratio = hotRowTps ? round(holdsPerSecond / hotRowTps, 3) : null;
      const sum = (f: (b: BurstFigures) => number) => bursts.reduce((n, b) => n + f(b), 0);
      const exact = bursts.every((b) => b.created === HOLD_CAPACITY && b.createdPaid === HOLD_CAPACITY);
      const soldOutExact = bursts.every((b) => b.soldOut === ATTEMPTS - HOLD_CAPACITY);
      const checked = bursts.every((b) => b.check.ok);
      const note = onPostgres ? '' : ' [goal is for PostgreSQL]';
      const per = (f: (b: BurstFigures) => number) => bursts.map(f).join(' / ');
      const disturbed = bursts.filter(
        (b) => b.backgroundBusy !== null && b.backgroundBusy >= BUSY_THRESHOLD,
      ).length;

      const goals: Goal[] = [
        {
          name: `hold contention: orders created (paid at once), per burst`,
          target: `exactly ${HOLD_CAPACITY}`,
          measured: `${per((b) => b.created)} (paid ${per((b) => b.createdPaid)})`,
          pass: exact,
          applies: true,
        },
        {
          name: 'hold contention: 409 sold_out, per burst',
          target: `exactly ${ATTEMPTS - HOLD_CAPACITY}`,
          measured: `${per((b) => b.soldOut)} (other 4xx ${sum((b) => b.other4xx)})`,
          pass: soldOutExact,
          applies: true,
        },
        {
          name: 'hold contention: 5xx and network errors',
          target: '0',
          measured: `${sum((b) => b.fiveXx)} 5xx, ${sum((b) => b.networkErrors)} network errors`,
          pass: sum((b) => b.fiveXx) === 0 && sum((b) => b.networkErrors) === 0,
          applies: true,
        },
        {
          name: `hold contention: ${HOLD_CAPACITY} paid orders stored, remaining 0 (${bursts[0]?.check.via ?? 'database'})`,
          target: 'every burst',
          measured: checked
            ? 'yes'
            : per((b) => b.check.paidOrders) + ' paid orders, remaining ' + per((b) => b.check.remaining),
          pass: checked,
          applies: true,
        },
      ];
      if (onPostgres) {
        goals.push({
          name: `hold contention: holds/s vs pgbench single-hot-row update rate (-c ${REFERENCE_CLIENTS})${note}`,
          target: `>= ${HOLD_RATIO_GOAL.toFixed(2)}x`,
          measured:
            ratio === null
              ? `not measured (pgbench ${reference ?? 'not run'})`
              : `${ratio.toFixed(2)}x (${holdsPerSecond} holds/s vs ${hotRowTps} updates/s)`,
          pass: ratio !== null && ratio >= HOLD_RATIO_GOAL,
          applies: true,
        });
      }
      return {
        name: this.name,
        table: [],
        notes: [
          `hold contention: ${ATTEMPTS} concurrent POST /v1/orders for one free ticket type of capacity ${HOLD_CAPACITY}, ` +
            `${ctx.settings.runs} bursts (a fresh ticket type each) after ${ctx.settings.warmupSeconds > 0 ? WARMUP_BURSTS : 0} discarded, medians:`,
          `    holds/s ${holdsPerSecond} (100th 201 after ${per((b) => b.msToLastHold)} ms), ` +
            `attempts resolved/s ${attemptsPerSecond} (last answer after ${per((b) => b.msTotal)} ms)`,
          hotRowTps === null
            ? `    reference pgbench hot-row update: ${reference ?? 'not run'}`
            : `    reference: ${hotRowCommand}: ${hotRowTps} updates/s (median of ${hotRows.length}; ` +
              `-c ${REFERENCE_CLIENTS}: pgbench's hot-row rate is higher there than at the service's 32 transactions at once); ` +
              `holds/s / hot-row rate = ${ratio!.toFixed(2)}x`,
          `    statuses per burst: ${bursts.map((b) => JSON.stringify(b.statusCodes)).join(' ')}`,
          ...(disturbed > 0
            ? [
                `WARNING: ${disturbed} bursts started while other processes used >= ${BUSY_THRESHOLD * 100}% of the CPUs; ` +
                  'these figures are not representative',
              ]
            : []),
        ],
        goals,
        data: {
          attempts: ATTEMPTS,
          capacity: HOLD_CAPACITY,
          holds_per_second: holdsPerSecond,
          attempts_per_second: attemptsPerSecond,
          hot_row_updates_per_second: hotRowTps,
          ratio,
          reference_status: reference ?? 'run',
          reference_clients: REFERENCE_CLIENTS,
          bursts,
          pgbench_hot_row: hotRows.length > 0 ? { command: hotRowCommand, runs: hotRows } : null,
        },
      };
    } finally {
      if (sql) {
        await sql`DROP TABLE IF EXISTS bench_hot_row`.catch(() => {});
        await sql.end({ timeout: 5 });
      }
    }
  },
};
