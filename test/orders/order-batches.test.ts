// Orders written in batches (src/orders/order-batches.ts): orders planned in the same turn of the
// event loop for the same ticket types share one statement (one ticket type) or one transaction
// (several), and one update per ticket type; a batch wanting more tickets
// than are left is written with the ticket type rows locked first, so that the orders that fit are
// created together and each of the rest gets its own refusal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { killBackendBlockedBy } from '../helpers/postgres.ts';
import { planOrder, type OrderPlan } from '../../src/orders/plan-order.ts';
import { writeOrders } from '../../src/orders/write-orders.ts';
import type { Tx } from '../../src/platform/db.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { isCapacityRefusal } from '../../src/events/inventory.ts';
import { writeOrderInBatch } from '../../src/orders/order-batches.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import {
  BUYER,
  expectCreated,
  HARNESS_ENV,
  orderBody,
  orderPaidRows,
  postOrder,
  readEventOnSale,
  ticketCounts,
  ticketTypeIds,
} from './order-helpers.ts';

let h: Harness;
let partner: TestPartner;
let auth: Record<string, string>;

before(async () => {
  h = await startHarness({ env: HARNESS_ENV });
  partner = await makePartner(h);
  auth = bearer(await getToken(h, partner));
});
after(() => h.close());

async function eventWith(ticketTypes: Array<{ price_minor: number; capacity: number }>) {
  const event = await makeEvent(h, partner, {
    ticket_types: ticketTypes.map((t, i) => ({ name: `Race ${i + 1}`, distance_km: 5 + i, ...t })),
  });
  return { eventId: event.id, tts: await ticketTypeIds(h, event.id) };
}

/**
 * Plans of orders from one read of the event (all counted last while it showed room): one ticket
 * of each ticket type named, one order per entry.
 */
async function plans(eventId: string, orders: Array<string | string[]>): Promise<OrderPlan[]> {
  const ctx = h.service.ctx;
  const found = await readEventOnSale(h, partner, eventId);
  return orders.map((tickets, i) =>
    planOrder(ctx, {
      organizationId: partner.organizationId,
      apiClientId: partner.clientId,
      session: null,
      input: {
        event_id: eventId,
        items: [tickets]
          .flat()
          .map((tt, j) => ({ ticket_type_id: tt, participant_name: `Runner ${i}.${j}` })),
        buyer: BUYER,
      },
      found,
    }),
  );
}

/**
 * Counts the one-statement writes and the transactions of ctx.database while `work` runs. The API
 * request log writes on a timer of its own, so it is written out and paused meanwhile.
 */
async function countingWrites<T>(work: () => Promise<T>) {
  const database = h.service.ctx.database;
  const { requestLog } = h.service.ctx;
  await requestLog.close();
  const { write, transaction } = database;
  const seen = { statements: 0, transactions: 0 };
  database.write = (query) => {
    seen.statements++;
    return write(query);
  };
  database.transaction = (body) => {
    seen.transactions++;
    return transaction(body);
  };
  try {
    return { value: await work(), ...seen };
  } finally {
    Object.assign(database, { write, transaction });
    requestLog.start();
  }
}

/** A parenthesised SQL list of ids (made by the service: no quoting needed). */
const idList = (ids: string[]) => sql.raw(`(${ids.map((id) => `'${id}'`).join(', ')})`);

/** The transaction that wrote each order (PostgreSQL's xmin of its row). */
async function writtenBy(orderIds: string[]): Promise<string[]> {
  const rows = await h.service.ctx.database.rows<{ id: string; x: string }>(
    sql`SELECT id, xmin::text AS x FROM orders WHERE id IN ${idList(orderIds)}`,
  );
  const by = new Map(rows.map((r) => [r.id, r.x]));
  return orderIds.map((id) => by.get(id)!);
}

