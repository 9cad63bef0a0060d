// The real service as child processes: a webhook survives SIGKILL between payment and delivery
// (the outbox row committed with the order), and two processes on one PostgreSQL database deliver
// each event once. PostgreSQL when TEST_DATABASE_URL is set, else a PGlite data directory.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase, TEST_ADMIN_KEY } from '../helpers/harness.ts';
import { startMain, type Child } from '../helpers/process.ts';
import { startReceiver, verifyDelivery, type Receiver } from './webhook-helpers.ts';
import { waitFor } from '../helpers/wait.ts';

const DAY = 24 * 3600 * 1000;
const PG = process.env.TEST_DATABASE_URL;
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A database for the children: a new PostgreSQL database, or a new PGlite directory. */
async function freshDatabase(): Promise<Record<string, string>> {
  if (!PG) {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { DATA_DIR: dir, DATABASE_URL: '' };
  }
  const database = await freshPostgresDatabase(PG);
  cleanups.push(database.drop);
  return { DATABASE_URL: database.url };
}

function childEnv(database: Record<string, string>, extra: Record<string, string> = {}) {
  return {
    ...database,
    NODE_ENV: 'test',
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    SEED_DEMO: 'false',
    PAYMENT_PROVIDER: 'simulator',
    PAYMENT_TIME_SCALE: '0.01',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIME_SCALE: '0.01',
    ...extra,
  };
}

async function start(env: Record<string, string>): Promise<Child> {
  const child = await startMain(env);
  cleanups.push(async () => {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill('SIGKILL');
      await child.exited;
    }
  });
  return child;
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  return { status: res.status, json };
}

const adminKey = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

