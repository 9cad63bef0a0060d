// The upgrade rehearsal (docs/operations.md): the previous release, built in another checkout,
// serves a PostgreSQL database holding 100,000 orders while partners create orders through it;
// this checkout's `db migrate` runs meanwhile; then this release starts on the migrated database.
// Reports how order creation on the old release fared before, during and after the migration.
//
//   node bench/upgrade-rehearsal.ts <previous release checkout, built>
//   (DATABASE_URL: the server to create a scratch database on; default the local test server)
//
// Both checkouts must be built (npm run build). Sends traffic to loopback only.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { createBenchDatabase } from './lib/database.ts';
import { fetchToken } from './lib/http.ts';
import { ROOT, SERVICE_ENTRY } from './lib/paths.ts';
import { startService, stopAllChildren, type RunningService } from './lib/processes.ts';
import { percentile } from './lib/stats.ts';

const ORDERS = 100_000;
const WRITERS = 8;
const BEFORE_MS = 8000;
const AFTER_MS = 8000;

const previous = resolve(process.argv[2] ?? '');
if (!process.argv[2]) {
  console.error('usage: node bench/upgrade-rehearsal.ts <previous release checkout, built>');
  process.exit(2);
}
const log = (line: string) => console.log(line);

async function admin(service: RunningService, path: string, body: unknown) {
  const res = await fetch(`${service.env.APP_URL}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.env.ADMIN_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** `ticketing db migrate` of a checkout, as a release step runs it; its output and time. */
function migrateWith(root: string, url: string): Promise<{ code: number; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'dist/src/cli/main.js'), 'db', 'migrate'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', (code) => done({ code: code ?? 1, output, ms: performance.now() - started }));
  });
}

/** One free order through the partner API; resolves to its status (-1: no answer). */
async function createOrder(
  apiUrl: string,
  token: string,
  order: { eventId: string; ticket: string; name: string },
) {
  try {
    const res = await fetch(`${apiUrl}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        event_id: order.eventId,
        items: [{ ticket_type_id: order.ticket, participant_name: order.name }],
        buyer: { name: order.name, email: 'runner@example.org', phone: '0772123456' },
      }),
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return -1;
  }
}

interface Creation {
  at: number;
  ms: number;
  status: number;
}

async function main() {
  const database = await createBenchDatabase(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  );
  const url = database.serviceEnv.DATABASE_URL!;
  try {
    const first = await migrateWith(previous, url);
    if (first.code !== 0) throw new Error(`the previous release's db migrate failed:\n${first.output}`);
    const old = await startService(database.serviceEnv, log, join(previous, 'dist/src/main.js'));
    log(`previous release ${previous} serving on ${old.apiUrl}`);
    const org = await admin(old, '/organizations', { name: 'Rehearsal Club', payments_enabled: true });
    const now = Date.now();
    const day = 86_400_000;
    const event = await admin(old, `/organizations/${org.id}/events`, {
      name: 'Season Run',
      handle: 'season-run',
      status: 'open',
      visibility: 'public',
      starts_at: new Date(now + 30 * day).toISOString(),
      ends_at: new Date(now + 30 * day + 3_600_000).toISOString(),
      timezone: 'Africa/Kampala',
      currency: 'UGX',
      reg_opens_at: new Date(now - day).toISOString(),
      reg_closes_at: new Date(now + 29 * day).toISOString(),
      ticket_types: [{ name: '5 km', price_minor: 0, capacity: 1_000_000, distance_km: 5 }],
    });
    const eventId = event.event_id as string;
    const ticket = (event.ticket_types as { ticket_type_id: string }[])[0]!.ticket_type_id;
    const client = await admin(old, `/organizations/${org.id}/clients`, {
      name: 'Shop',
      scopes: ['orders:write', 'orders:read'],
      allowed_domains: ['https://shop.example.org'],
      return_url_domains: ['https://shop.example.org'],
    });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const seeded = performance.now();
    await sql`
      INSERT INTO orders (id, organization_id, event_id, order_code, status, currency, subtotal,
          laces_fee, total, buyer_name, buyer_email, buyer_phone, paid_at, created_at, updated_at)
        SELECT 'ord_r' || n, ${org.id as string}, ${eventId}, 'R' || n, 'paid', 'UGX', 0, 0, 0,
          'Runner ' || n, 'runner' || n || '@example.org', '07720' || lpad(n::text, 5, '0'),
          now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval, now()
        FROM generate_series(1, ${ORDERS}) AS n`;
    await sql`
      INSERT INTO registrations (id, order_id, organization_id, ticket_type_id, position, ticket_label,
          distance_km, price_minor, fee_minor, participant_name, status, created_at)
        SELECT 'reg_r' || n, 'ord_r' || n, ${org.id as string}, ${ticket}, 0, '5 km', 5, 0, 0,
          'Runner ' || n, 'confirmed', now() - (n || ' seconds')::interval
        FROM generate_series(1, ${ORDERS}) AS n`;
    await sql`ANALYZE`;
    await sql.end();
    log(`seeded ${ORDERS} orders and registrations in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const token = await fetchToken(old.apiUrl, {
      clientId: client.client_id as string,
      clientSecret: client.client_secret as string,
    });
    const creations: Creation[] = [];
    const start = performance.now();
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const began = performance.now();
        const status = await createOrder(old.apiUrl, token, { eventId, ticket, name: `Writer ${w} ${i}` });
        creations.push({ at: began - start, ms: performance.now() - began, status });
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, BEFORE_MS));
    const migrationStart = performance.now() - start;
    const upgrade = await migrateWith(ROOT, url);
    const migrationEnd = performance.now() - start;
    const readyDuring = (await fetch(`${old.apiUrl}/readyz`)).status;
    await new Promise((r) => setTimeout(r, AFTER_MS));
    stop = true;
    await Promise.all(writers);
    if (upgrade.code !== 0) throw new Error(`this release's db migrate failed:\n${upgrade.output}`);
    log(`this release's db migrate, ${(upgrade.ms / 1000).toFixed(2)} s:\n${upgrade.output.trimEnd()}`);
    log(`the previous release's /readyz after the migration: ${readyDuring}`);

    const phase = (name: string, from: number, to: number) => {
      const rows = creations.filter((c) => c.at >= from && c.at < to);
      const ms = rows.filter((c) => c.status === 201).map((c) => c.ms);
      const other = rows.filter((c) => c.status !== 201).length;
      log(
        `${name.padEnd(24)} ${String(rows.length).padStart(6)} creations, ${other} not 201; ` +
          `p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, ` +
          `longest ${Math.max(...ms).toFixed(1)} ms`,
      );
    };
    phase('before the migration', 0, migrationStart);
    phase('during the migration', migrationStart, migrationEnd);
    phase('after it (old release)', migrationEnd, Infinity);

    await old.stop();
    const next = await startService(database.serviceEnv, log, SERVICE_ENTRY);
    const nextToken = await fetchToken(next.apiUrl, {
      clientId: client.client_id as string,
      clientSecret: client.client_secret as string,
    });
    const status = await createOrder(next.apiUrl, nextToken, { eventId, ticket, name: 'After the upgrade' });
    log(`this release started on the migrated database: POST /v1/orders ${status}`);
    await next.stop();
  } finally {
    await stopAllChildren();
    await database.drop();
  }
}

main().catch(async (error: unknown) => {
  console.error(error);
  await stopAllChildren();
  process.exit(1);
});
