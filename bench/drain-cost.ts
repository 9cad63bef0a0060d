// `npm run bench:drain-cost`: what one webhook delivery costs with nothing else running. PostgreSQL
// only (DATABASE_URL). A service on a database of its own drains order.paid backlogs to a local
// receiver; for each drain it prints the CPU per delivery of the service, of PostgreSQL's backends
// and of the receiver (from /proc), and the WAL per delivery by relation and record type
// (pg_walinspect). Bench B5's p99 ratio moves with what a delivery costs, but through the noise
// of a machine under load; these figures change little from drain to drain, so a change to the
// sender or the schema can be judged here first. See bench/README.md.
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import type * as DbModule from '../src/platform/db.ts';
import type * as OutboxModule from '../src/webhooks/outbox.ts';
import type * as EndpointsModule from '../src/webhooks/webhook-endpoints.ts';
import { buildService } from './lib/build.ts';
import { createBenchDatabase } from './lib/database.ts';
import { fetchToken } from './lib/http.ts';
import { importDist, SERVICE_ENTRY } from './lib/paths.ts';
import { startService, stopAllChildren } from './lib/processes.ts';
import { seedBenchData } from './lib/seed.ts';
import { loadSettings } from './lib/settings.ts';
import { startWebhookReceiver } from './lib/webhook-receiver-process.ts';
import {
  backlogSize,
  firstRealDelivery,
  WEBHOOK_SERVICE_ENV,
  writeBacklog,
} from './scenarios/webhook-backlog.ts';

const WARMUP = 1000;
/** a drain not done by then is reported as it stands */
const DRAIN_DEADLINE_MS = 120_000;
/** rows of the WAL table printed */
const WAL_ROWS = 16;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU time a process has used, in ms (utime + stime of /proc/<pid>/stat; 0 once it is gone). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return 0;
  }
}

const base = process.env.DATABASE_URL;
if (!base) {
  console.error('bench:drain-cost needs PostgreSQL: set DATABASE_URL');
  process.exit(2);
}
const settings = loadSettings();
const deliveries = backlogSize();
buildService(settings.skipBuild, console.log);
const { openDatabase } = await importDist<typeof DbModule>('platform/db.js');
const { writeOutboxEvents } = await importDist<typeof OutboxModule>('webhooks/outbox.js');
const { insertWebhookEndpoint } = await importDist<typeof EndpointsModule>('webhooks/webhook-endpoints.js');
const own = await createBenchDatabase(base);
const partner = await seedBenchData(own.open);
const database = await openDatabase({ url: own.open.url!, connections: { reads: 1, transactions: 1 } });
const sql = postgres(own.open.url!, { max: 1, onnotice: () => {} });
try {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_walinspect`;
  const { endpoint, secret } = await insertWebhookEndpoint(database.db, {
    organizationId: partner.organizationId,
    url: 'http://127.0.0.1:1/hooks', // replaced once the receiver listens
    eventTypes: ['order.paid'],
    now: new Date(),
  });
  const receiver = await startWebhookReceiver(secret, 50);
  await sql`UPDATE webhook_endpoints SET url = ${receiver.url} WHERE id = ${endpoint.id}`;
  const service = await startService(own.serviceEnv, console.log, SERVICE_ENTRY, WEBHOOK_SERVICE_ENV);
  const token = await fetchToken(service.apiUrl, partner);
  const real = await firstRealDelivery(
    { database, receiver, sql },
    service.apiUrl,
    token,
    partner.eventIds[1]!,
  );
  console.log(
    `service pid ${service.pid} (NODE_ENV=development; WEBHOOK_* settings from the environment), ` +
      `receiver pid ${receiver.pid}; the payload is a real order.paid (${JSON.stringify(real.data).length} bytes)`,
  );

  const drain = async (count: number) => {
    await receiver.reset();
    await writeBacklog(
      { database, writeOutboxEvents, organizationId: partner.organizationId, orderData: real.data },
      count,
    );
    const [start] = await sql<{ lsn: string }[]>`SELECT pg_current_wal_insert_lsn()::text AS lsn`;
    const backends = new Map((await own.backendPids!()).map((pid) => [pid, cpuMs(pid)]));
    const before = { service: cpuMs(service.pid), receiver: cpuMs(receiver.pid) };
    const started = Date.now();
    let stats = await receiver.stats();
    while (stats.unique < count && Date.now() - started < DRAIN_DEADLINE_MS) {
      await sleep(100);
      stats = await receiver.stats();
    }
    const ms = Date.now() - started;
    await sleep(1000); // the last records are written, and the WAL writer flushes them
    let pg = 0;
    for (const pid of await own.backendPids!()) pg += cpuMs(pid) - (backends.get(pid) ?? 0);
    const perDelivery = (total: number) => Math.round((total * 1000) / count);
    const [end] = await sql<{ lsn: string }[]>`SELECT pg_current_wal_flush_lsn()::text AS lsn`;
    const wal = await sql<{ what: string; records: number; bytes: number }[]>`
      WITH r AS (
        SELECT record_length, resource_manager, record_type,
          substring(block_ref from 'rel \\d+/\\d+/(\\d+)') AS node
        FROM pg_get_wal_records_info(${start!.lsn}::pg_lsn, ${end!.lsn}::pg_lsn))
      SELECT coalesce(c.relname, r.resource_manager) || ' ' || r.record_type AS what,
        count(*)::int AS records, sum(r.record_length)::int AS bytes
      FROM r LEFT JOIN pg_class c ON c.relfilenode::text = r.node
      GROUP BY 1 ORDER BY 3 DESC`;
    const walBytes = wal.reduce((sum, row) => sum + row.bytes, 0);
    console.log(
      `${stats.unique} of ${count} received in ${ms} ms (${Math.round((stats.unique / ms) * 1000)}/s); ` +
        `CPU µs per delivery: service ${perDelivery(cpuMs(service.pid) - before.service)}, ` +
        `PostgreSQL ${perDelivery(pg)}, receiver ${perDelivery(cpuMs(receiver.pid) - before.receiver)}; ` +
        `WAL ${Math.round(walBytes / count)} bytes per delivery in ${(wal.reduce((n, r) => n + r.records, 0) / count).toFixed(1)} records`,
    );
    for (const row of wal.slice(0, WAL_ROWS)) {
      console.log(
        `  ${row.what.padEnd(52)} ${(row.records / count).toFixed(2).padStart(6)} records ` +
          `${String(Math.round(row.bytes / count)).padStart(5)} bytes per delivery`,
      );
    }
  };

  console.log(`warm-up: ${WARMUP} deliveries (not a figure)`);
  await drain(WARMUP);
  for (let i = 1; i <= settings.runs; i++) {
    console.log(`drain ${i} of ${settings.runs}:`);
    await drain(deliveries);
  }
  await service.stop();
  await receiver.stop();
} finally {
  await stopAllChildren();
  await sql.end({ timeout: 5 });
  await database.close();
  await own.drop();
}
