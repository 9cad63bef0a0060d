// Holds and the order lifecycle: a pending order holds its tickets for 15 minutes, then expires and
// releases them; a lapsed hold never blocks a new buyer; a checkout session has at most one pending
// order; paying is exactly-once (one order.paid row) and a late payment is honoured or recorded.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { findCheckoutSession, type CheckoutSessionRow } from '../../src/checkout/sessions.ts';
import { createOrder, createPlannedOrder, runOrderTransaction } from '../../src/orders/create-order.ts';
import type { OrderItemInput } from '../../src/orders/order-in.ts';
import { planOrder } from '../../src/orders/plan-order.ts';
import { isCapacityRefusal } from '../../src/events/inventory.ts';
import type { Tx } from '../../src/platform/db.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { loadOrderOut, type OrderOut } from '../../src/orders/order-out.ts';
import { orders } from '../../src/orders/orders.schema.ts';
import { settleOrderPaid } from '../../src/payments/settle-payment.ts';
import { prepareSession } from '../../src/site/place-order.ts';
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
  DAY_MS,
  expectCreated,
  expectError,
  expectNothingWritten,
  getOrder,
  HARNESS_ENV,
  MINUTE_MS,
  orderBody,
  orderPaidRows,
  postOrder,
  readEventOnSale,
  runDueJobs,
  snapshot,
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
afterEach(() => {
  h.clock.offsetMs = 0;
});
after(() => h.close());

/** An event with one paid ticket type of this capacity. */
async function eventWithCapacity(capacity: number) {
  const event = await makeEvent(h, partner, {
    ticket_types: [{ name: '10 km', price_minor: 30000, capacity, distance_km: 10 }],
  });
  const [tt] = (await ticketTypeIds(h, event.id)) as [string];
  return { eventId: event.id, tt };
}

async function remaining(eventId: string): Promise<number> {
  const res = await h.service.api.inject({ method: 'GET', url: `/v1/events/${eventId}`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data.ticket_types[0] as { remaining: number }).remaining;
}

async function readOrder(id: string): Promise<OrderOut> {
  const res = await getOrder(h, auth, id);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { data: OrderOut }).data;
}

async function orderRow(id: string) {
  const [row] = await h.service.ctx.database.db.select().from(orders).where(eq(orders.id, id));
  return row!;
}

async function pay(orderId: string) {
  const ctx = h.service.ctx;
  return ctx.database.transaction((tx) => settleOrderPaid(tx, orderId, ctx.clock.now()));
}

