// Collecting a payment when callbacks are forged and answers come late: callbacks are hints that
// never touch the job's schedule, the job keeps asking the provider for 24 hours after the buyer
// was told the prompt timed out, a late success pays the order or is listed for refund (admin API
// and CLI), and a total above a provider's maximum is refused before any prompt. The simulator
// runs apart (SIMULATOR_URL) so the test can see what it received and approve a payment when the
// test says; the service clock is moved instead of waiting.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { runCli } from '../../src/cli/cli.ts';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { cancelPendingOrder } from '../../src/orders/order-lifecycle.ts';
import { orders } from '../../src/orders/orders.schema.ts';
import { CALLBACK_QUERY_SPACING_MS } from '../../src/payments/note-callback.ts';
import { PROMPT_WINDOW_MS } from '../../src/payments/payment-schedule.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  TEST_ADMIN_KEY,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NO_FEES = { momo: { percent_bp: 0, fixed_minor: 0 }, airtel: { percent_bp: 0, fixed_minor: 0 } };
const buyer = { name: 'Ann', email: 'ann@example.org', phone: '0772123456' };

let sim: Simulator;
let h: Harness;
let appUrl: string;
let partner: TestPartner;
let token = '';
let tokenAt = 0;

before(async () => {
  // Real time only for HTTP; the simulator settles nothing on its own within a test (02 takes 25 s).
  sim = await startSimulator({ timeScale: 1 });
  h = await startHarness({
    env: {
      SIMULATOR_URL: sim.url,
      PAYMENT_TIME_SCALE: '1',
      RUN_JOBS: 'false',
      MOMO_MAX_AMOUNT: '100000',
      AIRTEL_MAX_AMOUNT: '150000',
      RATE_LIMIT_CALLBACK_RATE: '5',
      RATE_LIMIT_CALLBACK_BURST: '20',
    },
  });
  appUrl = (await h.service.listen({ api: 0, site: 0, app: 0 })).app;
});
// Each test its own organization.
beforeEach(async () => {
  partner = await makePartner(h, { fees: NO_FEES });
  token = '';
});
after(async () => {
  await h.close();
  await sim.close();
});

const db = () => h.service.ctx.database.db;

/** A bearer token, minted again once the moved clock has aged it (tokens live an hour). */
async function auth() {
  if (!token || h.clock.now().getTime() - tokenAt > 30 * MINUTE) {
    token = await getToken(h, partner);
    tokenAt = h.clock.now().getTime();
  }
  return bearer(token);
}

/** A new event with one ticket type; returns its ids. */
async function newEvent(priceMinor = 30_000, capacity = 100) {
  const event = await makeEvent(h, partner, {
    ticket_types: [{ name: 'Run', price_minor: priceMinor, capacity, distance_km: 10 }],
  });
  const [tt] = await db().select().from(ticketTypes).where(eq(ticketTypes.eventId, event.id));
  return { eventId: event.id, ticketTypeId: tt!.id };
}

async function newOrder(ticket: { eventId: string; ticketTypeId: string }, quantity = 1) {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: await auth(),
    payload: {
      event_id: ticket.eventId,
      items: Array.from({ length: quantity }, () => ({
        ticket_type_id: ticket.ticketTypeId,
        participant_name: 'Ann',
      })),
      buyer,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; total: number };
}

async function pay(orderId: string, method: 'momo' | 'airtel', phone: string) {
  return h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: await auth(),
    payload: { payment_method: method, phone },
  });
}

async function readOrder(orderId: string) {
  const res = await h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: await auth() });
  return res.json().data as { status: string; failure_kind: string | null };
}

async function orderRow(orderId: string) {
  const [row] = await db().select().from(orders).where(eq(orders.id, orderId));
  return row!;
}

async function attemptsOf(orderId: string) {
  return db()
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId))
    .orderBy(paymentAttempts.createdAt);
}

/** Pays and waits until the prompt is out (the attempt pending); returns the attempt's reference. */
async function payAndWait(orderId: string, method: 'momo' | 'airtel', phone: string): Promise<string> {
  const res = await pay(orderId, method, phone);
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const attempt = (await attemptsOf(orderId)).at(-1)!;
  assert.equal(attempt.status, 'pending');
  return attempt.reference;
}

/** Moves the service clock and runs every job then due (the payment job, hold expiry, ...). */
async function advanceAndRunJobs(ms: number) {
  h.clock.advance(ms);
  await h.service.jobs.runDue();
}