describe('orders written in batches', () => {
  test('orders of one ticket type planned in the same turn are written in one statement, their tickets all counted', async () => {
    const { eventId, tts } = await eventWith([{ price_minor: 20000, capacity: 10 }]);
    const [tt] = tts as [string];
    const batch = await plans(eventId, [tt, tt, tt, tt]);
    assert.ok(batch.every((p) => p.countLast));
    const {
      value: created,
      statements,
      transactions,
    } = await countingWrites(() => Promise.all(batch.map((p) => writeOrderInBatch(h.service.ctx, p))));
    assert.deepEqual({ statements, transactions }, { statements: 1, transactions: 0 });
    const xids = await writtenBy(created.map((c) => c.order.id));
    assert.equal(new Set(xids).size, 1, `one transaction for the batch: ${xids.join(' ')}`);
    const [counted] = await h.service.ctx.database.rows<{ x: string }>(
      sql`SELECT xmin::text AS x FROM ticket_types WHERE id = ${tt}`,
    );
    assert.equal(counted!.x, xids[0], 'the tickets are counted by the same statement');
    assert.deepEqual(await ticketCounts(h, tt), { held: 4, paid: 0 });
    assert.ok(created.every((c) => c.order.status === 'pending' && c.registrations.length === 1));
  });

  test('orders planned in the same turn are batched by their ticket types, free ones paid with their order.paid', async () => {
    const { eventId, tts } = await eventWith([
      { price_minor: 0, capacity: 10 },
      { price_minor: 20000, capacity: 10 },
    ]);
    const [free, paid] = tts as [string, string];
    const batch = await plans(eventId, [free, paid, free, [free, paid], paid, free, [free, paid]]);
    const {
      value: created,
      statements,
      transactions,
    } = await countingWrites(() => Promise.all(batch.map((p) => writeOrderInBatch(h.service.ctx, p))));
    // a statement each for the free and the paid ticket type; both in one order take a transaction
    assert.deepEqual({ statements, transactions }, { statements: 2, transactions: 1 });
    const xids = await writtenBy(created.map((c) => c.order.id));
    const byBatch = (picks: number[]) => new Set(picks.map((i) => xids[i])).size;
    assert.equal(byBatch([0, 2, 5]), 1);
    assert.equal(byBatch([1, 4]), 1);
    assert.equal(byBatch([3, 6]), 1);
    assert.equal(new Set(xids).size, 3, `three batches: ${xids.join(' ')}`);
    assert.deepEqual(
      created.map((c) => c.order.status),
      ['paid', 'pending', 'paid', 'pending', 'pending', 'paid', 'pending'],
    );
    assert.deepEqual(await ticketCounts(h, free), { held: 2, paid: 3 });
    assert.deepEqual(await ticketCounts(h, paid), { held: 4, paid: 0 });
    // each free order has its own order.paid, as a lone one does
    for (const c of created.filter((c) => c.order.status === 'paid')) {
      assert.equal((await orderPaidRows(h, c.order.id)).length, 1);
    }
  });

  test('the rows of a batch go out in one statement per table, whatever the number of orders', async () => {
    const { eventId, tts } = await eventWith([
      { price_minor: 0, capacity: 10 },
      { price_minor: 20000, capacity: 10 },
    ]);
    const [free, paid] = tts as [string, string];
    const batch = await plans(eventId, [free, paid, free, paid, free, paid]);
    const ctx = h.service.ctx;
    let statements = 0;
    const ids = await ctx.database.transaction(async (tx) => {
      const counting = new Proxy(tx, {
        get(target, name, receiver) {
          if (name !== 'execute') return Reflect.get(target, name, receiver) as unknown;
          return (...args: Parameters<Tx['execute']>) => {
            statements++;
            return target.execute(...args);
          };
        },
      });
      const created = writeOrders(ctx, counting, batch);
      await Promise.all(created.map((c) => c.written));
      return created.map((c) => c.order.id);
    });
    // orders, registrations, the free orders' order.paid rows, the pending orders' expiry jobs
    assert.equal(statements, 4);
    const [counted] = await ctx.database.rows<{ orders: number; regs: number; outbox: number; jobs: number }>(
      sql`SELECT (SELECT count(*)::int FROM orders WHERE id IN ${idList(ids)}) AS orders,
            (SELECT count(*)::int FROM registrations WHERE order_id IN ${idList(ids)}) AS regs,
            (SELECT count(*)::int FROM outbox_events WHERE payload->'data'->>'id' IN ${idList(ids)}) AS outbox,
            (SELECT count(*)::int FROM jobs WHERE dedupe_key IN ${idList(ids.map((id) => `hold:${id}`))}) AS jobs`,
    );
    assert.deepEqual(counted, { orders: 6, regs: 6, outbox: 3, jobs: 3 });
  });

  /** Settles the orders of one batch: the created, and the reasons of the refused. */
  async function writeAll(batch: OrderPlan[]) {
    const outcomes = await Promise.allSettled(batch.map((p) => writeOrderInBatch(h.service.ctx, p)));
    return {
      created: outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : [])),
      refused: outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : [])),
      createdAt: outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : [])),
    };
  }

  const isSoldOut = (error: unknown) => error instanceof ApiError && error.code === 'sold_out';

  test('a batch wanting more tickets than its reads showed left: those that fit are created together, the rest sold out', async () => {
    const { eventId, tts } = await eventWith([{ price_minor: 0, capacity: 3 }]);
    const [tt] = tts as [string];
    const batch = await plans(eventId, [tt, tt, tt, tt, tt]); // all read while 3 were left
    const { created, refused, createdAt } = await writeAll(batch);
    assert.deepEqual(createdAt, [0, 1, 2], 'the first three, in the order they came');
    assert.equal(refused.length, 2);
    for (const error of refused) assert.ok(isSoldOut(error), String(error));
    const xids = await writtenBy(created.map((c) => c.order.id));
    assert.equal(new Set(xids).size, 1, `one transaction for those that fit: ${xids.join(' ')}`);
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 3 });
  });

  test('a batch refused by the capacity CHECK is written again with the rows locked', async () => {
    const { eventId, tts } = await eventWith([{ price_minor: 0, capacity: 3 }]);
    const [tt] = tts as [string];
    const batch = await plans(eventId, [tt, tt, tt]); // read while 3 were left: no overflow as read
    // another buyer takes one seat after those reads
    expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    const { created, refused, createdAt } = await writeAll(batch);
    assert.deepEqual(createdAt, [0, 1]);
    assert.equal(refused.length, 1);
    assert.ok(isSoldOut(refused[0]), String(refused[0]));
    assert.equal(new Set(await writtenBy(created.map((c) => c.order.id))).size, 1);
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 3 });
  });

  test('while holds could lapse, an order that does not fit is refused as by the CHECK, to be run again alone', async () => {
    const { eventId, tts } = await eventWith([{ price_minor: 20000, capacity: 3 }]);
    const [tt] = tts as [string];
    expectCreated(await postOrder(h, auth, orderBody(eventId, [tt]))); // a pending hold
    const batch = await plans(eventId, [tt, tt, tt]); // read while 2 were left
    const { created, refused, createdAt } = await writeAll(batch);
    assert.deepEqual(createdAt, [0, 1]);
    assert.equal(created.length, 2);
    assert.equal(refused.length, 1);
    assert.ok(isCapacityRefusal(refused[0]), String(refused[0]));
    assert.deepEqual(await ticketCounts(h, tt), { held: 3, paid: 0 });
  });

  test('through the API, a refusal in a batch answers sold_out and the rest are created', async () => {
    const { eventId, tts } = await eventWith([{ price_minor: 0, capacity: 4 }]);
    const [tt] = tts as [string];
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => postOrder(h, auth, orderBody(eventId, [tt]))),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [...Array(4).fill(201), ...Array(8).fill(409)]);
    for (const a of answers.filter((a) => a.statusCode === 409)) {
      assert.equal((a.json() as { error_code: string }).error_code, 'sold_out');
    }
    for (const a of answers.filter((a) => a.statusCode === 201)) expectCreated(a);
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 4 });
  });

  test(
    'a batch whose connection is lost fails its orders and writes none of them again',
    { skip: process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (a backend to kill)' },
    async () => {
      const { eventId, tts } = await eventWith([{ price_minor: 0, capacity: 10 }]);
      const [tt] = tts as [string];
      const ctx = h.service.ctx;
      const batch = await plans(eventId, [tt, tt, tt]);
      // Another transaction holds the ticket type row, so the batch waits in PostgreSQL with its
      // COMMIT already sent; then its backend is killed. It may have committed for all the service
      // can tell, so nothing may be written twice.
      let unlock!: () => void;
      const unlocked = new Promise<void>((resolve) => (unlock = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      let holderPid = 0;
      const holder = ctx.database.transaction(async (tx) => {
        const [row] = await ctx.database.rows<{ pid: number }>(
          sql`SELECT pg_backend_pid() AS pid FROM ticket_types WHERE id = ${tt} FOR UPDATE`,
          tx,
        );
        holderPid = Number(row!.pid);
        locked();
        await unlocked;
      });
      await isLocked;
      const outcomes = Promise.allSettled(batch.map((p) => writeOrderInBatch(ctx, p)));
      try {
        const killed = await killBackendBlockedBy(ctx.database, holderPid);
        assert.equal(killed, 1, 'the batch was waiting for the row');
      } finally {
        unlock();
        await holder;
      }
      const settled = await outcomes;
      assert.ok(
        settled.every((o) => o.status === 'rejected'),
        'every order of the batch fails',
      );
      assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 0 });
      const [row] = await ctx.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM orders WHERE event_id = ${eventId}`,
      );
      assert.equal(Number(row!.n), 0, 'no order written again');
    },
  );
});
