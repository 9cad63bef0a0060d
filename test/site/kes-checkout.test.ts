// A KES event's hosted checkout without JavaScript: M-Pesa alone, shown as chosen, prices in
// shillings with the fee rounded to whole shillings, numbers read as Kenyan (a Ugandan one refused
// in Kenya's words), and a payment through the simulator's Daraja to the confirmation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  createSession,
  expectFieldError,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readOrder,
  readSession,
  tagWithId,
  waitForStatus,
  type Race,
} from './site-helpers.ts';

let h: Harness;
let kes: Race;

before(async () => {
  h = await startHarness();
  kes = await makeRace(h, {
    name: 'Nairobi City 10K',
    venue: 'Uhuru Park',
    currency: 'KES',
    timezone: 'Africa/Nairobi',
    ticket_types: [
      // KES 1,500.00: its 3.5 % fee is KES 52.50, which a buyer pays as KES 53
      { name: '10 km', price_minor: 150_000, capacity: 100, distance_km: 10, min_age: 16 },
      { name: '5 km fun run', price_minor: 0, capacity: 5, distance_km: 5 },
    ],
  });
});
after(() => h.close());

const orderUrl = (id: string) => `/checkout/${id}/order`;
const NBSP = '\u00a0';

/** A complete form for one paid ticket of the KES event, bought by a Kenyan buyer. */
function kenyanForm(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...fullForm(kes, { method: 'mpesa', phone: '0711000001' }),
    'buyer.phone': '0712345678',
    ...extra,
  };
}