/** An organization with a free event, an API client's token and a webhook endpoint, made over HTTP. */
async function setUp(child: Child, receiverUrl: string) {
  const org = await call(
    child.urls.app,
    'POST',
    '/admin/v1/organizations',
    { name: 'Crash Club', payments_enabled: true },
    adminKey,
  );
  assert.equal(org.status, 201, JSON.stringify(org.json));
  const orgId = org.json.data.id as string;
  const now = Date.now();
  const event = await call(
    child.urls.app,
    'POST',
    `/admin/v1/organizations/${orgId}/events`,
    {
      name: 'Free Run',
      handle: `free-run-${randomBytes(3).toString('hex')}`,
      status: 'open',
      visibility: 'public',
      starts_at: new Date(now + 30 * DAY).toISOString(),
      ends_at: new Date(now + 30 * DAY + 3600_000).toISOString(),
      timezone: 'Africa/Kampala',
      currency: 'UGX',
      reg_opens_at: new Date(now - DAY).toISOString(),
      reg_closes_at: new Date(now + 29 * DAY).toISOString(),
      ticket_types: [{ name: '5 km', price_minor: 0, capacity: 1000, distance_km: 5 }],
    },
    adminKey,
  );
  assert.equal(event.status, 201, JSON.stringify(event.json));
  const client = await call(
    child.urls.app,
    'POST',
    `/admin/v1/organizations/${orgId}/clients`,
    { name: 'Shop', scopes: ['orders:write', 'orders:read'] },
    adminKey,
  );
  assert.equal(client.status, 201, JSON.stringify(client.json));
  const tokenRes = await fetch(`${child.urls.api}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.json.data.client_id,
      client_secret: client.json.data.client_secret,
    }).toString(),
  });
  assert.equal(tokenRes.status, 200);
  const endpoint = await call(
    child.urls.app,
    'POST',
    `/admin/v1/organizations/${orgId}/webhook-endpoints`,
    { url: receiverUrl },
    adminKey,
  );
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.json));
  return {
    eventId: event.json.data.event_id as string,
    ticketTypeId: event.json.data.ticket_types[0].ticket_type_id as string,
    token: ((await tokenRes.json()) as { access_token: string }).access_token,
    endpointId: endpoint.json.data.id as string,
    secret: endpoint.json.data.secret as string,
  };
}

type Shop = Awaited<ReturnType<typeof setUp>>;

async function payFreeOrder(child: Child, shop: Shop): Promise<string> {
  const res = await call(
    child.urls.api,
    'POST',
    '/v1/orders',
    {
      event_id: shop.eventId,
      items: [{ ticket_type_id: shop.ticketTypeId, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    },
    { authorization: `Bearer ${shop.token}` },
  );
  assert.equal(res.status, 201, JSON.stringify(res.json));
  assert.equal(res.json.data.status, 'paid');
  return res.json.data.id;
}

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(respond);
  cleanups.push(() => r.close());
  return r;
}

test(`a webhook survives SIGKILL between payment and delivery (${PG ? 'PostgreSQL' : 'PGlite'})`, async () => {
  const database = await freshDatabase();
  const r = await receiver();
  // The first process pays the order and dies before any background work can deliver it.
  const first = await start(childEnv(database, { RUN_JOBS: 'false' }));
  const shop = await setUp(first, r.url);
  const orderId = await payFreeOrder(first, shop);
  first.process.kill('SIGKILL');
  await first.exited;
  assert.equal(first.process.signalCode, 'SIGKILL');
  assert.equal(r.requests.length, 0);

  const second = await start(childEnv(database, { RUN_JOBS: 'true' }));
  await waitFor('the webhook after restart', () => r.requests.length >= 1);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(r.requests.length, 1, 'delivered once');
  const payload = verifyDelivery(shop.secret, r.requests[0]!);
  assert.equal(payload.type, 'order.paid');
  assert.equal(payload.data.id, orderId);
  assert.equal(payload.data.status, 'paid');
  second.process.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

test(
  'two processes on one PostgreSQL database deliver each event once',
  {
    skip: PG
      ? false
      : 'needs PostgreSQL: set TEST_DATABASE_URL (two processes cannot share one PGlite data directory)',
  },
  async () => {
    const database = await freshDatabase();
    // Each event's first attempt fails and its retry succeeds, so every event is claimed twice,
    // by whichever process gets there first; a slow answer widens the window for a double send.
    const r = await receiver((_req, previous) =>
      previous === 0 ? { status: 500, delayMs: 20 } : { status: 200, delayMs: 20 },
    );
    // One send at a time in each: with batches, the process that fans an event out (and wakes its
    // own sender) could claim every delivery before the other one looks.
    const env = childEnv(database, { RUN_JOBS: 'true', LOG_LEVEL: 'debug', WEBHOOK_CONCURRENCY: '1' });
    const [a, b] = await Promise.all([start(env), start(env)]);
    const shop = await setUp(a, r.url);
    const N = 40;
    const orderIds: string[] = [];
    for (let i = 0; i < N; i++) orderIds.push(await payFreeOrder(i % 2 === 0 ? a : b, shop));

    const ids = () => new Set(r.requests.map((req) => String(req.headers['webhook-id'])));
    await waitFor(
      'every event delivered',
      () => ids().size === N && [...ids()].every((id) => r.withId(id).length >= 2),
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2000)); // anything extra would show by now
    for (const id of ids()) assert.equal(r.withId(id).length, 2, `${id}: one failed attempt, one success`);
    const paidOrders = new Set(r.requests.map((req) => verifyDelivery(shop.secret, req).data.id as string));
    assert.deepEqual([...paidOrders].sort(), [...orderIds].sort());

    const log = await call(
      a.urls.app,
      'GET',
      `/admin/v1/webhook-endpoints/${shop.endpointId}/deliveries?limit=50`,
      undefined,
      adminKey,
    );
    assert.equal(log.json.data.deliveries.length, N);
    for (const delivery of log.json.data.deliveries) {
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempt_count, 2);
    }
    const attemptsBy = (child: Child) => child.output().split('"msg":"webhook attempt"').length - 1;
    assert.equal(attemptsBy(a) + attemptsBy(b), 2 * N);
    assert.ok(
      attemptsBy(a) > 0 && attemptsBy(b) > 0,
      `both processes delivered: ${attemptsBy(a)} + ${attemptsBy(b)}`,
    );
    a.process.kill('SIGTERM');
    b.process.kill('SIGTERM');
    assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
  },
);
