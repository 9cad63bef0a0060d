// The checkout preview of the organizer app: the event page links to it; every role sees the
// hosted checkout's own form (tickets, details, payment) under the "nothing here is sold" banner,
// for a draft too; each button is a GET of the preview that shows the next step or the buyer's
// errors; and nothing is ever written: no session, order, registration, hold, payment or job.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { count } from 'drizzle-orm';
import { PREVIEW_CONTENT_SECURITY_POLICY } from '../../src/app/app-scope.ts';
import { checkoutSessions } from '../../src/checkout/checkout.schema.ts';
import { findEvent } from '../../src/events/events.ts';
import { orders, registrations } from '../../src/orders/orders.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_STYLES, SITE_ICON } from '../../src/site/assets.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { makeMember, signIn, textOf, type Agent } from './app-helpers.ts';

const DAY = 86_400_000;

let h: Harness;
let partner: TestPartner;
let organizationId: string;
let owner: Agent;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  organizationId = partner.organizationId;
  owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
});
after(() => h.close());

/** Everything a sale would write, and the event's ticket counts. */
async function writtenState(eventId: string) {
  const db = h.service.ctx.database.db;
  const rows = [];
  for (const table of [checkoutSessions, orders, registrations, paymentAttempts, jobs]) {
    rows.push((await db.select({ n: count() }).from(table))[0]!.n);
  }
  const found = await findEvent(db, eventId);
  return JSON.stringify([rows, found!.ticketTypes.map((tt) => [tt.heldCount, tt.paidCount])]);
}

/** The preview's URL for a form sent from `from` with the button `action`. */
function stepUrl(eventId: string, fields: Record<string, string>): string {
  return `/events/${eventId}/preview?${new URLSearchParams(fields).toString()}`;
}