describe('a KES event on the hosted checkout', () => {
  test('offers M-Pesa only, in shillings, the fee rounded to whole shillings', async () => {
    const id = await createSession(h, kes);
    const first = await getPage(h, `/checkout/${id}`);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /data-currency="KES" data-methods="mpesa"/);
    assert.match(first.body, new RegExp(`data-mpesa="KES${NBSP}1,553\\.00"`));
    assert.match(first.body, new RegExp(`incl\\. KES${NBSP}53\\.00 fee`));
    assert.match(first.body, /data-fee-mpesa="5300"/);
    assert.doesNotMatch(first.body, /Fees shown are for/, 'no network to say the fees are for');
    assert.doesNotMatch(first.body, /data-(momo|airtel)=|data-fee-(momo|airtel)/);
    assert.match(first.body, /A Kenyan mobile number, such as 0712 345678/);
    // the page script's words name Safaricom and Kenya, not Uganda's networks
    assert.match(first.body, /"phoneNotMobileMoney":"[^"]*enter a Safaricom number such as 0712 345678"/);
    assert.match(first.body, /"phoneInvalid":"Enter a Kenyan mobile number such as 0712 345678"/);
    assert.doesNotMatch(first.body, /MTN|Airtel|Ugandan/);

    const step = await postForm(h, orderUrl(id), { ...kenyanForm(), action: 'payment', from: 'details' });
    assert.equal(step.statusCode, 200, step.body);
    assert.match(step.body, /data-stage="payment"/);
    // one method: no radio to pick, the tile shown as chosen and sent as a hidden field
    assert.doesNotMatch(step.body, /type="radio"[^>]*name="payment_method"/);
    assert.match(
      step.body,
      /<div class="check chosen" data-only-method><input type="hidden" name="payment_method" value="mpesa"><span class="brand brand-mpesa" aria-hidden="true">M-PESA<\/span><span>M-Pesa<\/span>/,
    );
    assert.match(tagWithId(step.body, 'f-payment_phone'), /placeholder="0712 345678"/);
    assert.match(step.body, new RegExp(`Service fee \\(M-Pesa\\)</th><td class="num">KES${NBSP}53\\.00<`));
    assert.match(step.body, new RegExp(`<th scope="row">Total</th><td class="num">KES${NBSP}1,553\\.00<`));
    assert.match(step.body, new RegExp(`Pay KES${NBSP}1,553\\.00`));
    assert.doesNotMatch(step.body, /MTN|Airtel/);
  });

  test('reads numbers as Kenyan: a Ugandan number is refused in Kenya’s words', async () => {
    const id = await createSession(h, kes);
    const abroad = await postForm(h, orderUrl(id), kenyanForm({ payment_phone: '+256 772 123456' }));
    assert.equal(abroad.statusCode, 400);
    expectFieldError(abroad.body, 'f-payment_phone', /Enter a Kenyan mobile number such as 0712 345678$/);
    // 0772… read as a Kenyan number is no Safaricom one
    const other = await postForm(h, orderUrl(id), kenyanForm({ payment_phone: '0772123456' }));
    assert.equal(other.statusCode, 400);
    expectFieldError(
      other.body,
      'f-payment_phone',
      /This number cannot receive mobile money: enter a Safaricom number such as 0712 345678$/,
    );
    // a method of another currency is no choice on this event's page
    const momo = await postForm(h, orderUrl(id), kenyanForm({ payment_method: 'momo' }));
    assert.equal(momo.statusCode, 400);
    assert.match(momo.body, /<p class="error" id="err-f-payment_method">Error: Choose how to pay<\/p>/);
    const sw = await postForm(h, `${orderUrl(id)}?lang=sw`, kenyanForm({ payment_phone: '+256 772 123456' }));
    expectFieldError(
      sw.body,
      'f-payment_phone',
      /Andika namba ya simu ya mkononi ya Kenya, kama 0712 345678$/,
    );
  });

  test('pays with M-Pesa through the simulator to the confirmation', async () => {
    const id = await createSession(h, kes);
    // The method's hidden field left out too: the event's only method is the buyer's.
    const { payment_method: _left, ...form } = kenyanForm();
    const paid = await postForm(h, orderUrl(id), form);
    assert.equal(paid.statusCode, 303, paid.body);
    const waiting = await getPage(h, `/checkout/${id}/pay`);
    assert.match(
      waiting.body,
      new RegExp(`We sent a prompt for<strong>KES${NBSP}1,553\\.00</strong>to M-Pesa number`),
    );
    assert.match(waiting.body, /<strong>0711 ••• 001<\/strong>/);
    assert.match(waiting.body, /\(M-Pesa \*334#\)/);
    assert.doesNotMatch(waiting.body, /\*165#|\*185#/);
    assert.match(waiting.body, /<button type="submit">Use another number<\/button>/);
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const done = await getPage(h, `/checkout/${id}/pay`);
    assert.match(done.body, /You are registered/);
    const order = await readOrder(h, kes, (await readSession(h, kes, id)).order!.id);
    assert.equal(order.status, 'paid');
    assert.equal(order.currency, 'KES');
    assert.equal(order.total, 155_300);
    assert.equal(order.payment_method, 'mpesa');
    assert.equal(order.buyer.phone, '254712345678');
  });

  test('a donation is typed in whole shillings', async () => {
    const id = await createSession(h, kes);
    const step = await postForm(h, orderUrl(id), {
      ...kenyanForm({ donation_minor: '100' }),
      action: 'payment',
      from: 'details',
    });
    assert.match(step.body, new RegExp(`<th scope="row">Donation</th><td class="num">KES${NBSP}100\\.00<`));
    assert.match(step.body, new RegExp(`Pay KES${NBSP}1,653\\.00`));
    assert.match(step.body, /"wholeNumber":"Enter a whole number of KES, such as 5000"/);
    const paid = await postForm(h, orderUrl(id), kenyanForm({ donation_minor: '100' }));
    assert.equal(paid.statusCode, 303, paid.body);
    const order = await readOrder(h, kes, (await readSession(h, kes, id)).order!.id);
    assert.deepEqual([order.donation_total, order.total], [10_000, 165_300]);
  });

  test('the retry form offers M-Pesa alone with its total', async () => {
    const id = await createSession(h, kes);
    await postForm(h, orderUrl(id), kenyanForm({ payment_phone: '0711000003' }));
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /action="\/checkout\/[^"]+\/retry"/);
    assert.match(
      page.body,
      new RegExp(`value="mpesa">[^]*?<span>M-Pesa<span class="detail">KES${NBSP}1,553\\.00</span>`),
    );
    assert.doesNotMatch(page.body, /type="radio"[^>]*name="payment_method"|MTN|Airtel/);
    assert.match(tagWithId(page.body, 'f-payment_phone'), /value="0711000003"/);
    const ugandan = await postForm(h, `/checkout/${id}/retry`, {
      payment_method: 'mpesa',
      payment_phone: '0770000001',
    });
    assert.equal(ugandan.statusCode, 400);
    expectFieldError(ugandan.body, 'f-payment_phone', /enter a Safaricom number such as 0712 345678/);
    const retry = await postForm(h, `/checkout/${id}/retry`, { payment_phone: '0711000001' });
    assert.equal(retry.statusCode, 303, retry.body);
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
  });
});
