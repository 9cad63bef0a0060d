// The wait screen's ways out, over HTTP (inject), without JavaScript: the prompt's own countdown,
// "Resend prompt" after half a minute, "Use another number or network", the cancel step while a prompt
// is out, and the outcomes with their retry form filled in. Closing a prompt is safe: a late
// approval still pays the order, or is listed for refund when another payment already paid it.
// The simulator runs apart at real speed (it settles nothing by itself within a test, and
// sim.approve decides when a payer approves); the service clock is moved instead of waiting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { orders } from '../../src/orders/orders.schema.ts';
import { PROMPT_WINDOW_MS } from '../../src/payments/payment-schedule.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import {
  createSession,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readSession,
  SHOP,
  tagWithId,
  type Race,
} from './site-helpers.ts';

let sim: Simulator;
let h: Harness;
let race: Race;

before(async () => {
  sim = await startSimulator({ timeScale: 1 });
  h = await startHarness({
    env: {
      SIMULATOR_URL: sim.url,
      PAYMENT_TIME_SCALE: '1',
      RUN_JOBS: 'false',
      PROMPT_LIMIT_PER_PHONE: '2',
    },
  });
  race = await makeRace(h);
});
after(async () => {
  await h.close();
  await sim.close();
});

const db = () => h.service.ctx.database.db;

async function attemptsOf(sessionId: string) {
  const order = (await readSession(h, race, sessionId)).order!;
  return db()
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, order.id))
    .orderBy(paymentAttempts.createdAt);
}

async function orderOf(sessionId: string) {
  const ref = (await readSession(h, race, sessionId)).order!;
  const [row] = await db().select().from(orders).where(eq(orders.id, ref.id));
  return row!;
}

/** A session whose order's prompt is out (the attempt pending) to `phone`. */
async function waiting(phone = '0770000009', method = 'momo') {
  const id = await createSession(h, race);
  const res = await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone, method }));
  assert.equal(res.statusCode, 303, res.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  assert.equal((await attemptsOf(id)).at(-1)!.status, 'pending');
  return id;
}

/** Moves the service clock and runs every job then due (payment polling, hold expiry). */
async function advanceAndRunJobs(ms: number) {
  h.clock.advance(ms);
  await h.service.jobs.runDue();
}

/** The retry form's number and checked network. */
function retryValues(body: string) {
  const phone = /name="payment_phone"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="payment_phone"/.exec(
    body,
  );
  const checked = /<input[^>]*name="payment_method"[^>]*value="(momo|airtel)"[^>]*checked/.exec(body);
  return { phone: phone?.[1] ?? phone?.[2], method: checked?.[1] };
}

