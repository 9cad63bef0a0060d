// Which step holds what, without JavaScript (plain POSTs): the tickets step holds only the choice,
// the details step the buyer, the participants, the waiver and the donation; each step is checked
// only for the steps before the one asked for. And a free registration's phone: optional unless
// the event asks for it, stored as '' when left out, still checked when typed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { patchEvent } from '../../src/events/events.ts';
import { stageOf } from '../../src/site/checkout-form.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  createSession,
  expectFieldError,
  fullForm,
  getPage,
  makeRace,
  ordersOf,
  postForm,
  readOrder,
  readSession,
  tagWithId,
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

describe('stageOf', () => {
  test('the tickets step holds only the choice; the participants sit with the buyer', () => {
    assert.equal(stageOf('items'), 'tickets');
    assert.equal(stageOf('items[2].ticket_type_id'), 'tickets');
    for (const field of [
      'items[0].participant_name',
      'items[1].answers.tshirt',
      'items[0].date_of_birth',
      'buyer.name',
      'buyer.phone',
      'waiver_accepted',
      'donation_minor',
    ]) {
      assert.equal(stageOf(field), 'details', field);
    }
    assert.equal(stageOf('payment_method'), 'payment');
    assert.equal(stageOf('payment_phone'), 'payment');
  });
});

describe('per-step checks without JavaScript', () => {
  test('tickets to details: no participant or buyer error yet, the participants on the details step', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), {
      [`qty.${race.paid}`]: '1',
      action: 'details',
      from: 'tickets',
    });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /data-stage="details"/);
    assert.doesNotMatch(res.body, /class="error"/);
    // the details section (shown, first in the page) holds the participant's fields
    const details = res.body.slice(
      res.body.indexOf('data-step="details"'),
      res.body.indexOf('data-step="tickets"'),
    );
    assert.match(details, /id="f-items-0-answers-tshirt"/);
    assert.match(details, /id="f-buyer-name"/);
    assert.doesNotMatch(details, /name="qty\./, 'the quantities stay on the tickets step');
  });

  test('details to payment: a participant error keeps the buyer on details, linked from the summary', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), {
      ...fullForm(race),
      'items[0].answers.tshirt': '',
      action: 'payment',
      from: 'details',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /data-stage="details"/);
    expectFieldError(res.body, 'f-items-0-answers-tshirt', /T-shirt size is required/);
    assert.match(
      res.body,
      /<a href="#f-items-0-answers-tshirt">Participant 1: T-shirt size is required<\/a>/,
    );
    assert.equal(await ordersOf(h, id), 0);
  });

  test('no ticket chosen: the tickets step, whatever step the form came from', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), {
      ...fullForm(race),
      [`qty.${race.paid}`]: '0',
      from: 'payment',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /data-stage="tickets"/);
    expectFieldError(res.body, 'f-items', /Choose at least one ticket/);
  });

  test('a partner line item opens a new order on details, counted as step 1 of 2', async () => {
    const id = await createSession(h, race, { line_items: [{ ticket_type_id: race.paid, quantity: 1 }] });
    const page = await getPage(h, `/checkout/${id}`);
    assert.match(page.body, /data-stage="details"/);
    assert.match(page.body, /data-tickets-known/);
    assert.match(page.body, /Step 1 of 2<\/span>Your details/);
    assert.match(page.body, /Step 2 of 2<\/span>Payment/);
  });
});

describe('the phone of a free registration', () => {
  test('is optional on the page and may be left out: the order stores an empty phone', async () => {
    const id = await createSession(h, race);
    const shown = await postForm(h, orderUrl(id), {
      ...fullForm(race, { ticket: 'free' }),
      action: 'details',
      from: 'tickets',
    });
    assert.match(shown.body, /<span class="optional-mark" data-optional-mark>\(optional\)<\/span>/);
    assert.match(tagWithId(shown.body, 'f-buyer-phone'), /data-check="optional"/);
    const res = await postForm(h, orderUrl(id), {
      ...fullForm(race, { ticket: 'free' }),
      'buyer.phone': '',
      payment_method: '',
      payment_phone: '',
      from: 'details',
    });
    assert.equal(res.statusCode, 303);
    const session = await readSession(h, race, id);
    assert.equal(session.status, 'complete');
    const order = await readOrder(h, race, session.order!.id);
    assert.equal(order.status, 'paid');
    assert.equal(order.buyer.phone, '');
    const [row] = await h.service.ctx.database.rows<{ buyer_phone: string }>(
      sql`SELECT buyer_phone FROM orders WHERE id = ${session.order!.id}`,
    );
    assert.equal(row!.buyer_phone, '');
  });

  test('a phone typed must still be valid', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, orderUrl(id), {
      ...fullForm(race, { ticket: 'free' }),
      'buyer.phone': '12345',
      from: 'details',
    });
    assert.equal(res.statusCode, 400);
    expectFieldError(res.body, 'f-buyer-phone', /Phone number must be a Ugandan mobile number/);
    assert.equal(await ordersOf(h, id), 0);
  });

  test('a paid order, or a free one with a donation, still needs a phone', async () => {
    const id = await createSession(h, race);
    const paid = await postForm(h, orderUrl(id), { ...fullForm(race), 'buyer.phone': '', from: 'details' });
    assert.equal(paid.statusCode, 400);
    expectFieldError(paid.body, 'f-buyer-phone', /Phone number must be a Ugandan mobile number/);
    assert.match(tagWithId(paid.body, 'f-buyer-phone'), /data-check="required"/);
    const gift = await postForm(h, orderUrl(id), {
      ...fullForm(race, { ticket: 'free' }),
      'buyer.phone': '',
      donation_minor: '5000',
      from: 'details',
    });
    assert.equal(gift.statusCode, 400);
    expectFieldError(gift.body, 'f-buyer-phone', /Phone number must be a Ugandan mobile number/);
    assert.equal(await ordersOf(h, id), 0);
  });

  test('is required when the event asks for it', async () => {
    const strict = await makeRace(h);
    await patchEvent(h.service.ctx.database.db, strict.eventId, { phone_required: true }, new Date());
    const id = await createSession(h, strict);
    const res = await postForm(h, orderUrl(id), {
      ...fullForm(strict, { ticket: 'free' }),
      'buyer.phone': '',
      from: 'details',
    });
    assert.equal(res.statusCode, 400);
    expectFieldError(res.body, 'f-buyer-phone', /Phone number must be a Ugandan mobile number/);
    assert.doesNotMatch(res.body, /data-optional-mark/, 'no "(optional)" to switch on');
    assert.match(tagWithId(res.body, 'f-buyer-phone'), /data-check="required"/);
  });
});
