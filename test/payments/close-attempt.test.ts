// Closing a payment attempt for the buyer (close-attempt.ts): the prompt stops being open, so a new
// one may go out, but the attempt is still followed to a final answer: a success pays the order
// if it is still payable, and is listed for refund otherwise; a failure is shown to nobody. The
// simulator runs apart at real speed and sim.approve decides when the payer approves.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { cancelPendingOrder } from '../../src/orders/order-lifecycle.ts';
import { orders } from '../../src/orders/orders.schema.ts';
import { closePaymentAttempt } from '../../src/payments/close-attempt.ts';
import { listPaymentsNeedingRefund } from '../../src/payments/refunds.ts';
import { PROMPT_WINDOW_MS } from '../../src/payments/payment-schedule.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { sleep } from './payments-helpers.ts';

let sim: Simulator;
let h: Harness;
let partner: TestPartner;
let token: string;

before(async () => {
  sim = await startSimulator({ timeScale: 1 });
  h = await startHarness({ env: { SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '1', RUN_JOBS: 'false' } });
});
beforeEach(async () => {
  partner = await makePartner(h);
  token = await getToken(h, partner);
});
after(async () => {
  await h.close();
  await sim.close();
});

const db = () => h.service.ctx.database.db;
const ctx = () => h.service.ctx;

async function newOrder(capacity = 100) {
  const event = await makeEvent(h, partner, {
    ticket_types: [{ name: 'Run', price_minor: 30_000, capacity, distance_km: 10 }],
  });
  const [tt] = await db().select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id));
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(token),
    payload: {
      event_id: event.id,
      items: [{ ticket_type_id: tt!.id, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().data.id as string, ticketTypeId: tt!.id };
}

/** Pays and waits until the prompt is out; returns the attempt. */
async function pay(orderId: string, phone: string, method: 'momo' | 'airtel' = 'momo') {
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: bearer(token),
    payload: { payment_method: method, phone },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...ctx().gateway.inflight]);
  const attempt = (await attemptsOf(orderId)).at(-1)!;
  assert.equal(attempt.status, 'pending');
  return attempt;
}

function attemptsOf(orderId: string) {
  return db()
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId))
    .orderBy(paymentAttempts.createdAt);
}

async function orderRow(orderId: string) {
  const [row] = await db().select().from(orders).where(eq(orders.id, orderId));
  return row!;
}

function close(orderId: string, organizationId = partner.organizationId) {
  return closePaymentAttempt(ctx(), { organizationId, orderId, reason: 'closed by the buyer (test)' });
}

async function advanceAndRunJobs(ms: number) {
  h.clock.advance(ms);
  await h.service.jobs.runDue();
}

test('closes the open attempt once; with none open, or for another organization, it changes nothing', async () => {
  const order = await newOrder();
  const attempt = await pay(order.id, '0770000009');
  assert.equal(await close(order.id, 'org_someoneelse0000000000000'), null);
  assert.equal((await attemptsOf(order.id))[0]!.status, 'pending');

  const closed = await close(order.id);
  assert.equal(closed?.id, attempt.id);
  const [row] = await attemptsOf(order.id);
  assert.equal(row!.status, 'closed');
  assert.equal(row!.finalizedAt, null, 'not final: still followed');
  assert.equal(await close(order.id), null, 'nothing open any more');
  // A new prompt may now go out for the same order.
  await pay(order.id, '0700000009', 'airtel');
  assert.equal((await attemptsOf(order.id)).length, 2);
});

test('a closed attempt the payer then declines fails quietly: the buyer is shown no failure', async () => {
  const order = await newOrder();
  await pay(order.id, '0770000003'); // declined about 2 s after the prompt
  await close(order.id);
  await sleep(2_200);
  await advanceAndRunJobs(10_000);
  const [row] = await attemptsOf(order.id);
  assert.equal(row!.status, 'failed');
  assert.equal(row!.failureKind, 'payment_declined');
  const after = await orderRow(order.id);
  assert.equal(after.status, 'pending');
  assert.equal(after.failureKind, null);
});

test('a closed attempt approved after the prompt window and the hold is honoured while capacity remains', async () => {
  const order = await newOrder();
  const attempt = await pay(order.id, '0770000002');
  await close(order.id);
  await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
  assert.equal((await attemptsOf(order.id))[0]!.status, 'closed', 'not timed out: it was closed');
  await advanceAndRunJobs(16 * 60_000);
  assert.equal((await orderRow(order.id)).status, 'expired');
  assert.ok(sim.approve(attempt.reference));
  await advanceAndRunJobs(60 * 60_000);
  assert.equal((await attemptsOf(order.id))[0]!.status, 'successful');
  assert.equal((await orderRow(order.id)).status, 'paid');
});

test('a closed attempt approved after its order was cancelled is recorded for refund, never dropped', async () => {
  const order = await newOrder();
  const attempt = await pay(order.id, '0770000002');
  await close(order.id);
  await h.service.ctx.database.transaction((tx) => cancelPendingOrder(tx, order.id, h.clock.now()));
  assert.ok(sim.approve(attempt.reference));
  await advanceAndRunJobs(60_000);
  assert.equal((await orderRow(order.id)).status, 'cancelled');
  assert.equal((await orderRow(order.id)).paidAfterExpiry, true);
  const { payments } = await listPaymentsNeedingRefund(db(), partner.organizationId);
  assert.deepEqual(
    payments.map((p) => [p.reason, p.attempt.reference]),
    [['paid_after_expiry', attempt.reference]],
  );
});

test('an attempt closed while its prompt was being sent stays closed, and its success still pays', async () => {
  const order = await newOrder();
  // Scenario 11: the provider takes the prompt but its answer is lost (the adapter times out).
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${order.id}/pay`,
    headers: bearer(token),
    payload: { payment_method: 'momo', phone: '0770000011' },
  });
  assert.equal(res.statusCode, 202, res.body);
  const closed = await close(order.id);
  assert.equal(closed?.status, 'submitting');
  await Promise.allSettled([...ctx().gateway.inflight]);
  assert.equal((await attemptsOf(order.id))[0]!.status, 'closed', 'the lost answer does not reopen it');
  await sleep(2_200); // the payment succeeds at the provider
  await advanceAndRunJobs(10_000);
  assert.equal((await attemptsOf(order.id))[0]!.status, 'successful');
  assert.equal((await orderRow(order.id)).status, 'paid');
});
