// The checkout form without JavaScript, over HTTP (inject): each step, every validation error
// next to its field, the steps' dry runs, paying, free orders, retries, cancel, and the rules
// that prevent a double charge (one pending order per session, no second prompt).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  attemptsOf,
  countRows,
  createSession,
  expectFieldError,
  fullForm,
  getPage,
  makeRace,
  ordersOf,
  postForm,
  readOrder,
  readSession,
  SHOP,
  tagWithId,
  waitForStatus,
  type Race,
} from './site-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
});
after(() => h.close());

const orderUrl = (id: string) => `/checkout/${id}/order`;

function heldCount(ticketTypeId: string): Promise<number> {
  return countRows(h, sql`SELECT held_count AS n FROM ticket_types WHERE id = ${ticketTypeId}`);
}

describe('steps without JavaScript', () => {
  test('continuing with no ticket shows the error next to the tickets list', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), { action: 'details', from: 'tickets' });
    assert.equal(res.statusCode, 400);
    expectFieldError(res.body, 'f-items', /Choose at least one ticket/);
    assert.match(res.body, /data-stage="tickets"/);
    assert.match(res.body, /<div class="error-summary" role="alert"/);
    assert.match(res.body, /<a href="#f-items">Choose at least one ticket<\/a>/);
    assert.match(res.body, /<title>Error: Checkout/);
  });

  test('with one ticket type on sale the form starts on the details step with one ticket and its participant', async () => {
    const single = await makeRace(h, {
      ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 }],
    });
    const singleId = await createSession(h, single);
    const page = await getPage(h, `/checkout/${singleId}`);
    assert.match(tagWithId(page.body, 'f-items'), /name="qty\.tt_/);
    assert.match(page.body, /<option value="1" selected>1<\/option>/);
    assert.equal(page.body.match(/<fieldset class="participant" data-item data-key="tt_/g)?.length, 1);
    assert.match(tagWithId(page.body, 'f-runner_is_buyer'), /checked/);
    assert.match(page.body, /data-stage="details"/);
    // The count starts at the details step; the tickets step, behind "Change tickets", has none.
    assert.match(page.body, /<span class="step-count" data-step-count>Step 1 of 2<\/span>Your details/);
    assert.match(page.body, /<h2 id="h-tickets" data-title="Tickets" tabindex="-1">Tickets<\/h2>/);
    assert.match(page.body, /value="tickets" class="back" data-back>Change tickets</);
    const back = await postForm(h, orderUrl(singleId), { action: 'tickets', from: 'details' });
    assert.match(back.body, /data-stage="tickets"/, 'Back still reaches the quantities');
    // Two types: nothing is chosen for the buyer, who starts on the tickets step.
    const two = await getPage(h, `/checkout/${await createSession(h, race)}`);
    assert.match(two.body, /data-stage="tickets"/);
    assert.match(two.body, /<span class="step-count" data-step-count>Step 1 of 3<\/span>Tickets/);
    assert.doesNotMatch(two.body, /<option value="1" selected>/);
    assert.equal(two.body.match(/<fieldset class="participant" data-item data-key="tt_/g), null);
  });

  test('choosing tickets leads to the details step with one participant per ticket and the prefill', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), {
      [`qty.${race.paid}`]: '2',
      [`qty.${race.free}`]: '1',
      action: 'details',
      from: 'tickets',
    });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /data-stage="details"/);
    assert.doesNotMatch(res.body, /class="error"/, 'participants are not checked before they are shown');
    assert.equal(res.body.match(/<fieldset class="participant" data-item data-key="tt_/g)?.length, 3);
    assert.match(res.body, /Participant 1: 10 km/);
    assert.match(res.body, /Participant 3: 5 km fun run/);
    // Date of birth only where a minimum age applies.
    tagWithId(res.body, 'f-items-0-date_of_birth');
    tagWithId(res.body, 'f-items-1-date_of_birth');
    assert.doesNotMatch(res.body, /id="f-items-2-date_of_birth"/);
    // The buyer's fields come first on the step, with the prefill; the tickets travel hidden.
    assert.match(tagWithId(res.body, 'f-buyer-name'), /value="Amina Nakato"/);
    assert.match(tagWithId(res.body, 'f-buyer-email'), /value="amina@example\.org"/);
    assert.ok(res.body.indexOf('id="f-buyer-name"') < res.body.indexOf('id="f-items-0-participant_name"'));
    assert.match(
      res.body,
      /<section\s+class="step"\s+data-step="tickets"\s+aria-labelledby="h-tickets"\s+hidden/,
    );
    assert.equal(await ordersOf(h, id), 0, 'nothing is written before pay');
  });

  test('each step checks only the steps before the one asked for', async () => {
    const id = await createSession(h, race);
    const tickets = {
      ...fullForm(race),
      'buyer.email': 'not-an-email',
      'items[0].answers.tshirt': '',
      waiver_accepted: '',
      from: 'tickets',
    };
    const details = await postForm(h, orderUrl(id), { ...tickets, action: 'details' });
    assert.equal(details.statusCode, 200);
    assert.match(details.body, /data-stage="details"/);
    assert.doesNotMatch(details.body, /class="error"/, 'the details step is not checked before it is shown');
    const payment = await postForm(h, orderUrl(id), { ...tickets, action: 'payment', from: 'details' });
    assert.equal(payment.statusCode, 400);
    assert.match(payment.body, /data-stage="details"/);
    expectFieldError(payment.body, 'f-buyer-email', /E-mail must be an e-mail address/);
    expectFieldError(payment.body, 'f-waiver_accepted', /must be accepted/);
    expectFieldError(payment.body, 'f-items-0-answers-tshirt', /T-shirt size is required/);
    const young = new Date(h.clock.now().getTime() - 10 * 365 * 24 * 3600_000).toISOString().slice(0, 10);
    const back = await postForm(h, orderUrl(id), {
      ...tickets,
      'items[0].date_of_birth': young,
      action: 'payment',
    });
    assert.match(back.body, /data-stage="details"/, 'an error on an earlier step opens that step');
    expectFieldError(back.body, 'f-items-0-date_of_birth', /at least 16 on race day/);
    const none = await postForm(h, orderUrl(id), {
      ...tickets,
      [`qty.${race.paid}`]: '0',
      action: 'payment',
    });
    assert.match(none.body, /data-stage="tickets"/, 'no ticket: the tickets step');
    assert.equal(await ordersOf(h, id), 0);
  });

  test('every invalid field is reported next to its input, by the server, and nothing is held', async () => {
    const id = await createSession(h, race);
    const heldBefore = await heldCount(race.paid);
    const res = await postForm(h, orderUrl(id), {
      [`qty.${race.paid}`]: '1',
      'items[0].ticket_type_id': race.paid,
      'items[0].participant_name': '  ',
      'items[0].answers.tshirt': '',
      'items[0].date_of_birth': '',
      'buyer.name': 'Amina',
      'buyer.email': 'not-an-email',
      'buyer.phone': '12345',
      donation_minor: 'lots',
      payment_method: '',
      payment_phone: '',
      action: 'pay',
      from: 'payment',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /data-stage="details"/, 'the first step with an error is shown');
    expectFieldError(res.body, 'f-items-0-participant_name', /Full name is required/);
    expectFieldError(res.body, 'f-items-0-answers-tshirt', /T-shirt size is required/);
    expectFieldError(res.body, 'f-items-0-date_of_birth', /minimum age of 16/);
    expectFieldError(res.body, 'f-buyer-email', /E-mail must be an e-mail address/);
    expectFieldError(res.body, 'f-buyer-phone', /Phone number must be a Ugandan mobile number/);
    expectFieldError(res.body, 'f-waiver_accepted', /waiver \(version 2026-03-01\) must be accepted/);
    expectFieldError(res.body, 'f-donation_minor', /whole number of UGX/);
    expectFieldError(res.body, 'f-payment_method', /Choose how to pay/);
    for (const href of [
      'f-items-0-participant_name',
      'f-buyer-email',
      'f-waiver_accepted',
      'f-payment_method',
    ]) {
      assert.match(res.body, new RegExp(`<li><a href="#${href}">`), `summary links to ${href}`);
    }
    assert.match(res.body, /<a href="#f-items-0-participant_name">Participant 1: Full name is required<\/a>/);
    // What the buyer typed is kept.
    assert.match(tagWithId(res.body, 'f-buyer-email'), /value="not-an-email"/);
    assert.equal(await ordersOf(h, id), 0);
    assert.equal(await heldCount(race.paid), heldBefore);
  });

  test('"I am the runner" names the first participant after the buyer; a missing name is said once', async () => {
    const id = await createSession(h, race);
    const mine = {
      ...fullForm(race, { ticket: 'free' }),
      'items[0].participant_name': '',
      runner_is_buyer: 'yes',
    };
    const unnamed = await postForm(h, orderUrl(id), { ...mine, 'buyer.name': '' });
    assert.equal(unnamed.statusCode, 400);
    expectFieldError(unnamed.body, 'f-buyer-name', /Your name is required/);
    assert.doesNotMatch(unnamed.body, /id="err-f-items-0-participant_name"/);
    assert.equal(unnamed.body.match(/<li><a href=/g)?.length, 1);
    const paid = await postForm(h, orderUrl(id), mine);
    assert.equal(paid.statusCode, 303);
    const [row] = await h.service.ctx.database.rows<{ participant_name: string }>(
      sql`SELECT r.participant_name FROM registrations r JOIN orders o ON o.id = r.order_id
          WHERE o.checkout_session_id = ${id}`,
    );
    assert.equal(row!.participant_name, 'Amina Nakato');
  });

  test('a participant too young on race day is refused next to the date of birth', async () => {
    const id = await createSession(h, race);
    const young = new Date(h.clock.now().getTime() - 10 * 365 * 24 * 3600_000).toISOString().slice(0, 10);
    const res = await postForm(h, orderUrl(id), { ...fullForm(race), 'items[0].date_of_birth': young });
    assert.equal(res.statusCode, 400);
    expectFieldError(res.body, 'f-items-0-date_of_birth', /must be at least 16 on race day/);
  });

  test('a number on the other network is refused next to the payment number', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), fullForm(race, { method: 'momo', phone: '0700000001' }));
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /data-stage="payment"/);
    expectFieldError(res.body, 'f-payment_phone', /This is an Airtel Money number: choose Airtel Money/);
    assert.equal(await ordersOf(h, id), 0);
  });

  test('a landline or another network cannot pay: the payment number is asked for, nothing is held', async () => {
    for (const [fields, message] of [
      [
        { payment_phone: '0414 123456' },
        /This number cannot receive mobile money: enter an MTN or Airtel number/,
      ],
      [{ payment_phone: '00256 712 345678' }, /This number cannot receive mobile money/],
      // the payment number left empty: the buyer's own phone, here a landline, is not enough
      [
        { payment_phone: '', 'buyer.phone': '0312 123456' },
        /Your phone number cannot receive mobile money: enter an MTN or Airtel number to pay from/,
      ],
    ] as const) {
      const id = await createSession(h, race);
      const res = await postForm(h, orderUrl(id), { ...fullForm(race), ...fields });
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      expectFieldError(res.body, 'f-payment_phone', message);
      assert.doesNotMatch(
        res.body,
        /id="f-buyer-phone"[^>]*aria-invalid/,
        'a landline is a fine contact number',
      );
      assert.equal(await ordersOf(h, id), 0);
      assert.equal(await attemptsOf(h, id), 0);
    }
  });

  test('a payment number written 00256… is prompted like +256', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), fullForm(race, { phone: '00256 770 000 001' }));
    assert.equal(res.statusCode, 303, res.body);
    const [row] = await h.service.ctx.database.rows<{ msisdn: string }>(
      sql`SELECT a.msisdn FROM payment_attempts a JOIN orders o ON o.id = a.order_id WHERE o.checkout_session_id = ${id}`,
    );
    assert.equal(row!.msisdn, '256770000001');
  });

  test('participant fields sent for other tickets than chosen are not used: the page asks again', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), { ...fullForm(race), [`qty.${race.paid}`]: '2' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Your tickets changed: fill in the participants below\./);
    assert.equal(res.body.match(/<fieldset class="participant" data-item data-key="tt_/g)?.length, 2);
    assert.equal(await ordersOf(h, id), 0);
  });

  test('the payment step: the number and network start from the buyer, the summary has the server totals', async () => {
    const id = await createSession(h, race);
    const heldBefore = await heldCount(race.paid);
    const form = {
      ...fullForm(race, { method: '', phone: '', action: 'payment' }),
      'buyer.phone': '0700000001',
      donation_minor: '5,000',
      from: 'details',
    };
    const res = await postForm(h, orderUrl(id), form);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /data-stage="payment"/);
    assert.match(tagWithId(res.body, 'f-payment_phone'), /value="0700000001"/);
    assert.match(tagWithId(res.body, 'f-payment_method-airtel'), /checked/);
    assert.match(res.body, /Service fee \(Airtel Money\)<\/th>\s*<td class="num">UGX\u00a01,050/);
    assert.match(res.body, /Donation<\/th>\s*<td class="num">UGX\u00a05,000/);
    assert.match(res.body, /Total<\/th>\s*<td class="num">UGX\u00a036,050/);
    assert.match(res.body, /Pay UGX\u00a036,050/);
    assert.match(res.body, /<dd>Okello Brian \(10 km\)<\/dd>/);
    assert.equal(await ordersOf(h, id), 0, 'the steps are dry runs');
    assert.equal(await heldCount(race.paid), heldBefore);
    // A number left as prefilled follows the buyer's when the buyer changes it on the way back.
    const changed = await postForm(h, orderUrl(id), {
      ...form,
      payment_phone: '0700000001',
      payment_phone_prefill: '0700000001',
      'buyer.phone': '0772123456',
    });
    assert.match(tagWithId(changed.body, 'f-payment_phone'), /value="0772123456"/);
    assert.match(tagWithId(changed.body, 'f-payment_method'), /checked/);
    // Back keeps everything.
    const back = await postForm(h, orderUrl(id), { ...form, action: 'tickets' });
    assert.match(back.body, /data-stage="tickets"/);
    assert.match(tagWithId(back.body, 'f-items-0-participant_name'), /value="Okello Brian"/);
  });

  test('a free order confirms on the details step; with a donation it goes to the payment step first', async () => {
    const id = await createSession(h, race);
    const free = {
      ...fullForm(race, { ticket: 'free', method: '', phone: '', action: 'payment' }),
      from: 'tickets',
    };
    const details = await postForm(h, orderUrl(id), { ...free, action: 'details' });
    assert.match(details.body, /<span class="step-count" data-step-count>Step 2 of 2<\/span>Your details/);
    assert.match(
      details.body,
      /value="pay"\s+class="primary"\s+data-primary\s+data-busy="Confirming…"\s*>\s*Confirm registration/,
    );
    const gift = await postForm(h, orderUrl(id), {
      ...free,
      donation_minor: '2000',
      action: 'pay',
      from: 'details',
    });
    assert.equal(gift.statusCode, 200);
    assert.match(gift.body, /data-stage="payment"/);
    assert.doesNotMatch(gift.body, /class="error"/);
    assert.equal(await ordersOf(h, id), 0);
  });
});

