// A database that drops every connection again and again, under a light steady sale: the process
// lives through it, every answer is either a success or a 503 service_unavailable in the envelope
// (never a 500), and once the faults stop the same process is ready and sells, every paid order was
// paid once and every order.paid reached the receiver exactly once. PostgreSQL only: the fault is
// pg_terminate_backend on every backend of the service's database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import postgres from 'postgres';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startReceiver, verifyDelivery, type Receiver } from '../webhooks/webhook-helpers.ts';
import { Cluster, tokenFor } from './cluster.ts';
import { setUpShop, SHOP_ORIGIN, type OpsShop } from './ops-shop.ts';

const PG = process.env.TEST_DATABASE_URL;
const CLIENTS = 8;
const ROUNDS = 3;
const ROUND_MS = 20_000;
const KILL_EVERY_MS = 1500;
const CALM_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Seen {
  method: string;
  path: string;
  status: number;
  body: string;
  requestId: string | null;
}

describe(
  'terminating every database backend every 1.5 s under a steady sale',
  { skip: PG ? false : 'needs PostgreSQL (TEST_DATABASE_URL): the fault terminates its backends' },
  () => {
    let cluster: Cluster;
    let receiver: Receiver;
    let shop: OpsShop;
    let auth: Record<string, string>;

    before(async () => {
      receiver = await startReceiver();
      cluster = await Cluster.start({
        count: 1,
        databaseUrl: PG!,
        redisUrl: process.env.TEST_REDIS_URL ?? '',
        env: {
          RATE_LIMIT_BEARER_RATE: '10000',
          RATE_LIMIT_BEARER_BURST: '10000',
          DATABASE_TRANSACTION_CONNECTIONS: '8',
        },
      });
      shop = await setUpShop(cluster.instances[0]!.urls.app, { capacity: 100_000, webhookUrl: receiver.url });
      auth = { authorization: `Bearer ${await tokenFor(cluster.instances[0]!.urls.api, shop.client)}` };
    });

    after(async () => {
      // The service's log, to read what it did under the faults (test-results/ is not committed).
      if (cluster) {
        mkdirSync('test-results', { recursive: true });
        writeFileSync('test-results/db-faults-service.log', cluster.output());
      }
      await cluster?.close();
      await receiver?.close();
    });

    test('the process lives, answers 2xx or 503 in the envelope, and loses or repeats nothing', async () => {
      const api = cluster.instances[0]!.urls.api;
      const child = cluster.instances[0]!.child;
      const seen: Seen[] = [];
      const paidOrders = new Set<string>();
      const freeOrders = new Set<string>();
      let running = true;

      /** One request, retried as a careful partner would on 503 and network errors, every answer kept. */
      const send = async (method: string, path: string, body?: unknown, key?: string) => {
        for (let tries = 0; tries < 200; tries++) {
          let res: Response;
          try {
            res = await fetch(`${api}${path}`, {
              method,
              headers: {
                ...auth,
                ...(key && { 'idempotency-key': key }),
                ...(body !== undefined && { 'content-type': 'application/json' }),
              },
              ...(body !== undefined && { body: JSON.stringify(body) }),
              signal: AbortSignal.timeout(15_000),
            });
          } catch (error) {
            seen.push({ method, path, status: 0, body: String(error), requestId: null });
            if (child.process.exitCode !== null)
              throw new Error(`service exited:\n${child.output()}`, { cause: error });
            await sleep(200);
            continue;
          }
          const text = await res.text();
          seen.push({
            method,
            path,
            status: res.status,
            body: text,
            requestId: res.headers.get('x-request-id'),
          });
          const json = JSON.parse(text) as { error_code?: string; data?: Record<string, unknown> };
          const inUse = res.status === 409 && json.error_code === 'idempotency_key_in_use';
          if (res.status !== 503 && !inUse) return { status: res.status, json };
          await sleep(Math.min(Number(res.headers.get('retry-after') ?? 1), 1) * 1000);
        }
        throw new Error(`${method} ${path}: no answer but 503 in 200 tries`);
      };

      const client = async (c: number) => {
        for (let n = 0; running; n++) {
          const key = `c${c}-${n}`;
          const session = await send(
            'POST',
            '/v1/checkout-sessions',
            {
              event_id: shop.openEventId,
              on_success_url: `${SHOP_ORIGIN}/ok`,
              on_cancel_url: `${SHOP_ORIGIN}/no`,
            },
            `${key}-session`,
          );
          assert.equal(session.status, 201, JSON.stringify(session.json));
          const buyer = { name: `Buyer ${key}`, email: `${key}@example.org`, phone: '0772123456' };
          const free = await send(
            'POST',
            '/v1/orders',
            {
              event_id: shop.openEventId,
              items: [{ ticket_type_id: freeTicketId, participant_name: `Runner ${key}` }],
              buyer,
            },
            `${key}-free`,
          );
          assert.equal(free.status, 201, JSON.stringify(free.json));
          assert.equal(free.json.data!.status, 'paid');
          freeOrders.add(free.json.data!.id as string);
          const order = await send(
            'POST',
            '/v1/orders',
            {
              event_id: shop.flashEventId,
              items: [{ ticket_type_id: shop.flashTicketId, participant_name: `Runner ${key}` }],
              buyer,
            },
            `${key}-paid`,
          );
          assert.equal(order.status, 201, JSON.stringify(order.json));
          const id = order.json.data!.id as string;
          const pay = await send('POST', `/v1/orders/${id}/pay`, {
            payment_method: 'momo',
            phone: testPhoneNumber('momo', '01'),
          });
          // A retried pay whose first try went through finds the prompt out (or the order paid).
          assert.ok(
            pay.status === 202 || (pay.status === 409 && pay.json.error_code === 'order_not_payable'),
            JSON.stringify(pay.json),
          );
          paidOrders.add(id);
        }
      };

      const freeTicketId = shop.openTicketId;
      // A client that fails stops the load at once, and its error is the test's.
      const failures: unknown[] = [];
      const load = Promise.all(
        Array.from({ length: CLIENTS }, (_, c) =>
          client(c).catch((error: unknown) => {
            failures.push(error);
            running = false;
          }),
        ),
      );

      const killer = postgres(PG!, { max: 1, onnotice: () => {} });
      const database = new URL(cluster.databaseUrl).pathname.slice(1);
      let killed = 0;
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const end = Date.now() + ROUND_MS;
          while (Date.now() < end && running) {
            const rows = await killer<{ killed: boolean }[]>`
              SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
              WHERE datname = ${database} AND pid <> pg_backend_pid()`;
            killed += rows.filter((r) => r.killed).length;
            await sleep(KILL_EVERY_MS);
            assert.equal(child.process.exitCode, null, `the service exited:\n${child.output()}`);
          }
          await sleep(CALM_MS);
        }
      } finally {
        running = false;
        await killer.end();
      }
      await load;
      if (failures.length > 0) throw failures[0];
      assert.equal(child.process.exitCode, null, `the service exited:\n${child.output()}`);

      // The same process is ready and sells.
      const ready = await fetch(`${api}/readyz`);
      assert.equal(ready.status, 200, await ready.text());
      const after = await send('POST', '/v1/orders', {
        event_id: shop.openEventId,
        items: [{ ticket_type_id: freeTicketId, participant_name: 'After the storm' }],
        buyer: { name: 'Last Buyer', email: 'last@example.org', phone: '0772123456' },
      });
      assert.equal(after.status, 201, JSON.stringify(after.json));
      freeOrders.add(after.json.data!.id as string);

      // Every request answered: a success, a business refusal or a 503 in the envelope; none a 500.
      const bad = seen.filter((s) => {
        if (s.status === 0) return true; // no answer at all: a connection dropped or timed out
        if (s.status >= 500 && s.status !== 503) return true;
        if (!/^req_/.test(s.requestId ?? '')) return true;
        const json = JSON.parse(s.body) as Record<string, unknown>;
        if (s.status === 503) return json.error_code !== 'service_unavailable' || json.code !== 503;
        return typeof json.code !== 'number' || typeof json.message !== 'string';
      });
      assert.deepEqual(bad.slice(0, 5), [], `${bad.length} answers outside the rules`);

      // Every order paid once: the prompted ones pay (the simulator approves 01 in about 20 ms).
      const db = postgres(cluster.databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const all = [...paidOrders, ...freeOrders];
        const deadline = Date.now() + 60_000;
        let unpaid: string[] = [];
        do {
          const rows = await db<
            { id: string; status: string }[]
          >`SELECT id, status FROM orders WHERE id = ANY(${all})`;
          unpaid = rows.filter((r) => r.status !== 'paid').map((r) => r.id);
          if (rows.length === all.length && unpaid.length === 0) break;
          await sleep(500);
        } while (Date.now() < deadline);
        assert.deepEqual(unpaid, [], 'every order paid');
        const twice = await db<{ order_id: string; n: number }[]>`
          SELECT order_id, count(*)::int AS n FROM payment_attempts
          WHERE status = 'successful' GROUP BY order_id HAVING count(*) > 1`;
        assert.deepEqual([...twice], [], 'no order paid twice');

        // Every order.paid delivered, and once.
        // Each delivery verified once, soon after it came: a signature's timestamp is refused once
        // five minutes old, which a long wait below could reach.
        const verified = new Map<object, ReturnType<typeof verifyDelivery>>();
        const payloadOf = (r: (typeof receiver.requests)[number]) => {
          let payload = verified.get(r);
          if (payload === undefined) verified.set(r, (payload = verifyDelivery(shop.endpointSecret, r)));
          return payload;
        };
        const perOrder = () => {
          const counts = new Map<string, number>();
          for (const r of receiver.requests) {
            const payload = payloadOf(r);
            if (payload.type === 'order.paid')
              counts.set(payload.data.id, (counts.get(payload.data.id) ?? 0) + 1);
          }
          return counts;
        };
        // Once the outbox queue is empty and no delivery is pending, nothing can be sent again:
        // a send needs a queue row (a first attempt) or a pending delivery (a retry). An event whose
        // take lost its answer waits for its lease (the 15 s send time-out plus 30 s).
        const settled = async () => {
          const [row] = await db<{ queued: number; pending: number }[]>`SELECT
            (SELECT count(*)::int FROM outbox_queue) AS queued,
            (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending`;
          return row!.queued === 0 && row!.pending === 0;
        };
        const waitUntil = Date.now() + 120_000;
        while ((all.some((id) => !perOrder().has(id)) || !(await settled())) && Date.now() < waitUntil)
          await sleep(500);
        const missing = all.filter((id) => !perOrder().has(id));
        if (missing.length > 0 || !(await settled())) {
          const queue = await db`SELECT count(*)::int AS n, count(lease_until)::int AS leased,
            min(lease_until) AS first_lease FROM outbox_queue`;
          const deliveries =
            await db`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`;
          assert.fail(
            `${missing.length} of ${all.length} paid orders have no order.paid (received ${receiver.requests.length}); ` +
              `queue ${JSON.stringify(queue)}, deliveries ${JSON.stringify(deliveries)}`,
          );
        }
        const repeated = [...perOrder()].filter(([, n]) => n > 1).map(([id]) => id);
        if (repeated.length > 0) {
          const sent = receiver.requests
            .map((r) => ({ r, payload: payloadOf(r) }))
            .filter(({ payload }) => repeated.includes(payload.data.id))
            .map(({ r, payload }) => `${payload.data.id} ${String(r.headers['webhook-id'])} ${r.at}`);
          const events = await db`SELECT e.id, e.created_at, q.seq, q.lease_until FROM outbox_events e
            LEFT JOIN outbox_queue q ON q.event_id = e.id WHERE e.payload->'data'->>'id' = ANY(${repeated})`;
          const deliveries = await db`SELECT d.id, d.event_id, d.status, d.attempts, d.created_at
            FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
            WHERE e.payload->'data'->>'id' = ANY(${repeated})`;
          assert.fail(
            `order.paid delivered more than once for ${repeated.length} orders:\n${sent.join('\n')}\n` +
              `events ${JSON.stringify(events)}\ndeliveries ${JSON.stringify(deliveries)}`,
          );
        }
      } finally {
        await db.end();
      }
      // The log: JSON lines only, and one error line per outage, none per failed round or job.
      const lines = child
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          try {
            return JSON.parse(line) as { level: number; msg: string };
          } catch {
            return assert.fail(`a log line that is not JSON: ${line}`);
          }
        });
      const errors = lines.filter((line) => line.level >= 50 && !/^database unreachable/.test(line.msg));
      assert.deepEqual(
        errors.map((line) => line.msg),
        [],
        'no error line but those of the outage watch',
      );
      const statuses: Record<number, number> = {};
      for (const s of seen) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
      console.log(
        `database faults: ${killed} backends terminated; ${paidOrders.size} paid and ${freeOrders.size} free orders; ` +
          `answers ${JSON.stringify(statuses)}`,
      );
    });
  },
);
