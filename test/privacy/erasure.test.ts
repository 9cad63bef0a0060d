// The operator's erasure of one buyer: POST /admin/v1/buyer-erasures and `ticketing buyers erase
// --email`, run as an operator runs it (a child process over HTTP). Every organization's orders
// placed with the address lose the buyer's and participants' data wherever the service keeps it;
// the partner API, the organizer app and webhooks then show the marker; amounts stay; each
// organization's audit log says so without the data; a second erasure changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { ERASED } from '../../src/privacy/redact-orders.ts';
import { admin, errorOf, dataOf } from '../admin/admin-helpers.ts';
import { makeMember, signIn, textOf } from '../app/app-helpers.ts';
import { insertSuccessfulPayment } from '../app/payment-fixtures.ts';
import { bearer, getToken, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { CLI, runNode } from '../helpers/release.ts';
import {
  createEndpoint,
  pump,
  pumpFor,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';
import {
  amountsOf,
  makeRace,
  orderBody,
  placeOrder,
  readOrder,
  rowsOf,
  storedOrder,
  type Buyer,
  type Race,
} from './privacy-helpers.ts';

let h: Harness;
let receiver: Receiver;
let appUrl: string;

before(async () => {
  // The receiver answers with what it got, as some do: its excerpt holds the buyer's data.
  receiver = await startReceiver((request) => ({ status: 200, body: request.body.slice(0, 1000) }));
  h = await startWebhookHarness({ RUN_JOBS: 'false' });
  appUrl = (await h.service.listen({ api: 0, site: 0, app: 0 })).app;
});
after(async () => {
  await h.close();
  await receiver.close();
});

function cli(args: string[]) {
  return runNode(
    [CLI, ...args],
    { APP_URL: appUrl, ADMIN_API_KEY: TEST_ADMIN_KEY, DATA_DIR: '/nonexistent' },
    60_000,
  );
}

const erase = (body: unknown) => admin(h, { method: 'POST', url: '/buyer-erasures', body });

/** What of Ann's data could show up anywhere (never plain "ann": "channel" holds it). */
const ANN_TRACES = ['erasmus', 'ann.erase', '0772123461', '256772123461', '256772000111'];
const leaksAnn = (text: string) => ANN_TRACES.filter((trace) => text.toLowerCase().includes(trace));

/** Everything a buyer erasure could touch, to show a refusal changed nothing. */
async function snapshot() {
  return rowsOf(
    h,
    sql`SELECT
      (SELECT string_agg(buyer_email, ',' ORDER BY id) FROM orders) AS orders,
      (SELECT string_agg(participant_name, ',' ORDER BY id) FROM registrations) AS registrations,
      (SELECT count(*)::int FROM audit_events) AS audit`,
  );
}

async function auditOf(organizationId: string) {
  return rowsOf<Record<string, unknown>>(
    h,
    sql`SELECT actor_label, action, target_type, target_id, details, ip FROM audit_events
      WHERE organization_id = ${organizationId} AND action = 'buyer.erased' ORDER BY id`,
  );
}

/** A pending order of one paid ticket with a successful payment on record (its payer's number). */
async function orderWithPayment(race: Race, buyer: Buyer) {
  const order = await placeOrder(h, race, buyer, { paid: true, tickets: 1 });
  await insertSuccessfulPayment(h, {
    organizationId: race.partner.organizationId,
    orderId: order.id,
    msisdn: '256772000111',
  });
  return order.id;
}

describe('buyer erasure by the operator', () => {
  test('a missing or malformed email is validation_failed and changes nothing', async () => {
    const race = await makeRace(h);
    await placeOrder(h, race, { name: 'Una Kept', email: 'una@example.org', phone: '0772000001' });
    const before = await snapshot();
    for (const body of [
      {},
      { email: '' },
      { email: 'not an address' },
      { email: 'una\u0000@example.org' },
      { email: 42 },
      { email: 'una@example.org', org: 'x' },
    ]) {
      const error = errorOf(await erase(body), 400, 'validation_failed');
      assert.ok((error.errors ?? []).length > 0, JSON.stringify(error));
    }
    errorOf(
      await admin(h, {
        method: 'POST',
        url: '/buyer-erasures',
        payload: '{"email":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'validation_failed',
    );
    assert.deepEqual(await snapshot(), before);
    const usage = await cli(['buyers', 'erase']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--email is required\nUsage: ticketing buyers erase --email <email>/);
    const refused = await cli(['buyers', 'erase', '--email', 'una at example.org']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error validation_failed: .+\n {2}email: must be an email address/);
    assert.deepEqual(await snapshot(), before);
  });

  test('an address with no data answers zero counts', async () => {
    const data = dataOf(await erase({ email: 'nobody.ever@example.org' }), 200);
    assert.match(data.erasure_id, /^era_[A-Za-z0-9]{24}$/);
    assert.equal(data.organizations, 0);
    assert.ok(
      Object.values(data.erased).every((n) => n === 0),
      JSON.stringify(data),
    );
  });

  test('the CLI erases a buyer in every organization and prints the counts; readers then show the marker', async () => {
    const first = await makeRace(h);
    const second = await makeRace(h);
    await createEndpoint(h, first.partner.organizationId, receiver.url);
    const ann = { name: 'Ann Erasmus', email: 'Ann.Erase@Example.org', phone: '0772123461' };
    const bob = { name: 'Bob Kept', email: 'bob.kept@example.org', phone: '0772123462' };
    const annFree = (await placeOrder(h, first, ann, { idempotencyKey: 'erase-ann-1' })).id;
    const annPaid = await orderWithPayment(first, ann);
    // the other organization has her under the address in lower case
    const annThere = (await placeOrder(h, second, { ...ann, email: 'ann.erase@example.org' })).id;
    const bobs = (await placeOrder(h, first, bob)).id;
    // a checkout session prefilled with her address, never used
    const session = await h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: { ...bearer(await getToken(h, first.partner)), 'content-type': 'application/json' },
      payload: JSON.stringify({
        event_id: first.eventId,
        on_success_url: 'https://shop.example.org/thanks?session_id={CHECKOUT_SESSION_ID}',
        on_cancel_url: 'https://shop.example.org/cart',
        prefill: { buyer_email: 'ann.erase@example.org', buyer_name: ann.name },
      }),
    });
    assert.equal(session.statusCode, 201, session.body);
    // webhooks delivered (the receiver echoed her data back) and confirmation mails sent
    await pump(h, async () => {
      const [free, there] = [await storedOrder(h, annFree), await storedOrder(h, annThere)];
      const excerpts = await rowsOf(
        h,
        sql`SELECT 1 FROM webhook_attempts WHERE response_excerpt LIKE ${'%Ann Erasmus%'}`,
      );
      return free.mails.length > 0 && there.mails.length > 0 && excerpts.length > 0;
    });
    const kept = await storedOrder(h, bobs);
    const amounts = [await amountsOf(h, annFree), await amountsOf(h, annPaid), await amountsOf(h, annThere)];

    const run = await cli(['buyers', 'erase', '--email', ' ANN.erase@example.ORG ']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^erasure era_[A-Za-z0-9]{24}: 2 organization\(s\) changed\n/);
    assert.match(run.stdout, /\n {2}orders +3\n/);
    assert.match(run.stdout, /\n {2}registrations +5\n/);
    assert.match(run.stdout, /\n {2}payment_attempts +1\n/);
    assert.match(run.stdout, /\n {2}order_mails +2\n/);
    assert.match(run.stdout, /\n {2}checkout_sessions +1\n/);
    // her two paid orders' order.paid events (the second organization has no endpoint: kept all the same)
    assert.match(run.stdout, /\n {2}webhook_events +2\n/);
    assert.match(run.stdout, /\n {2}webhook_responses +[1-9]\d*\n/);
    assert.match(run.stdout, /\n {2}stored_responses +1\n/);
    assert.match(run.stdout, /\n {2}development_mails +2\n?$/);
    const erasureId = /^erasure (era_\w+)/.exec(run.stdout)![1]!;
    assert.deepEqual(leaksAnn(run.stdout), [], 'the answer does not repeat the address');

    // The database: personal fields are the marker, amounts as they were; Bob's order untouched.
    for (const id of [annFree, annPaid, annThere]) {
      const stored = await storedOrder(h, id);
      assert.deepEqual(
        [stored.order!.buyer_name, stored.order!.buyer_email, stored.order!.buyer_phone],
        [ERASED, ERASED, ERASED],
      );
      assert.ok(stored.registrations.every((r) => r.participant_name === ERASED && r.date_of_birth === null));
      assert.ok(stored.mails.every((m) => m.to === ERASED));
      assert.ok(stored.attempts.every((a) => a.msisdn === ERASED));
      assert.ok(stored.events.every((e) => leaksAnn(JSON.stringify(e.payload)).length === 0));
    }
    assert.deepEqual(
      [await amountsOf(h, annFree), await amountsOf(h, annPaid), await amountsOf(h, annThere)],
      amounts,
    );
    assert.deepEqual(await storedOrder(h, bobs), kept);
    const leftovers = await rowsOf(
      h,
      sql`SELECT
        (SELECT count(*)::int FROM webhook_attempts WHERE response_excerpt ILIKE ${'%erasmus%'}) AS excerpts,
        (SELECT count(*)::int FROM dev_mail WHERE lower("to") = 'ann.erase@example.org') AS mails,
        (SELECT count(*)::int FROM checkout_sessions WHERE prefill::text ILIKE ${'%erasmus%'}) AS sessions`,
    );
    assert.deepEqual(leftovers, [{ excerpts: 0, mails: 0, sessions: 0 }]);

    // The partner API shows the marker, with the amounts.
    const seen = await readOrder(h, first, annFree);
    assert.deepEqual(seen.buyer, { name: ERASED, email: ERASED, phone: ERASED });
    assert.deepEqual(
      seen.registrations.map((r: { participant_name: string }) => r.participant_name),
      [ERASED, ERASED],
    );
    assert.equal(seen.total, amounts[0]!.total);
    // A retry of the idempotent request replays the first answer, erased, and makes no order.
    const replay = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: {
        ...bearer(await getToken(h, first.partner)),
        'content-type': 'application/json',
        'idempotency-key': 'erase-ann-1',
      },
      payload: JSON.stringify(orderBody(first, ann)),
    });
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json().data.id, annFree);
    assert.deepEqual(replay.json().data.buyer, { name: ERASED, email: ERASED, phone: ERASED });

    // The organizer app: the order page, the list and the CSV show the marker and never crash.
    const owner = await makeMember(h, first.partner.organizationId, 'owner');
    const agent = await signIn(h, owner);
    const page = await agent.get(`/orders/${annPaid}`);
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /Buyer Personal data erased/);
    assert.match(textOf(page.body), /Prompt to \[erased\]|sent to MTN Mobile Money number \[erased\]/);
    assert.doesNotMatch(page.body, /Erase this buyer/, 'nothing left to erase');
    assert.deepEqual(leaksAnn(page.body), []);
    const list = await agent.get('/orders');
    assert.equal(list.statusCode, 200);
    assert.match(textOf(list.body), /Personal data erased/);
    assert.match(textOf(list.body), /Bob Kept/);
    const csv = await agent.get('/orders.csv');
    assert.equal(csv.statusCode, 200);
    assert.match(csv.body, /\[erased\],\[erased\],\[erased\]/);
    assert.deepEqual(leaksAnn(csv.body), []);

    // Each organization's audit log: one entry by the operator, the counts and never the data.
    for (const [race, orders] of [
      [first, 2],
      [second, 1],
    ] as const) {
      const entries = await auditOf(race.partner.organizationId);
      assert.equal(entries.length, 1);
      const [entry] = entries;
      assert.deepEqual(
        [entry!.actor_label, entry!.target_type, entry!.target_id],
        ['operator', 'buyer', erasureId],
      );
      assert.equal((entry!.details as { orders: number }).orders, orders);
      assert.deepEqual(leaksAnn(JSON.stringify(entry)), [], JSON.stringify(entry));
    }

    // Erasing again is harmless: zero counts, no new audit entry.
    const again = await cli(['buyers', 'erase', '--email', 'ann.erase@example.org', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const data = JSON.parse(again.stdout);
    assert.equal(data.organizations, 0);
    assert.ok(
      Object.values(data.erased).every((n) => n === 0),
      again.stdout,
    );
    assert.equal((await auditOf(first.partner.organizationId)).length, 1);
  });

  test('an order paid just before the erasure: its webhook goes out erased, and no confirmation mail is sent', async () => {
    const race = await makeRace(h);
    await createEndpoint(h, race.partner.organizationId, receiver.url);
    const cy = { name: 'Cy Quick', email: 'cy.quick@example.org', phone: '0772123463' };
    const order = (await placeOrder(h, race, cy)).id;
    const data = dataOf(await erase({ email: cy.email }), 200);
    assert.equal(data.erased.orders, 1);
    // Now the sender takes the order.paid event, and the confirmation job runs.
    await pump(h, () => receiver.requests.some((r) => r.body.includes(order)));
    await pump(h, async () => {
      const jobs = await rowsOf(
        h,
        sql`SELECT 1 FROM jobs WHERE kind = 'confirmation.send' AND payload ->> 'order_id' = ${order}`,
      );
      return jobs.length === 0;
    });
    await pumpFor(h, 300); // a mail sent late would be recorded by now
    const received = receiver.requests.find((r) => r.body.includes(order))!;
    assert.equal(received.body.includes(cy.email), false);
    assert.deepEqual(JSON.parse(received.body).data.buyer, { name: ERASED, email: ERASED, phone: ERASED });
    const mails = await rowsOf(
      h,
      sql`SELECT (SELECT count(*)::int FROM order_mails WHERE order_id = ${order}) AS records,
        (SELECT count(*)::int FROM dev_mail WHERE "to" IN (${cy.email}, ${ERASED})) AS kept`,
    );
    assert.deepEqual(mails, [{ records: 0, kept: 0 }]);
  });
});
