// PostgreSQL only: the organizer app at scale. 100,000 orders with their registrations
// across 20 events of one organization are written straight into the bench database by SQL (the
// domain functions would take minutes): the first event gets 10,000 paid orders of two runners
// each (20,000 runners), the rest share the others. A member signs in through the app's own form,
// and a service of its own answers:
//   - the orders list, and searches by order code, name, e-mail and phone, and filters by event
//     and status: sequential requests, p50 and p95 (goal: p95 within 200 ms);
//   - the CSV export of all 100,000: time to the last byte (goal: within 10 s) and the service's
//     peak resident memory while it streams, against its memory before (flat memory);
//   - the start list of the 20,000-runner event (goal: within 1 s) and its sales overview.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type * as EventsModule from '../../src/events/events.ts';
import type * as InvitationsModule from '../../src/members/invitations.ts';
import type * as OrganizationsModule from '../../src/organizations/organizations.ts';
import type * as ClientsModule from '../../src/auth/clients.ts';
import type * as DbModule from '../../src/platform/db.ts';
import { signInToApp } from '../lib/app-sign-in.ts';
import { keepAliveAgent, timedRequest } from '../lib/http.ts';
import { importDist } from '../lib/paths.ts';
import { startService } from '../lib/processes.ts';
import type { Goal, Scenario } from '../lib/scenario.ts';
import { raceEventInput } from '../lib/seed.ts';
import { percentile, round } from '../lib/stats.ts';

const ORDERS = 100_000;
const EVENTS = 20;
const REQUESTS = 40;
const WARMUP = 5;
const DAY = 24 * 3600 * 1000;
/** paid orders of two runners each in the first event: its start list holds 20,000 */
const BIG_EVENT_ORDERS = 10_000;

interface Seeded {
  organizationId: string;
  eventIds: string[];
  email: string;
  password: string;
}

/** The organization, its events, a client and an owner through the domain functions; the orders by SQL. */
async function seed(url: string): Promise<Seeded> {
  const { openDatabase } = await importDist<typeof DbModule>('platform/db.js');
  const { createOrganization } = await importDist<typeof OrganizationsModule>(
    'organizations/organizations.js',
  );
  const { insertEvent } = await importDist<typeof EventsModule>('events/events.js');
  const { insertApiClient } = await importDist<typeof ClientsModule>('auth/clients.js');
  const { createInvitation, acceptInvitation } =
    await importDist<typeof InvitationsModule>('members/invitations.js');
  const database = await openDatabase({ url, connections: { reads: 1, transactions: 1 } });
  const email = 'owner@scale.example';
  const password = randomBytes(12).toString('base64url');
  let organizationId: string;
  let clientId: string;
  const eventIds: string[] = [];
  try {
    const now = Date.now();
    const org = await createOrganization(database.db, {
      name: 'Scale Running Club',
      paymentsEnabled: true,
      supportEmail: 'support@scale.example',
    });
    organizationId = org.id;
    for (let i = 0; i < EVENTS; i++) {
      const event = await insertEvent(
        database.db,
        org.id,
        raceEventInput(now + (i + 7) * DAY, {
          name: `Scale Marathon ${String(i + 1).padStart(2, '0')}`,
          ticket_types: [
            { name: '21 km', price_minor: 50000, capacity: 20000, distance_km: 21.1 },
            { name: '10 km', price_minor: 30000, capacity: 20000, distance_km: 10 },
          ],
        }),
      );
      eventIds.push(event.id);
    }
    clientId = (
      await insertApiClient(database.db, {
        organizationId: org.id,
        name: 'Scale partner',
        scopes: ['events:read'],
        allowedDomains: [],
        returnUrlDomains: [],
      })
    ).client.id;
    const { token } = await createInvitation(database.db, {
      organizationId: org.id,
      email,
      role: 'owner',
      invitedBy: null,
      now: new Date(),
    });
    await acceptInvitation(database, token, { password }, new Date());
  } finally {
    await database.close();
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Orders spread over 60 days, round-robin over the events; most paid, some pending, expired
    // or cancelled; a third through each channel. One or two registrations each.
    await sql.unsafe(
      `INSERT INTO orders (id, organization_id, event_id, api_client_id, channel, checkout_mode, order_code,
         status, currency, subtotal, laces_fee, total, payment_method, buyer_name, buyer_email,
         buyer_phone, paid_at, created_at, updated_at)
       SELECT 'ord_scale' || lpad(i::text, 8, '0'), $1, (ARRAY[${eventIds.map((id) => `'${id}'`).join(',')}])[CASE WHEN i <= ${BIG_EVENT_ORDERS} THEN 1 ELSE 2 + i % ${EVENTS - 1} END],
         $2, 'partner_api', (ARRAY[NULL, 'redirect', 'embedded'])[1 + i % 3], 'S' || lpad(i::text, 7, '0'),
         CASE WHEN i <= ${BIG_EVENT_ORDERS} THEN 'paid'
           ELSE (ARRAY['paid','paid','paid','paid','paid','paid','paid','paid','pending','expired','cancelled'])[1 + i % 11] END,
         'UGX', 50000, 1750, 51750, (ARRAY['momo','airtel'])[1 + i % 2],
         'Runner ' || i, 'runner' || i || '@example.org', '25677' || lpad(i::text, 7, '0'),
         CASE WHEN i <= ${BIG_EVENT_ORDERS} OR i % 11 < 8 THEN now() - (i % 86400) * interval '1 minute' END,
         now() - (i % 86400) * interval '1 minute', now()
       FROM generate_series(1, ${ORDERS}) AS i`,
      [organizationId, clientId],
    );
    await sql.unsafe(
      `INSERT INTO registrations (id, order_id, organization_id, ticket_type_id, position, ticket_label,
         distance_km, price_minor, fee_minor, participant_name, status, created_at)
       SELECT 'reg_scale' || lpad(o.n::text, 8, '0') || '_' || p, o.id, o.organization_id, tt.id, p, tt.name,
         tt.distance_km, tt.price_minor, 1750, 'Participant ' || o.n || '-' || p,
         CASE WHEN o.status = 'paid' THEN 'confirmed' ELSE 'cancelled' END, o.created_at
       FROM (SELECT id, organization_id, event_id, status, created_at,
               substr(id, 10)::int AS n FROM orders WHERE organization_id = $1) o
       CROSS JOIN LATERAL generate_series(0, CASE WHEN o.n <= ${BIG_EVENT_ORDERS} THEN 1 ELSE o.n % 2 END) AS p
       JOIN LATERAL (SELECT * FROM ticket_types WHERE event_id = o.event_id ORDER BY id LIMIT 1) tt ON true`,
      [organizationId],
    );
    await sql.unsafe('ANALYZE orders; ANALYZE registrations');
  } finally {
    await sql.end({ timeout: 5 });
  }
  return { organizationId, eventIds, email, password };
}

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

export const organizerOrders: Scenario = {
  name: 'organizer orders at 100,000 orders',
  async run(ctx) {
    const url = ctx.database.open.url;
    if (!url) {
      return {
        name: this.name,
        table: [],
        notes: ['organizer orders at scale: measured on PostgreSQL only'],
        goals: [],
        data: { measured: false },
      };
    }
    const started = Date.now();
    const seeded = await seed(url);
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
        ['by buyer name', (i) => `/orders?q=${encodeURIComponent(`Runner ${pick(i)}`)}`],
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