describe('the waiting screen', () => {
  test('counts down the prompt window (not the hold, which is secondary), and polls', async () => {
    const id = await waiting();
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(
      page.body,
      /<h2 id="h-wait" tabindex="-1" autofocus>Approve the payment on your phone<\/h2>/,
    );
    // The full five minutes less what a busy machine took between the prompt and the page.
    const left = Number(/data-prompt-seconds-left="(\d+)"/.exec(page.body)?.[1]);
    assert.ok(left > 280 && left <= 300, `${left} s left`);
    const clockText = (seconds: number) =>
      `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
    assert.match(
      page.body,
      new RegExp(`Time left to approve:<strong data-prompt-countdown>${clockText(left)}</strong>`),
    );
    assert.match(
      page.body,
      /<p class="muted">Your tickets are held for<strong data-countdown>1[45]:\d\d<\/strong>/,
    );
    assert.match(page.body, /data-poll="1"/);
    assert.match(page.body, /<div role="status"><p class="notice">We sent a prompt/);
    h.clock.advance(100_000);
    try {
      const later = await getPage(h, `/checkout/${id}/pay`);
      const laterLeft = Number(/data-prompt-seconds-left="(\d+)"/.exec(later.body)?.[1]);
      assert.ok(laterLeft <= left - 100 && laterLeft > left - 120, `${laterLeft} s left after 100 s`);
      assert.match(later.body, new RegExp(`data-prompt-countdown>${clockText(laterLeft)}<`));
      const status = (await getPage(h, `/checkout/${id}/status.json`)).json();
      assert.ok(status.prompt_seconds_left <= laterLeft && status.prompt_seconds_left > left - 120);
      assert.equal(status.attempt_status, 'pending');
    } finally {
      h.clock.advance(-100_000);
    }
  });

  test('"Resend prompt" shows after half a minute and sends a new prompt to the same number and network', async () => {
    const id = await waiting('0700000009', 'airtel');
    const early = await getPage(h, `/checkout/${id}/pay`);
    assert.match(
      early.body,
      /<form method="post" action="\/checkout\/[^"]+\/resend" data-once data-resend data-resend-in="30" hidden>/,
    );
    // Too early: nothing is sent.
    const refused = await postForm(h, `/checkout/${id}/resend`, {});
    assert.equal(refused.statusCode, 303);
    assert.equal((await attemptsOf(id)).length, 1);

    h.clock.advance(61_000);
    const later = await getPage(h, `/checkout/${id}/pay`);
    assert.match(later.body, /data-resend data-resend-in="0">/);
    const res = await postForm(h, `/checkout/${id}/resend`, {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/checkout/${id}/pay?resent=1`);
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
    const [first, second] = await attemptsOf(id);
    assert.equal(first!.status, 'closed');
    assert.equal(second!.status, 'pending');
    assert.equal(second!.msisdn, first!.msisdn);
    assert.equal(second!.method, 'airtel');
    assert.equal(sim.submissions().filter((s) => s.reference === second!.reference).length, 1);
    const again = await getPage(h, `/checkout/${id}/pay?resent=1`);
    assert.match(again.body, /data-resend-in="30" hidden/, 'the new prompt waits its own half minute');
    const [event] = await h.service.ctx.database.rows<{ timezone: string }>(
      sql`SELECT timezone FROM events WHERE id = ${race.eventId}`,
    );
    const time = new Intl.DateTimeFormat('en-GB', {
      timeZone: event!.timezone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(second!.createdAt);
    assert.ok(again.body.includes(`<p class="notice">Sent again at ${time}.</p>`), 'says when it was sent');
    const plain = await getPage(h, `/checkout/${id}/pay`);
    assert.doesNotMatch(plain.body, /Sent again/, 'only right after a resend');
  });

  test("a resend over the number's prompt limit is 429 with the reason, and the prompt stays open", async () => {
    // Not a simulator scenario number: those are exempt from the limit.
    const id = await waiting('0772123457');
    h.clock.advance(61_000);
    assert.equal((await postForm(h, `/checkout/${id}/resend`, {})).statusCode, 303);
    h.clock.advance(61_000);
    const refused = await postForm(h, `/checkout/${id}/resend`, {});
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(refused.body, /Approve the payment on your phone/);
    assert.match(refused.body, /<p class="notice bad">[^<]*prompts[^<]*<\/p>/);
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
    const attempts = await attemptsOf(id);
    assert.deepEqual(
      attempts.map((a) => a.status),
      ['closed', 'pending'],
    );
  });

  test('"Use another number or network" closes the prompt and shows the retry form filled in', async () => {
    const id = await waiting('0770000009');
    const res = await postForm(h, `/checkout/${id}/switch`, {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/checkout/${id}/pay`);
    assert.equal((await attemptsOf(id))[0]!.status, 'closed');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /Pay with another number or network/);
    assert.match(page.body, /data-poll="0"/);
    assert.doesNotMatch(page.body, /http-equiv="refresh"/);
    assert.match(page.body, /may still be on that phone\. Approve only one prompt/);
    assert.deepEqual(retryValues(page.body), { phone: '0770000009', method: 'momo' });
    assert.match(page.body, /Send the payment prompt<\/button>/);
    const status = (await getPage(h, `/checkout/${id}/status.json`)).json();
    assert.equal(status.attempt_status, 'closed');
    assert.equal(status.prompt_seconds_left, 0);

    const retry = await postForm(h, `/checkout/${id}/retry`, {
      payment_method: 'airtel',
      payment_phone: '0700000009',
    });
    assert.equal(retry.statusCode, 303);
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
    assert.deepEqual(
      (await attemptsOf(id)).map((a) => [a.status, a.method]),
      [
        ['closed', 'momo'],
        ['pending', 'airtel'],
      ],
    );
  });

  test('a closed prompt the payer approves later still pays the order, and the reconcile job keeps asking', async () => {
    const id = await waiting('0770000002');
    await postForm(h, `/checkout/${id}/switch`, {});
    const [closed] = await attemptsOf(id);
    // Past the prompt window the closed attempt is neither timed out nor dropped: still asked about.
    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    assert.equal((await attemptsOf(id))[0]!.status, 'closed');
    assert.ok((await attemptsOf(id))[0]!.polls > 0, 'the job asked the provider');
    assert.equal((await orderOf(id)).failureKind, null, 'no failure shown for a prompt the buyer left');
    assert.ok(sim.approve(closed!.reference));
    await advanceAndRunJobs(60_000);
    assert.equal((await attemptsOf(id))[0]!.status, 'successful');
    assert.equal((await orderOf(id)).status, 'paid');
    assert.equal((await readSession(h, race, id)).status, 'complete');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /You are registered/);
  });

  test('a closed prompt approved after another prompt paid the order is listed for refund', async () => {
    const id = await waiting('0770000002');
    await postForm(h, `/checkout/${id}/switch`, {});
    await postForm(h, `/checkout/${id}/retry`, { payment_method: 'airtel', payment_phone: '0700000009' });
    await Promise.allSettled([...h.service.ctx.gateway.inflight]);
    const [closed, second] = await attemptsOf(id);
    assert.ok(sim.approve(second!.reference));
    await advanceAndRunJobs(10_000);
    assert.equal((await orderOf(id)).status, 'paid');
    assert.ok(sim.approve(closed!.reference));
    await advanceAndRunJobs(60_000);
    assert.equal((await attemptsOf(id))[0]!.status, 'successful');
    const res = await h.service.app.inject({
      url: `/admin/v1/organizations/${race.partner.organizationId}/payments/needs-refund`,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    const listed = (res.json().data.payments as { payment_reference: string; reason: string }[]).filter(
      (p) => p.payment_reference === closed!.reference,
    );
    assert.deepEqual(
      listed.map((p) => p.reason),
      ['duplicate_payment'],
    );
  });
});

describe('cancel while a prompt is out', () => {
  test('asks first (its own page without the script), then closes the prompt and keeps the order payable', async () => {
    const id = await waiting('0770000009');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(
      page.body,
      new RegExp(
        `<a href="/checkout/${id}/cancel" data-cancel-ask aria-controls="cancel-panel">Cancel and return to shop\\.example\\.org</a>`,
      ),
    );
    assert.match(tagWithId(page.body, 'cancel-panel'), /hidden/);

    const ask = await getPage(h, `/checkout/${id}/cancel`);
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /Cancel while a prompt is on your phone\?/);
    assert.match(ask.body, /If you approve it, you will still be charged and registered/);
    assert.match(
      ask.body,
      new RegExp(`<a class="button primary" href="/checkout/${id}/pay">Keep waiting</a>`),
    );
    // A cancel sent without the confirmation (an old page) asks too, and leaves nothing changed.
    const unconfirmed = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(unconfirmed.statusCode, 200);
    assert.match(unconfirmed.body, /Cancel while a prompt is on your phone\?/);
    assert.equal((await attemptsOf(id))[0]!.status, 'pending');

    const res = await postForm(h, `/checkout/${id}/cancel`, { confirm: 'yes' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `${SHOP}/cart`);
    const [closed] = await attemptsOf(id);
    assert.equal(closed!.status, 'closed');
    assert.equal((await orderOf(id)).status, 'pending', 'still payable, as the warning said');
    assert.ok(sim.approve(closed!.reference));
    await advanceAndRunJobs(10_000);
    assert.equal((await orderOf(id)).status, 'paid');
  });

  test('with no prompt out the cancel step is not needed', async () => {
    const id = await waiting('0770000009');
    await postForm(h, `/checkout/${id}/switch`, {});
    const ask = await getPage(h, `/checkout/${id}/cancel`);
    assert.equal(ask.statusCode, 303);
    assert.equal(ask.headers.location, `/checkout/${id}/pay`);
  });

  test('an embedded session says a prompt left on the phone would still pay', async () => {
    const id = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: 'https://club.example.org',
      on_success_url: undefined,
      on_cancel_url: undefined,
    });
    await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone: '0770000009' }));
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /data-cancel-ask aria-controls="cancel-panel">Cancel<\/a>/);
    assert.match(
      page.body,
      /<form method="post" action="\/checkout\/[^"]+\/cancel" data-cancel data-once><input type="hidden" name="confirm" value="yes"><button type="submit">Cancel anyway<\/button>/,
    );
    const res = await postForm(h, `/checkout/${id}/cancel`, { confirm: 'yes' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /decline it: approving it would still charge and register you/);
  });
});

describe('outcomes', () => {
  test('after a timeout the retry form is filled with the method and number used', async () => {
    const id = await waiting('0700000009', 'airtel');
    await advanceAndRunJobs(PROMPT_WINDOW_MS + 1000);
    assert.equal((await attemptsOf(id))[0]!.status, 'timed_out');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /<h2 id="h-wait" tabindex="-1" autofocus>The payment prompt timed out<\/h2>/);
    assert.match(page.body, /<div role="status"><p class="notice bad">Nobody approved the prompt in time/);
    assert.deepEqual(retryValues(page.body), { phone: '0700000009', method: 'airtel' });
    assert.match(page.body, /data-poll="0"/);
  });

  test('"Time ran out" offers "Start again", which opens the checkout form', async () => {
    const id = await waiting('0770000009');
    await postForm(h, `/checkout/${id}/switch`, {});
    await advanceAndRunJobs(16 * 60_000);
    assert.equal((await orderOf(id)).status, 'expired');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /Time ran out/);
    assert.match(page.body, new RegExp(`<a class="button primary" href="/checkout/${id}">Start again</a>`));
    const form = await getPage(h, `/checkout/${id}`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<form[^>]*data-checkout/);
  });
});