/** A client address of its own per test (loopback), so per-IP callback limits never mix. */
function loopbackIp() {
  return `127.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
}

function callback(
  method: 'momo' | 'airtel',
  reference: string,
  ip: string,
  verb: 'PUT' | 'POST' = method === 'momo' ? 'PUT' : 'POST',
) {
  return h.service.api.inject({
    method: verb,
    url: `/v1/payment-callbacks/${method}/${reference}`,
    headers: { 'content-type': 'application/json' },
    payload: '{}',
    remoteAddress: ip,
  });
}

/** Waits for the status queries callbacks started in the background. */
async function callbackQueriesDone() {
  for (let i = 0; i < 100 && h.service.ctx.gateway.hinted.size > 0; i++) {
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  }
}

async function refundList(organizationId = partner.organizationId) {
  const res = await h.service.app.inject({
    url: `/admin/v1/organizations/${organizationId}/payments/needs-refund`,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    payments: Array<Record<string, unknown> & { order_id: string; reason: string }>;
    has_more: boolean;
  };
}

async function cliOutput(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { APP_URL: appUrl, ADMIN_API_KEY: TEST_ADMIN_KEY },
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  assert.equal(code, 0, stderr);
  return stdout;
}

describe('forged callbacks', () => {
  test('a burst of 60 forged callbacks uses no poll, and the payment the provider then settles pays the order', async () => {
    const order = await newOrder(await newEvent());
    const reference = await payAndWait(order.id, 'momo', '0770000002'); // slow approval
    const ip = loopbackIp();
    const started = Date.now();
    const answers = [];
    for (let i = 0; i < 60; i++) answers.push(await callback('momo', reference, ip));
    const elapsed = Date.now() - started;
    for (const res of answers) {
      assert.ok([200, 429].includes(res.statusCode), res.body);
      if (res.statusCode === 429) {
        assert.equal(res.json().error_code, 'rate_limited');
        assert.match(String(res.headers['retry-after']), /^\d+$/);
      }
    }
    assert.ok(answers.filter((r) => r.statusCode === 200).length >= 1);
    await callbackQueriesDone();

    const [during] = await attemptsOf(order.id);
    assert.equal(during!.status, 'pending', 'the attempt is still being collected');
    assert.equal(during!.polls, 0, 'callbacks count no poll');
    // Coalesced: one query per spacing interval at most, however many callbacks came.
    assert.ok(
      sim.statusQueries(reference) <= Math.ceil(elapsed / CALLBACK_QUERY_SPACING_MS) + 1,
      `${sim.statusQueries(reference)} status queries in ${elapsed} ms`,
    );
    assert.equal((await readOrder(order.id)).failure_kind, null);

    assert.ok(sim.approve(reference), 'the provider settles it successful');
    await advanceAndRunJobs(10_000);
    const paid = await readOrder(order.id);
    assert.equal(paid.status, 'paid');
    const [settled] = await attemptsOf(order.id);
    assert.equal(settled!.status, 'successful');
    assert.equal(settled!.polls, 0, 'only the job counts polls, and its one query was answered');
  });

  test('status queries after callbacks: one at a time per reference, and no more often than the spacing', async () => {
    const order = await newOrder(await newEvent());
    const reference = await payAndWait(order.id, 'airtel', '0700000009'); // pending for ever
    const ip = loopbackIp();
    const burst = await Promise.all(Array.from({ length: 10 }, () => callback('airtel', reference, ip)));
    assert.deepEqual(
      burst.map((r) => r.statusCode),
      Array(10).fill(200),
    );
    await callbackQueriesDone();
    assert.equal(sim.statusQueries(reference), 1);

    h.clock.advance(CALLBACK_QUERY_SPACING_MS / 2);
    await callback('airtel', reference, ip);
    await callbackQueriesDone();
    assert.equal(sim.statusQueries(reference), 1, 'within the spacing: no query');

    h.clock.advance(CALLBACK_QUERY_SPACING_MS);
    await callback('airtel', reference, ip);
    await callbackQueriesDone();
    assert.equal(sim.statusQueries(reference), 2, 'after the spacing: one more');
    assert.equal((await attemptsOf(order.id))[0]!.polls, 0);
  });

  test('a callback after the provider settled pays the order at once, without the job', async () => {
    const order = await newOrder(await newEvent());
    const reference = await payAndWait(order.id, 'momo', '0770000009');
    assert.ok(sim.approve(reference));
    assert.equal((await callback('momo', reference, loopbackIp())).statusCode, 200);
    await callbackQueriesDone();
    assert.equal((await readOrder(order.id)).status, 'paid');
  });

  test('a known, an unknown and a malformed reference answer alike', async () => {
    const order = await newOrder(await newEvent());
    const known = await payAndWait(order.id, 'momo', '0770000009');
    const ip = loopbackIp();
    const cases: Array<['momo' | 'airtel', string]> = [
      ['momo', known],
      ['momo', randomUUID()],
      ['airtel', known], // the wrong network
      ['momo', 'not-a-reference'],
    ];
    const answers = [];
    for (const [method, reference] of cases) {
      for (const verb of ['PUT', 'POST'] as const) {
        const res = await callback(method, reference, ip, verb);
        answers.push({ status: res.statusCode, body: res.json() });
      }
    }
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.deepEqual(answers[0], {
      status: 200,
      body: { code: 200, message: 'Callback received', data: { received: true } },
    });
  });

  test('callbacks are limited per client IP: 429 rate_limited with Retry-After, other addresses unaffected', async () => {
    const ip = loopbackIp();
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await callback('momo', randomUUID(), ip));
    const refused = answers.filter((r) => r.statusCode === 429);
    assert.ok(refused.length >= 5, `${refused.length} refused of 30`);
    for (const res of refused) {
      assert.equal(res.json().error_code, 'rate_limited');
      assert.match(res.json().request_id, /^req_/);
      assert.ok(Number(res.headers['retry-after']) >= 1);
    }
    assert.equal((await callback('momo', randomUUID(), loopbackIp())).statusCode, 200);
  });
});

describe('reconciliation after the buyer-facing timeout', () => {
  test('the buyer is told the prompt timed out, the job keeps asking, and a late success pays the order', async () => {
    const order = await newOrder(await newEvent());
    const reference = await payAndWait(order.id, 'momo', '0770000009');

    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    const timedOut = await readOrder(order.id);
    assert.equal(timedOut.status, 'pending');
    assert.equal(timedOut.failure_kind, 'payment_timeout', 'the buyer is told');
    assert.equal((await attemptsOf(order.id))[0]!.status, 'timed_out');

    // Forged callbacks after the timeout cannot end reconciliation either.
    const ip = loopbackIp();
    for (let i = 0; i < 60; i++) await callback('momo', reference, ip);
    await callbackQueriesDone();

    await advanceAndRunJobs(16 * MINUTE); // past the hold: the order expires, the job still asks
    assert.equal((await readOrder(order.id)).status, 'expired');
    assert.ok(sim.approve(reference), 'the provider reports success after the prompt window');
    await advanceAndRunJobs(HOUR);
    assert.equal((await readOrder(order.id)).status, 'paid', 'capacity remained: honoured');
    assert.equal((await orderRow(order.id)).paidAfterExpiry, false);
    assert.equal((await attemptsOf(order.id))[0]!.status, 'successful');
  });

  test('a late success after the seats were sold is recorded paid_after_expiry and listed for refund (admin API and CLI)', async () => {
    const ticket = await newEvent(30_000, 1);
    const late = await newOrder(ticket);
    const reference = await payAndWait(late.id, 'momo', '0770000009');
    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    await advanceAndRunJobs(16 * MINUTE); // the hold lapses
    assert.equal((await readOrder(late.id)).status, 'expired');
    const other = await newOrder(ticket); // someone else takes the only seat
    await payAndWait(other.id, 'airtel', '0700000009');
    assert.ok(sim.approve((await attemptsOf(other.id))[0]!.reference));
    await advanceAndRunJobs(10_000);
    assert.equal((await readOrder(other.id)).status, 'paid');

    assert.ok(sim.approve(reference)); // the first buyer's money arrives after all
    await advanceAndRunJobs(HOUR);
    assert.equal((await readOrder(late.id)).status, 'expired');
    assert.equal((await orderRow(late.id)).paidAfterExpiry, true);
    const [counts] = await db().select().from(ticketTypes).where(eq(ticketTypes.id, ticket.ticketTypeId));
    assert.equal(counts!.paidCount + counts!.heldCount, 1, 'never oversold');

    const listed = (await refundList()).payments.filter((p) => p.order_id === late.id);
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.reason, 'paid_after_expiry');
    assert.equal(listed[0]!.amount_minor, late.total);
    assert.equal(listed[0]!.payment_reference, reference);
    assert.equal(listed[0]!.payer_phone, '256770000009');
    assert.equal((await refundList()).payments.filter((p) => p.order_id === other.id).length, 0);

    const text = await cliOutput(['payments', 'needs-refund', '--org', partner.organizationId]);
    assert.match(text, new RegExp(`${late.id}`));
    assert.match(text, /paid_after_expiry/);
    const json = JSON.parse(
      await cliOutput(['payments', 'needs-refund', '--org', partner.organizationId, '--json']),
    );
    assert.ok(json.payments.some((p: { order_id: string }) => p.order_id === late.id));
  });

  test('after a timeout the buyer may pay again; if both payments succeed the second is listed as duplicate_payment', async () => {
    const order = await newOrder(await newEvent());
    const first = await payAndWait(order.id, 'momo', '0770000009');
    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    assert.equal((await readOrder(order.id)).failure_kind, 'payment_timeout');
    const second = await payAndWait(order.id, 'airtel', '0700000009');
    assert.equal((await attemptsOf(order.id)).length, 2);

    assert.ok(sim.approve(first));
    await advanceAndRunJobs(5 * MINUTE);
    assert.equal((await readOrder(order.id)).status, 'paid');
    assert.ok(sim.approve(second));
    await advanceAndRunJobs(5 * MINUTE);
    const listed = (await refundList()).payments.filter((p) => p.order_id === order.id);
    assert.deepEqual(
      listed.map((p) => [p.reason, p.payment_reference]),
      [['duplicate_payment', second]],
    );
  });

  test('a late success for an order cancelled meanwhile is recorded for refund, never dropped', async () => {
    const order = await newOrder(await newEvent());
    const reference = await payAndWait(order.id, 'momo', '0770000009');
    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    await h.service.ctx.database.transaction((tx) => cancelPendingOrder(tx, order.id, h.clock.now()));
    assert.ok(sim.approve(reference));
    await advanceAndRunJobs(HOUR);
    assert.equal((await readOrder(order.id)).status, 'cancelled');
    const listed = (await refundList()).payments.filter((p) => p.order_id === order.id);
    assert.deepEqual(
      listed.map((p) => p.reason),
      ['paid_after_expiry'],
    );
  });

  test('with no final answer the job asks for 24 hours, then the attempt fails as payment_timeout', async () => {
    const order = await newOrder(await newEvent());
    const reference = await payAndWait(order.id, 'momo', '0770000009');
    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    for (let hours = 0; hours < 23; hours++) await advanceAndRunJobs(HOUR);
    const [still] = await attemptsOf(order.id);
    assert.equal(still!.status, 'timed_out', 'still asking after 23 hours');
    const queriesBefore = sim.statusQueries(reference);
    await advanceAndRunJobs(2 * HOUR);
    const [ended] = await attemptsOf(order.id);
    assert.equal(ended!.status, 'failed');
    assert.equal(ended!.failureKind, 'payment_timeout');
    assert.ok(sim.statusQueries(reference) > queriesBefore, 'asked once more before giving up');
    const jobs = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM jobs WHERE dedupe_key = ${`payment:${reference}`}`,
    );
    assert.equal(jobs[0]!.n, 0, 'the job is done');
  });
});

describe("a provider's per-payment maximum", () => {
  test('a total above the method maximum is 422 amount_too_large, with no prompt sent and the order unchanged', async () => {
    const ticket = await newEvent(60_000);
    const order = await newOrder(ticket, 2); // 120,000: above MTN's 100,000, within Airtel's 150,000
    const before = await orderRow(order.id);
    const submitted = sim.submissions().length;

    const res = await pay(order.id, 'momo', '0770000001');
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_code, 'amount_too_large');
    assert.match(res.json().message, /100000/);
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
    assert.equal(sim.submissions().length, submitted, 'the simulator received nothing');
    assert.deepEqual(await attemptsOf(order.id), []);
    assert.deepEqual(await orderRow(order.id), before, 'the order is unchanged');

    const airtel = await pay(order.id, 'airtel', '0700000009');
    assert.equal(airtel.statusCode, 202, 'the other provider takes it');
  });

  test('a total equal to the maximum is accepted', async () => {
    const order = await newOrder(await newEvent(100_000));
    assert.equal((await pay(order.id, 'momo', '0770000009')).statusCode, 202);
  });
});
