// Three instances of the service on one PostgreSQL database and one Redis, behind a
// round-robin proxy started here (round-robin-proxy.ts): a flash sale sells exactly its capacity
// and each order.paid is delivered once; the token endpoint's limit holds across instances; and a
// rolling restart under load fails no request of a client that retries with its Idempotency-Key
// and loses no 2xx answer. Needs PostgreSQL and Redis: three processes cannot share one PGlite
// directory, and in-memory limits are per process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import postgres from 'postgres';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { startReceiver, verifyDelivery, type Receiver } from '../webhooks/webhook-helpers.ts';
import { call, Cluster, newRetries, tokenFor, type Answer, type Retries } from './cluster.ts';
import { createClient, setUpShop, SHOP_ORIGIN, type OpsShop } from './ops-shop.ts';
import { startRoundRobinProxy, UPSTREAM_HEADER, type RoundRobinProxy } from './round-robin-proxy.ts';
import { waitFor } from '../helpers/wait.ts';

const PG = process.env.TEST_DATABASE_URL;
const REDIS = process.env.TEST_REDIS_URL;
const BUYERS = 1000;
const CAPACITY = 100;

const IN_FLIGHT = 200;

/** Runs `work` when fewer than IN_FLIGHT others run, in arrival order. */
const inTurn = (() => {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
})();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(
  'three instances on one PostgreSQL and one Redis behind a round-robin proxy',
  {
    skip:
      PG && REDIS
        ? false
        : 'needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL): three processes share one database and one rate-limit store',
  },
  () => {
    let cluster: Cluster;
    let proxy: RoundRobinProxy;
    let receiver: Receiver;
    let shop: OpsShop;
    let auth: Record<string, string>;

    before(async () => {
      receiver = await startReceiver();
      cluster = await Cluster.start({
        count: 3,
        databaseUrl: PG!,
        redisUrl: REDIS!,
        // One partner client stands for a thousand buyers' traffic here; the limit under test is
        // the token endpoint's, so the per-client bearer limit is lifted out of the way.
        // Eight transaction connections each keep the three within a shared test server's
        // max_connections while another test file runs.
        env: {
          RATE_LIMIT_BEARER_RATE: '10000',
          RATE_LIMIT_BEARER_BURST: '10000',
          DATABASE_TRANSACTION_CONNECTIONS: '8',
        },
      });
      proxy = await startRoundRobinProxy(cluster.instances.map((instance) => instance.urls.api));
      shop = await setUpShop(cluster.instances[0]!.urls.app, {
        capacity: CAPACITY,
        webhookUrl: receiver.url,
      });
      auth = { authorization: `Bearer ${await tokenFor(proxy.url, shop.client)}` };
    });

    after(async () => {
      await proxy?.close();
      await cluster?.close();
      await receiver?.close();
    });

    test(`a flash sale of ${BUYERS} buyers for ${CAPACITY} tickets: exactly ${CAPACITY} paid, each order.paid delivered once`, async () => {
      const retries = newRetries();
      const answeredBefore = [...proxy.answered];
      const [failoversBefore, badGatewayBefore] = [proxy.failovers, proxy.badGateway];
      const saleStarted = Date.now();
      // Every buyer at once: an order with its own Idempotency-Key, then the payment prompt, through
      // at most IN_FLIGHT connections at a time (a partner server's pool), so that the test's own
      // sockets to the proxy do not time out connecting on a busy machine.
      const buyers = await Promise.all(
        Array.from({ length: BUYERS }, (_, i) =>
          inTurn(async () => {
            const order = await call(
              proxy.url,
              {
                method: 'POST',
                path: '/v1/orders',
                headers: { ...auth, 'idempotency-key': `buyer-${i}` },
                body: {
                  event_id: shop.flashEventId,
                  items: [{ ticket_type_id: shop.flashTicketId, participant_name: `Runner ${i}` }],
                  buyer: { name: `Buyer ${i}`, email: `buyer${i}@example.org`, phone: '0772123456' },
                },
              },
              retries,
            );
            if (order.status !== 201) return { order, pay: null };
            const pay = await call(
              proxy.url,
              {
                method: 'POST',
                path: `/v1/orders/${order.json.data.id}/pay`,
                headers: auth,
                body: { payment_method: 'momo', phone: testPhoneNumber('momo', '01') },
              },
              retries,
            );
            return { order, pay };
          }),
        ),
      );
      const soldIn = Date.now() - saleStarted;
      const held = buyers.filter((b) => b.order.status === 201);
      assert.equal(held.length, CAPACITY, 'one order per ticket');
      for (const { order } of buyers.filter((b) => b.order.status !== 201)) {
        assert.equal(order.status, 409, JSON.stringify(order.json));
        assert.equal(order.json.error_code, 'sold_out');
      }
      for (const { pay } of held) assert.equal(pay!.status, 202, JSON.stringify(pay!.json));
      const answered = proxy.answered.map((n, i) => n - answeredBefore[i]!);
      assert.ok(
        answered.every((n) => n > BUYERS / 10),
        `every instance took a share: ${answered.join(', ')}`,
      );
      const orderIds = new Set(held.map((b) => b.order.json.data.id as string));
      assert.equal(orderIds.size, CAPACITY);

      // Each paid order's order.paid, verified with standardwebhooks. The receiver always answers
      // 204, so no delivery is retried: a second request for an order (under any webhook-id) would
      // be a duplicate delivery.
      const paidDeliveries = () =>
        receiver.requests
          .map((r) => verifyDelivery(shop.endpointSecret, r))
          .filter((p) => p.type === 'order.paid');
      await waitFor(
        () => `${CAPACITY} order.paid deliveries (got ${paidDeliveries().length})`,
        () => paidDeliveries().length >= CAPACITY,
        60_000,
      );
      const deliveredIn = Date.now() - saleStarted;
      await sleep(2000); // a duplicate would arrive by now: deliveries here take milliseconds
      const perOrder = new Map<string, number>();
      for (const payload of paidDeliveries()) {
        perOrder.set(payload.data.id, (perOrder.get(payload.data.id) ?? 0) + 1);
      }
      assert.deepEqual(
        [...perOrder.keys()].sort(),
        [...orderIds].sort(),
        'an order.paid for each paid order',
      );
      assert.deepEqual(
        [...perOrder.entries()].filter(([, n]) => n !== 1),
        [],
        'each order.paid delivered exactly once',
      );
      const webhookIds = new Set(receiver.requests.map((r) => String(r.headers['webhook-id'])));
      assert.equal(webhookIds.size, receiver.requests.length, 'no webhook-id came twice');

      // Exactly the capacity paid, as the API and the database both tell.
      const paid: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `event_id=${shop.flashEventId}&status=paid&limit=50${cursor ? `&cursor=${cursor}` : ''}`;
        const page: Answer = await call(proxy.url, { path: `/v1/orders?${query}`, headers: auth });
        assert.equal(page.status, 200, JSON.stringify(page.json));
        paid.push(...page.json.data.orders.map((o: { id: string }) => o.id));
        cursor = page.json.data.next_cursor;
      } while (cursor);
      assert.deepEqual(paid.sort(), [...orderIds].sort());
      const db = postgres(cluster.databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const rows = await db<{ status: string; n: number }[]>`
          SELECT status, count(*)::int AS n FROM orders WHERE event_id = ${shop.flashEventId} GROUP BY status`;
        assert.deepEqual(
          rows.map((r) => ({ ...r })),
          [{ status: 'paid', n: CAPACITY }],
        );
      } finally {
        await db.end();
      }
      // No instance failed a request during the sale: nothing was moved, reset or refused.
      assert.deepEqual(
        [proxy.failovers - failoversBefore, proxy.badGateway - badGatewayBefore, retries.byStatus],
        [0, 0, {}],
        JSON.stringify(retries),
      );
      console.log(
        `flash sale: orders and prompts answered in ${soldIn} ms, order.paid delivered by ${deliveredIn} ms, ` +
          `client retries ${JSON.stringify(retries)}`,
      );
    });

    test("a client's 11th token request in one minute is refused whichever instance answers it", async () => {
      // A client of its own: its bucket (per client id and IP, in Redis) starts full.
      const client = await createClient(cluster.instances[0]!.urls.app, shop.organizationId, ['events:read']);
      const ask = () =>
        call(
          proxy.url,
          { method: 'POST', path: '/v1/oauth/token', form: { grant_type: 'client_credentials', ...client } },
          newRetries(),
          1,
        );
      const granted = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const answer = await ask();
        assert.equal(answer.status, 200, `request ${i + 1}: ${JSON.stringify(answer.json)}`);
        granted.add(answer.headers.get(UPSTREAM_HEADER)!);
      }
      assert.equal(granted.size, 3, 'the ten were answered by all three instances');
      // The 11th, 12th and 13th go to each instance in turn: each refuses.
      const refused = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const answer = await ask();
        assert.equal(answer.status, 429, `request ${11 + i}: ${JSON.stringify(answer.json)}`);
        assert.equal(answer.json.error, 'rate_limited');
        const retryAfter = Number(answer.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${answer.headers.get('retry-after')}`);
        refused.add(answer.headers.get(UPSTREAM_HEADER)!);
      }
      assert.deepEqual([...refused].sort(), ['0', '1', '2']);
    });

    test('each instance restarted in turn under steady load: 0 failed requests, 0 lost 2xx', async () => {
      const client = await createClient(cluster.instances[0]!.urls.app, shop.organizationId, [
        'checkout_sessions:write',
        'checkout_sessions:read',
      ]);
      const headers = { authorization: `Bearer ${await tokenFor(proxy.url, client)}` };
      const retries: Retries = newRetries();
      const created: Array<{ key: string; id: string }> = [];
      const failures: string[] = [];
      let running = true;
      let done = 0;

      // Six clients, each creating a session (a new key each time) and reading it back, nonstop.
      const worker = async (w: number) => {
        for (let n = 0; running; n++) {
          const key = `load-${w}-${n}`;
          try {
            const post = await call(
              proxy.url,
              {
                method: 'POST',
                path: '/v1/checkout-sessions',
                headers: { ...headers, 'idempotency-key': key },
                body: {
                  event_id: shop.openEventId,
                  on_success_url: `${SHOP_ORIGIN}/thanks`,
                  on_cancel_url: `${SHOP_ORIGIN}/cart`,
                },
              },
              retries,
            );
            if (post.status !== 201) throw new Error(`POST ${post.status} ${JSON.stringify(post.json)}`);
            created.push({ key, id: post.json.data.id });
            const get = await call(
              proxy.url,
              { path: `/v1/checkout-sessions/${post.json.data.id}`, headers },
              retries,
            );
            if (get.status !== 200) throw new Error(`GET ${get.status} ${JSON.stringify(get.json)}`);
            done++;
          } catch (error) {
            failures.push(`${key}: ${String(error)}`);
          }
        }
      };
      const load = Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));

      const restarts: Array<{
        instance: number;
        exitCode: number | null;
        stopMs: number;
        startMs: number;
        doneMeanwhile: number;
      }> = [];
      try {
        await sleep(1000);
        for (let i = 0; i < cluster.instances.length; i++) {
          const [started, doneBefore] = [Date.now(), done];
          const exitCode = await cluster.stop(i);
          const stopped = Date.now();
          await cluster.start(i);
          restarts.push({
            instance: i,
            exitCode,
            stopMs: stopped - started,
            startMs: Date.now() - stopped,
            doneMeanwhile: done - doneBefore,
          });
          await sleep(1000);
        }
      } finally {
        running = false;
        await load;
      }
      const context = () =>
        JSON.stringify({
          restarts,
          retries,
          failovers: proxy.failovers,
          badGateway: proxy.gatewayErrors,
        });
      assert.deepEqual(failures, [], context());
      // A retried POST answered as a replay would mean an instance did the work and its answer was
      // lost on the way out (shutdown dropping a response); retries must find nothing done.
      assert.equal(retries.replays, 0, context());
      for (const restart of restarts) {
        assert.equal(restart.exitCode, 0, `instance ${restart.instance} exited cleanly on SIGTERM`);
        assert.ok(
          restart.doneMeanwhile > 0,
          `load went on while instance ${restart.instance} restarted: ${context()}`,
        );
      }
      assert.ok(created.length > 50, `steady load: ${created.length} sessions`);

      // 0 lost 2xx: every session answered 201 is there, on whichever instance answers, and is the
      // only one its key made (a retry replayed it rather than making another).
      for (const { key, id } of created) {
        const get = await call(proxy.url, { path: `/v1/checkout-sessions/${id}`, headers });
        assert.equal(get.status, 200, `${key} -> ${id}: ${JSON.stringify(get.json)}`);
      }
      const db = postgres(cluster.databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const [row] = await db<{ n: number }[]>`
          SELECT count(*)::int AS n FROM checkout_sessions WHERE api_client_id = ${client.client_id}`;
        assert.equal(row!.n, created.length, 'one session per key');
      } finally {
        await db.end();
      }
      console.log(`rolling restart: ${created.length} sessions, ${context()}`);
    });
  },
);
