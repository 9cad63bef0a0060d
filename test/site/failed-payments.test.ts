// Places go back on sale once a buyer cannot pay: after the third failed payment of an order it is
// cancelled and its places released at once, not at the end of the hold; the wait page says why in
// the buyer's language and offers a fresh start. Two failures still hold the places.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { FAILED_PAYMENTS_PER_ORDER } from '../../src/payments/payment-attempts.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  countRows,
  createSession,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readSession,
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

const held = () => countRows(h, sql`SELECT held_count AS n FROM ticket_types WHERE id = ${race.paid}`);
const failed = (id: string) =>
  countRows(
    h,
    sql`SELECT count(*)::int AS n FROM payment_attempts a JOIN orders o ON o.id = a.order_id
      WHERE o.checkout_session_id = ${id} AND a.status = 'failed'`,
  );

/** Sends the order's next prompt to `phone` (a simulator number that fails) and waits for the failure. */
async function failOnce(id: string, phone: string, method: 'momo' | 'airtel', first = false) {
  const before = await failed(id);
  const res = first
    ? await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone, method }))
    : await postForm(h, `/checkout/${id}/retry`, { payment_method: method, payment_phone: phone });
  assert.equal(res.statusCode, 303, res.body.slice(0, 400));
  await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
  assert.equal(await failed(id), before + 1);
}

describe('places back on sale after failed payments', () => {
  test(`the ${FAILED_PAYMENTS_PER_ORDER}rd failure cancels the order and frees its place; the page says so`, async () => {
    assert.equal(FAILED_PAYMENTS_PER_ORDER, 3);
    const id = await createSession(h, race);
    const before = await held();
    await failOnce(id, '0770000003', 'momo', true);
    await failOnce(id, '0700000005', 'airtel');
    let status = await waitForStatus(h, id, () => true);
    assert.equal(status.order_status, 'pending', 'two failures: the buyer may still pay');
    assert.equal(await held(), before + 1);
    await failOnce(id, '0770000006', 'momo');
    status = await waitForStatus(h, id, (s) => s.order_status === 'cancelled');
    assert.equal(status.failure_kind, 'payment_declined');
    assert.equal(await held(), before, 'the place is back on sale at once');
    const session = await readSession(h, race, id);
    assert.equal(session.status, 'open', 'the buyer may start again in the same checkout');
    const page = await getPage(h, `/checkout/${id}/pay`);
    assert.match(page.body, /After 3 payments that did not go through, your places were released/);
    assert.match(page.body, /Start again/);
    assert.doesNotMatch(page.body, /\/retry"/);
    const sw = await getPage(h, `/checkout/${id}/pay?lang=sw`);
    assert.match(sw.body, /Baada ya malipo 3 kushindikana/);
    // starting again holds the place anew
    const again = await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone: '0770000001' }));
    assert.equal(again.statusCode, 303, again.body.slice(0, 400));
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
  });

  test('not while a payment of the order may still succeed: the hold covers it as before', async () => {
    const id = await createSession(h, race);
    await failOnce(id, '0770000003', 'momo', true);
    await failOnce(id, '0700000005', 'airtel');
    // a prompt that timed out and that the provider has not settled yet
    const orderId = (await readSession(h, race, id)).order!.id;
    await h.service.ctx.database.rows(sql`INSERT INTO payment_attempts
      (id, reference, order_id, organization_id, method, msisdn, amount, currency, status, prompt_expires_at, created_at)
      SELECT 'pay_timedout' || substr(md5(random()::text), 1, 12), gen_random_uuid(), id, organization_id, 'momo',
        '256770000002', total, currency, 'timed_out', now(), now() - interval '1 minute'
      FROM orders WHERE id = ${orderId}`);
    await failOnce(id, '0770000006', 'momo');
    const status = await waitForStatus(h, id, () => true);
    assert.equal(status.order_status, 'pending');
  });
});