async function newSession(eventId: string): Promise<CheckoutSessionRow> {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: auth,
    payload: {
      event_id: eventId,
      on_success_url: 'https://shop.example.org/thanks',
      on_cancel_url: 'https://shop.example.org/cart',
      client_reference_id: 'cart-7',
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const session = await findCheckoutSession(
    h.service.ctx.database.db,
    partner.organizationId,
    res.json().data.id,
  );
  return session!;
}

/** An order attempt inside a checkout session, as the hosted checkout page makes it (placeOrder). */
async function sessionAttempt(session: CheckoutSessionRow, tt: string, quantity: number) {
  const ctx = h.service.ctx;
  const items: OrderItemInput[] = Array.from({ length: quantity }, (_, i) => ({
    ticket_type_id: tt,
    participant_name: `Runner ${i + 1}`,
  }));
  const found = await readEvent(session.eventId);
  const row = await runOrderTransaction((takeFirst) =>
    ctx.database.transaction(async (tx) => {
      const plan = planOrder(ctx, {
        organizationId: partner.organizationId,
        apiClientId: partner.clientId,
        session,
        input: { event_id: session.eventId, items, buyer: BUYER },
        found,
        takeFirst,
      });
      await prepareSession(tx, session.id, plan.now);
      const created = await createPlannedOrder(ctx, tx, plan);
      await created.written;
      return created.order;
    }),
  );
  return loadOrderOut(ctx.database.db, row);
}

/**
 * A headless order for one ticket of `tt`, from the event as read by `found` (possibly stale).
 * Reports each run runOrderTransaction made: its takeFirst and how it failed.
 */
async function orderFromRead(
  found: Awaited<ReturnType<typeof readEventOnSale>>,
  eventId: string,
  tt: string,
) {
  const ctx = h.service.ctx;
  const runs: Array<{ takeFirst: boolean; error: unknown }> = [];
  const result = await runOrderTransaction(async (takeFirst) => {
    try {
      return await ctx.database.transaction(async (tx) => {
        const created = await createOrder(ctx, tx, {
          organizationId: partner.organizationId,
          apiClientId: partner.clientId,
          session: null,
          input: {
            event_id: eventId,
            items: [{ ticket_type_id: tt, participant_name: 'Late' }],
            buyer: BUYER,
          },
          found,
          takeFirst,
        });
        await created.written;
        return created.order;
      });
    } catch (error) {
      runs.push({ takeFirst, error });
      throw error;
    }
  }).catch((error: unknown) => error);
  return { result, runs };
}

function readEvent(eventId: string) {
  return readEventOnSale(h, partner, eventId);
}

async function readSession(id: string, headers = auth) {
  const res = await h.service.api.inject({ method: 'GET', url: `/v1/checkout-sessions/${id}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { status: string; order: { id: string; status: string; code: string } | null };
}

describe('holds', () => {
  test('a pending order holds its tickets for 15 minutes, then expires and releases them', async () => {
    const { eventId, tt } = await eventWithCapacity(100);
    assert.equal(await remaining(eventId), 100);
    const order = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt, tt, tt])));
    assert.equal(await remaining(eventId), 97, 'the hold takes the tickets off sale');
    assert.deepEqual(await ticketCounts(h, tt), { held: 3, paid: 0 });

    const holdEnds = Date.parse(order.hold_expires_at!);
    assert.equal(
      holdEnds - Date.parse(order.created_at),
      15 * MINUTE_MS,
      'the hold lasts the full 15 minutes',
    );

    // The clock runs with real time, so the margins leave room for a slow machine.
    h.clock.advance(holdEnds - 30_000 - h.clock.now().getTime());
    await runDueJobs(h);
    assert.equal((await readOrder(order.id)).status, 'pending', 'the hold lasts until hold_expires_at');
    assert.equal(await remaining(eventId), 97);

    h.clock.advance(31_000);
    await runDueJobs(h);
    const expired = await readOrder(order.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.failure_kind, 'hold_expired');
    assert.equal(expired.hold_expires_at, null, 'only a pending order carries hold_expires_at');
    assert.deepEqual(
      expired.registrations.map((r) => r.status),
      ['cancelled', 'cancelled', 'cancelled'],
    );
    assert.equal(await remaining(eventId), 100, 'the tickets are back on sale');
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 0 });
  });

  test('a lapsed hold not yet swept does not block a new buyer', async () => {
    const { eventId, tt } = await eventWithCapacity(1);
    const a = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    const refused = await expectNothingWritten(h, () => postOrder(h, auth, orderBody(eventId, [tt])));
    expectError(refused, 409, 'sold_out', 'a live hold blocks');

    h.clock.advance(16 * MINUTE_MS); // no runDue: the hold has lapsed but nobody swept it
    const b = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    assert.equal(b.status, 'pending');
    const lapsed = await readOrder(a.id);
    assert.equal(lapsed.status, 'expired');
    assert.equal(lapsed.failure_kind, 'hold_expired');
    assert.deepEqual(
      lapsed.registrations.map((r) => r.status),
      ['cancelled'],
    );
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 }, 'only B holds the seat');

    await runDueJobs(h); // A's own expiry job now finds nothing to do
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 });
    assert.equal((await readOrder(b.id)).status, 'pending');
  });
});

describe('tickets counted after the order is written', () => {
  test('when others took the room after the event was read: the CHECK refuses, the second run answers sold_out, nothing is written', async () => {
    const { eventId, tt } = await eventWithCapacity(1);
    const stale = await readEvent(eventId); // shows the one seat
    expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    const { result, runs } = await expectNothingWritten(h, () => orderFromRead(stale, eventId, tt));
    assert.ok(result instanceof ApiError, String(result));
    assert.equal(result.code, 'sold_out');
    assert.equal(runs.length, 2);
    assert.equal(runs[0]!.takeFirst, false, 'first run: counted last, as the read showed room');
    assert.ok(isCapacityRefusal(runs[0]!.error), `the capacity CHECK refused: ${String(runs[0]!.error)}`);
    assert.equal(runs[1]!.takeFirst, true);
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 });
  });

  test('the second run takes the seat of a lapsed hold not yet swept', async () => {
    const { eventId, tt } = await eventWithCapacity(1);
    const stale = await readEvent(eventId);
    const a = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    h.clock.advance(16 * MINUTE_MS); // A's hold has lapsed; nobody swept it
    const { result, runs } = await orderFromRead(stale, eventId, tt);
    assert.ok(!(result instanceof Error), String(result));
    assert.equal((result as { status: string }).status, 'pending');
    assert.equal(runs.length, 1, 'only the first run failed');
    assert.ok(isCapacityRefusal(runs[0]!.error));
    assert.equal((await readOrder(a.id)).status, 'expired');
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 });
  });

  test('an order whose read shows room is counted last and needs one run', async () => {
    const { eventId, tt } = await eventWithCapacity(2);
    const { result, runs } = await orderFromRead(await readEvent(eventId), eventId, tt);
    assert.ok(!(result instanceof Error), String(result));
    assert.equal(runs.length, 0);
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 });
  });
});

describe('sold out as read', () => {
  test('a ticket type sold out with no hold that could lapse refuses the order before any statement', async () => {
    const { eventId, tt } = await eventWithCapacity(1);
    const first = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    assert.equal((await pay(first.id)).kind, 'paid');
    const found = await readEvent(eventId);
    const used: string[] = [];
    const tx = new Proxy({} as Tx, {
      get(_, property) {
        used.push(String(property));
        throw new Error(`a statement was made (tx.${String(property)})`);
      },
    });
    const ctx = h.service.ctx;
    await assert.rejects(
      createOrder(ctx, tx, {
        organizationId: partner.organizationId,
        apiClientId: partner.clientId,
        session: null,
        input: { event_id: eventId, items: [{ ticket_type_id: tt, participant_name: 'Late' }], buyer: BUYER },
        found,
      }),
      (error: unknown) => error instanceof ApiError && error.code === 'sold_out',
    );
    assert.deepEqual(used, []);
  });
});

describe('orders of a checkout session', () => {
  test('a second attempt cancels the first pending order and never double-holds', async () => {
    const { eventId, tt } = await eventWithCapacity(2);
    const session = await newSession(eventId);
    const first = await sessionAttempt(session, tt, 2);
    assert.equal(first.status, 'pending');
    assert.deepEqual(first.attribution, {
      channel: 'partner_api',
      api_client_id: partner.clientId,
      checkout_session_id: session.id,
      partner_reference: 'cart-7',
    });
    assert.deepEqual(await ticketCounts(h, tt), { held: 2, paid: 0 });

    // Both seats are taken by the first attempt: the second fits only because the first is released.
    const second = await sessionAttempt(session, tt, 2);
    assert.equal(second.status, 'pending');
    assert.deepEqual(await ticketCounts(h, tt), { held: 2, paid: 0 }, 'held = the second order only');
    const cancelled = await readOrder(first.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(
      cancelled.registrations.map((r) => r.status),
      ['cancelled', 'cancelled'],
    );

    const third = await sessionAttempt(session, tt, 1);
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 });
    assert.equal((await readOrder(second.id)).status, 'cancelled');
    assert.deepEqual((await readSession(session.id)).order, {
      id: third.id,
      status: 'pending',
      code: third.order_code,
    });
  });

  test('an attempt refused as sold out keeps the previous attempt and its hold', async () => {
    const { eventId, tt } = await eventWithCapacity(2);
    const session = await newSession(eventId);
    const first = await sessionAttempt(session, tt, 2);
    const before = await snapshot(h);
    await assert.rejects(sessionAttempt(session, tt, 3), { code: 'sold_out', status: 409 });
    assert.deepEqual(await snapshot(h), before);
    assert.equal((await readOrder(first.id)).status, 'pending');
    assert.deepEqual(await ticketCounts(h, tt), { held: 2, paid: 0 });
  });

  test('paying a session order: order paid, registrations confirmed, session complete, one order.paid row', async () => {
    const { eventId, tt } = await eventWithCapacity(10);
    const session = await newSession(eventId);
    const order = await sessionAttempt(session, tt, 2);
    assert.equal((await readSession(session.id)).status, 'open');

    const outcome = await pay(order.id);
    assert.equal(outcome.kind, 'paid');
    assert.equal(outcome.order.status, 'paid');
    const paid = await readOrder(order.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.failure_kind, null);
    assert.equal(paid.hold_expires_at, null);
    assert.deepEqual(
      paid.registrations.map((r) => r.status),
      ['confirmed', 'confirmed'],
    );
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 2 });
    const read = await readSession(session.id);
    assert.equal(read.status, 'complete');
    assert.deepEqual(read.order, { id: order.id, status: 'paid', code: order.order_code });
    const rows = await orderPaidRows(h, order.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.type, 'order.paid');
    assert.deepEqual(rows[0]!.payload.data, paid, 'the webhook carries the paid Order');

    const again = await pay(order.id);
    assert.equal(again.kind, 'already_paid');
    assert.equal((await orderPaidRows(h, order.id)).length, 1, 'no second order.paid row');
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 2 }, 'no ticket counted twice');
  });

  test('a complete session refuses new orders with 409 conflict', async () => {
    const { eventId, tt } = await eventWithCapacity(10);
    const session = await newSession(eventId);
    const order = await sessionAttempt(session, tt, 1);
    assert.equal((await pay(order.id)).kind, 'paid');
    const before = await snapshot(h);
    await assert.rejects(sessionAttempt(session, tt, 1), { code: 'conflict', status: 409 });
    assert.deepEqual(await snapshot(h), before);
    assert.equal((await readOrder(order.id)).status, 'paid', 'the paid order is untouched');
  });

  test('an expired session refuses new orders with 409 conflict', async () => {
    const { eventId, tt } = await eventWithCapacity(10);
    const session = await newSession(eventId);
    h.clock.advance(DAY_MS + 1000);
    const before = await snapshot(h);
    await assert.rejects(sessionAttempt(session, tt, 1), { code: 'conflict', status: 409 });
    assert.deepEqual(await snapshot(h), before);
    const fresh = bearer(await getToken(h, partner));
    assert.equal((await readSession(session.id, fresh)).status, 'expired');
  });
});

describe('late payment', () => {
  test('a payment confirmed after the hold expired is honoured when capacity remains', async () => {
    const { eventId, tt } = await eventWithCapacity(5);
    const order = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt, tt])));
    h.clock.advance(15 * MINUTE_MS + 1000);
    await runDueJobs(h);
    assert.equal((await readOrder(order.id)).status, 'expired');
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 0 });

    const outcome = await pay(order.id);
    assert.equal(outcome.kind, 'paid');
    const paid = await readOrder(order.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.failure_kind, null);
    assert.deepEqual(
      paid.registrations.map((r) => r.status),
      ['confirmed', 'confirmed'],
    );
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 2 });
    assert.equal((await orderPaidRows(h, order.id)).length, 1);
    assert.equal((await orderRow(order.id)).paidAfterExpiry, false);
  });

  test('with no capacity left it is recorded as paid_after_expiry, never oversold nor dropped', async () => {
    const { eventId, tt } = await eventWithCapacity(1);
    const a = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    h.clock.advance(16 * MINUTE_MS);
    const b = expectCreated(await postOrder(h, auth, orderBody(eventId, [tt])));
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 });

    const outcome = await pay(a.id);
    assert.equal(outcome.kind, 'paid_after_expiry');
    const row = await orderRow(a.id);
    assert.equal(row.paidAfterExpiry, true, 'recorded for refund');
    assert.equal(row.status, 'expired');
    assert.equal((await readOrder(a.id)).status, 'expired');
    assert.deepEqual(await ticketCounts(h, tt), { held: 1, paid: 0 }, 'counts unchanged');
    assert.deepEqual(await orderPaidRows(h, a.id), [], 'no order.paid for a seat it did not get');

    assert.equal((await pay(b.id)).kind, 'paid', 'the buyer holding the seat still pays');
    assert.deepEqual(await ticketCounts(h, tt), { held: 0, paid: 1 });
  });
});