describe('paying', () => {
  test('pay creates one order, sends one prompt and redirects to the wait screen; reloads create nothing', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), fullForm(race, { phone: '0770000009' }));
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/checkout/${id}/pay`);
    assert.equal(await ordersOf(h, id), 1);
    assert.equal(await attemptsOf(h, id), 1);
    const wait = await getPage(h, `/checkout/${id}/pay`);
    assert.equal(wait.statusCode, 200);
    assert.match(wait.body, /Approve the payment on your phone/);
    assert.match(wait.body, /MTN Mobile Money number<strong>0770 ••• 009<\/strong>/);
    assert.match(wait.body, /data-poll="1"/);
    assert.match(wait.body, /<noscript><meta http-equiv="refresh" content="5"><\/noscript>/);
    assert.match(wait.body, /Your tickets are held for<strong data-countdown>1[45]:\d\d<\/strong>/);
    for (let i = 0; i < 3; i++) assert.equal((await getPage(h, `/checkout/${id}/pay`)).statusCode, 200);
    assert.equal(await ordersOf(h, id), 1);
    assert.equal(await attemptsOf(h, id), 1);
  });

  test('the same form sent again (double click, reload) while the prompt is out creates no second order or prompt', async () => {
    const id = await createSession(h, race);
    const form = fullForm(race, { phone: '0770000009' });
    const first = await postForm(h, orderUrl(id), form);
    assert.equal(first.statusCode, 303);
    const again = await postForm(h, orderUrl(id), form);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/checkout/${id}/pay`);
    assert.equal(await ordersOf(h, id), 1);
    assert.equal(await attemptsOf(h, id), 1);
  });

  test('simultaneous submissions leave one payable order and one prompt', async () => {
    const id = await createSession(h, race);
    const form = fullForm(race, { phone: '0770000009' });
    const results = await Promise.all(Array.from({ length: 4 }, () => postForm(h, orderUrl(id), form)));
    for (const r of results) {
      assert.equal(r.statusCode, 303, r.body.slice(0, 300));
      assert.equal(r.headers.location, `/checkout/${id}/pay`);
    }
    const rows = await h.service.ctx.database.rows<{ status: string; open: number }>(sql`
      SELECT o.status, count(a.id) FILTER (WHERE a.status IN ('submitting', 'pending'))::int AS open
      FROM orders o LEFT JOIN payment_attempts a ON a.order_id = o.id
      WHERE o.checkout_session_id = ${id} GROUP BY o.id, o.status`);
    assert.equal(rows.filter((r) => r.status === 'pending').length, 1, JSON.stringify(rows));
    assert.equal(
      rows.reduce((n, r) => n + r.open, 0),
      1,
      'one prompt in all',
    );
    assert.ok(
      rows.every((r) => r.status === 'pending' || r.open === 0),
      'no cancelled order has a prompt out',
    );
  });

  test('a retry while the prompt is out sends nothing more', async () => {
    const id = await createSession(h, race);
    await postForm(h, orderUrl(id), fullForm(race, { phone: '0770000009' }));
    const retry = await postForm(h, `/checkout/${id}/retry`, {
      payment_method: 'momo',
      payment_phone: '0770000009',
    });
    assert.equal(retry.statusCode, 303);
    assert.equal(await attemptsOf(h, id), 1);
  });

  test('declined, then a retry with another number and network is paid; the session completes', async () => {
    const id = await createSession(h, race);
    await postForm(h, orderUrl(id), fullForm(race, { phone: '0770000003' }));
    const failed = await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    assert.equal(failed.order_status, 'pending');
    assert.equal(failed.failure_kind, 'payment_declined');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /The payment was declined/);
    assert.match(page.body, /action="\/checkout\/[^"]+\/retry"/);
    assert.match(tagWithId(page.body, 'f-payment_phone'), /value="0770000003"/, 'the same number, editable');
    assert.match(
      page.body,
      /Airtel Money<span class="detail">UGX\u00a031,050<\/span>/,
      'each tile with its total',
    );

    const bad = await postForm(h, `/checkout/${id}/retry`, { payment_method: 'airtel', payment_phone: '12' });
    assert.equal(bad.statusCode, 400);
    expectFieldError(bad.body, 'f-payment_phone', /Ugandan mobile number/);
    const none = await postForm(h, `/checkout/${id}/retry`, { payment_phone: '0700000001' });
    assert.equal(none.statusCode, 400);
    expectFieldError(none.body, 'f-payment_method', /Choose how to pay/);

    const retry = await postForm(h, `/checkout/${id}/retry`, {
      payment_method: 'airtel',
      payment_phone: '0700000001',
    });
    assert.equal(retry.statusCode, 303);
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const done = await getPage(h, `/checkout/${id}/pay`);
    assert.match(done.body, /You are registered/);
    // The confirmation stays: the buyer leaves by its Continue link, not by a timer.
    assert.match(
      done.body,
      new RegExp(`<a class="button primary" href="${SHOP}/thanks\\?session_id=${id}">`),
    );
    assert.doesNotMatch(done.body, /http-equiv="refresh"/);
    const session = await readSession(h, race, id);
    assert.equal(session.status, 'complete');
    const order = await readOrder(h, race, session.order!.id);
    assert.equal(order.status, 'paid');
    assert.equal(order.registrations[0].status, 'confirmed');
    // Once paid, the form cannot make another order.
    const late = await postForm(h, orderUrl(id), fullForm(race));
    assert.equal(late.statusCode, 303);
    assert.equal(late.headers.location, `/checkout/${id}`);
    assert.equal(await ordersOf(h, id), 1);
  });

  test('a free order confirms at once, without a payment number', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), {
      ...fullForm(race, { ticket: 'free' }),
      payment_method: '',
      payment_phone: '',
    });
    assert.equal(res.statusCode, 303);
    const page = await getPage(h, res.headers.location as string);
    assert.match(page.body, /Your registration is confirmed\./);
    assert.equal(await attemptsOf(h, id), 0);
    assert.equal((await readSession(h, race, id)).status, 'complete');
  });

  test('tickets held by another buyer are not called sold out; paid ones are', async () => {
    const small = await makeRace(h, {
      ticket_types: [{ name: 'Elite', price_minor: 50000, capacity: 1, distance_km: 10 }],
      waiver_required: false,
      additional_questions: [],
    });
    const first = await createSession(h, small);
    const second = await createSession(h, small);
    const form = { ...fullForm(small, { phone: '0770000009' }), 'items[0].date_of_birth': '' };
    assert.equal((await postForm(h, orderUrl(first), form)).statusCode, 303);
    const res = await postForm(h, orderUrl(second), form);
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /data-stage="tickets"/);
    assert.match(
      res.body,
      /<p class="error" id="err-f-items">Error: The tickets left are held by buyers paying now/,
    );
    assert.match(res.body, /All left are held by buyers paying now\. Some may free up after \d\d:\d\d\./);
    assert.doesNotMatch(res.body, /<p class="soldout">/);
    tagWithId(res.body, 'f-items');
    // Paid for: sold out.
    const paidSmall = await makeRace(h, {
      ticket_types: [{ name: 'Elite', price_minor: 0, capacity: 1, distance_km: 10 }],
      waiver_required: false,
      additional_questions: [],
    });
    const freeForm = fullForm(paidSmall, { ticket: 'free' });
    assert.equal((await postForm(h, orderUrl(await createSession(h, paidSmall)), freeForm)).statusCode, 303);
    const late = await postForm(h, orderUrl(await createSession(h, paidSmall)), freeForm);
    assert.equal(late.statusCode, 409);
    assert.match(late.body, /<p class="error" id="err-f-items">Error: Elite is sold out[^<]*<\/p>/);
    assert.match(late.body, /<p class="soldout">Sold out<\/p>/);
  });

  test('when the hold runs out the wait screen says so and offers to start again', async () => {
    const id = await createSession(h, race);
    await postForm(h, orderUrl(id), fullForm(race, { phone: '0770000005' }));
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /Not enough money on the account/);
    h.clock.advance(16 * 60_000);
    try {
      const later = await getPage(h, `/checkout/${id}/pay`);
      assert.match(later.body, /Time ran out/);
      assert.match(
        later.body,
        new RegExp(`<a class="button primary" href="/checkout/${id}">Start again</a>`),
      );
      assert.doesNotMatch(later.body, /\/retry"/);
      // Start again: the form holds what the buyer typed, read back from the lapsed order.
      const again = await getPage(h, `/checkout/${id}`);
      assert.match(again.body, /Your tickets were released\. We kept what you entered/);
      assert.match(again.body, new RegExp(`name="qty\\.${race.paid}"[^]*?<option value="1" selected>`));
      assert.match(tagWithId(again.body, 'f-items-0-participant_name'), /value="Okello Brian"/);
      assert.match(tagWithId(again.body, 'f-items-0-date_of_birth'), /value="1995-04-12"/);
      assert.match(again.body, /<option value="M" selected>M<\/option>/);
      assert.match(tagWithId(again.body, 'f-buyer-email'), /value="amina@example\.org"/);
      assert.match(tagWithId(again.body, 'f-buyer-phone'), /value="0772123456"/);
      assert.match(tagWithId(again.body, 'f-waiver_accepted'), /checked/);
      assert.match(tagWithId(again.body, 'f-payment_phone'), /value="0770000005"/);
      assert.doesNotMatch(tagWithId(again.body, 'f-runner_is_buyer'), /checked/, 'someone else runs');
    } finally {
      h.clock.advance(-16 * 60_000);
    }
  });

  test('the wait screen without an order sends the buyer to the form', async () => {
    const id = await createSession(h, race);
    const res = await getPage(h, `/checkout/${id}/pay`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/checkout/${id}`);
  });
});

describe('cancel', () => {
  test('releases an unpaid order and sends the buyer to on_cancel_url as given', async () => {
    const id = await createSession(h, race);
    await postForm(h, orderUrl(id), fullForm(race, { phone: '0770000003' }));
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const res = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `${SHOP}/cart`);
    const status = await getPage(h, `/checkout/${id}/status.json`);
    assert.equal(status.json().order_status, 'cancelled');
  });

  test('keeps an order whose prompt is out, so an approval still counts', async () => {
    const id = await createSession(h, race);
    await postForm(h, orderUrl(id), fullForm(race, { phone: '0770000009' }));
    // Confirmed on the cancel step (checkout-wait.test.ts tests the step itself).
    const res = await postForm(h, `/checkout/${id}/cancel`, { confirm: 'yes' });
    assert.equal(res.statusCode, 303);
    const status = await getPage(h, `/checkout/${id}/status.json`);
    assert.equal(status.json().order_status, 'pending');
  });

  test('an embedded session shows a cancelled page (the frame is closed by the host page)', async () => {
    const id = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: 'https://club.example.org',
      on_success_url: undefined,
      on_cancel_url: undefined,
    });
    const res = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Checkout cancelled/);
    assert.match(
      res.headers['content-security-policy'] as string,
      /frame-ancestors https:\/\/club\.example\.org$/,
    );
  });
});