describe('checkout preview', () => {
  test('the event page links to it; it is the checkout form under the banner, served from the app host', async () => {
    const event = await makeEvent(h, partner, {
      name: 'Entebbe Lakeside 10K',
      cover: 'https://images.example.org/lake.jpg',
    });
    const page = await owner.get(`/events/${event.id}`);
    assert.match(page.body, new RegExp(`<a href="/events/${event.id}/preview">Preview checkout</a>`));
    const res = await owner.get(`/events/${event.id}/preview`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(res.headers['content-security-policy'], PREVIEW_CONTENT_SECURITY_POLICY);
    assert.match(String(res.headers['content-security-policy']), /img-src 'self' data: https:;/);
    assert.match(String(res.headers['content-security-policy']), /form-action 'self'/);
    assert.match(res.body, /<title>Preview: /);
    assert.match(textOf(res.body), /Preview: nothing here is sold\./);
    assert.match(res.body, /<form\s+id="checkout"\s+method="get"\s+action="\/events\/[^"]+\/preview"/);
    assert.doesNotMatch(res.body, /\/checkout\//, 'no link or form of a checkout session');
    assert.doesNotMatch(res.body, /method="post"/);
    for (const stage of ['tickets', 'details', 'payment']) {
      assert.match(res.body, new RegExp(`data-step="${stage}"`), stage);
    }
    assert.match(res.body, /src="https:\/\/images\.example\.org\/lake\.jpg"/);
    // The checkout's own stylesheet and script, from this host (no CSP exception needed).
    for (const asset of [CHECKOUT_STYLES, CHECKOUT_SCRIPT, SITE_ICON]) {
      assert.ok(res.body.includes(`"${asset.path}"`), asset.path);
      const served = await owner.get(asset.path);
      assert.equal(served.statusCode, 200, asset.path);
    }
  });

  test('each button shows the next step, with the errors a buyer would get, and nothing is written', async () => {
    const event = await makeEvent(h, partner, { name: 'Kabale Hills Run' });
    const found = (await findEvent(h.service.ctx.database.db, event.id))!;
    const paid = found.ticketTypes.find((tt) => tt.priceMinor > 0)!;
    const before = await writtenState(event.id);

    const none = await owner.get(stepUrl(event.id, { from: 'tickets', action: 'details' }));
    assert.equal(none.statusCode, 400);
    assert.match(textOf(none.body), /Choose at least one ticket/);

    const chosen = { [`qty.${paid.id}`]: '1', 'items[0].ticket_type_id': paid.id, runner_is_buyer: 'yes' };
    const details = await owner.get(stepUrl(event.id, { ...chosen, from: 'tickets', action: 'details' }));
    assert.equal(details.statusCode, 200);
    assert.match(details.body, /data-stage="details"/);

    const buyer = { 'buyer.name': 'Ayo Grace', 'buyer.email': 'ayo@example.org', 'buyer.phone': '' };
    const bad = await owner.get(
      stepUrl(event.id, { ...chosen, ...buyer, from: 'details', action: 'payment' }),
    );
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /data-stage="details"/);
    assert.match(textOf(bad.body), /Ugandan mobile number/);

    const typed = { ...chosen, ...buyer, 'buyer.phone': '0700000001' };
    const payment = await owner.get(stepUrl(event.id, { ...typed, from: 'details', action: 'payment' }));
    assert.equal(payment.statusCode, 200);
    assert.match(payment.body, /data-stage="payment"/);

    const pay = await owner.get(
      stepUrl(event.id, { ...typed, payment_method: 'airtel', from: 'payment', action: 'pay' }),
    );
    assert.equal(pay.statusCode, 200);
    assert.match(pay.body, /data-stage="payment"/);
    assert.match(textOf(pay.body), /Nothing was held, sent or sold/);

    const wrongNetwork = await owner.get(
      stepUrl(event.id, { ...typed, payment_method: 'momo', from: 'payment', action: 'pay' }),
    );
    assert.equal(wrongNetwork.statusCode, 400);
    assert.doesNotMatch(textOf(wrongNetwork.body), /Nothing was held/);

    assert.equal(await writtenState(event.id), before, 'nothing written');
  });

  test('a draft whose tickets go on sale later is shown as on the day sales open', async () => {
    const opens = new Date(h.clock.now().getTime() + 10 * DAY);
    const event = await makeEvent(h, partner, {
      name: 'Draft Dash',
      status: 'draft',
      ticket_types: [
        {
          name: '21 km',
          price_minor: 50_000,
          capacity: 10,
          sales_start: opens.toISOString(),
          sales_end: new Date(opens.getTime() + 5 * DAY).toISOString(),
        },
      ],
    });
    const res = await owner.get(`/events/${event.id}/preview`);
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /No ticket is on sale yet: shown as on .+, when sales open/);
    // The one type on sale then is chosen, and the form opens on the details step, as the checkout does.
    assert.match(res.body, /<option value="1"\s+selected>1<\/option>/);
    assert.match(res.body, /data-stage="details"/);
    assert.match(res.body, /Step 1 of 2<\/span\s*>\s*Your details/);
  });

  test('every role may preview; another organization gets the 404 of a missing event; language by ?lang', async () => {
    const event = await makeEvent(h, partner);
    for (const role of ['viewer', 'developer', 'admin'] as const) {
      const agent = await signIn(h, await makeMember(h, organizationId, role));
      assert.equal((await agent.get(`/events/${event.id}/preview`)).statusCode, 200, role);
    }
    const stranger = await signIn(h, await makeMember(h, (await makePartner(h)).organizationId, 'owner'));
    const foreign = await stranger.get(`/events/${event.id}/preview`);
    const missing = await stranger.get('/events/evt_ZZZZZZZZZZZZZZZZZZZZZZZZ/preview');
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.body, missing.body);

    const swahili = await owner.get(`/events/${event.id}/preview?lang=sw`);
    assert.match(swahili.body, /<html lang="sw">/);
    assert.match(swahili.body, /<input type="hidden" name="lang" value="sw" \/>/);
    assert.match(swahili.body, /<section class="notice preview" aria-label="Preview" lang="en">/);
  });

  test('odd queries are pages, never errors: unknown buttons, huge quantities, foreign ticket ids', async () => {
    const event = await makeEvent(h, partner);
    for (const query of [
      'action=explode&from=nowhere',
      'qty.tt_nope=5&from=tickets&action=details',
      `from=tickets&action=details&qty.x=${'9'.repeat(50)}`,
      'from=payment&action=pay&payment_method=card&payment_phone=%2B%2B%2B',
      '%E0%A4%A=1&lang=xx',
    ]) {
      const res = await owner.get(`/events/${event.id}/preview?${query}`);
      assert.ok(res.statusCode === 200 || res.statusCode === 400, `${query}: ${res.statusCode}`);
      assert.match(textOf(res.body), /Preview: nothing here is sold/, query);
    }
  });
});
