// Erasing a buyer's personal data from an order's page in the organizer app: owners and admins
// only, a confirmation page that says what goes and what stays, CSRF-protected, within the
// organization only, audited with the member as actor, and harmless when done twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { ERASED } from '../../src/privacy/redact-orders.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { Agent, makeMember, signIn, textOf, type TestMember } from '../app/app-helpers.ts';
import { amountsOf, makeRace, placeOrder, rowsOf, storedOrder, type Race } from './privacy-helpers.ts';

let h: Harness;
let race: Race;
let owner: TestMember;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
  owner = await makeMember(h, race.partner.organizationId, 'owner');
});
after(() => h.close());

async function auditOf(organizationId: string) {
  return rowsOf<Record<string, unknown>>(
    h,
    sql`SELECT actor_member_id, actor_label, action, target_type, target_id, details, ip FROM audit_events
      WHERE organization_id = ${organizationId} AND action = 'buyer.erased' ORDER BY id`,
  );
}

let buyers = 0;
/** A buyer of their own for each test: two orders here, one in another organization. */
async function buyerWithOrders() {
  buyers++;
  const buyer = { name: `Fay Number${buyers}`, email: `fay${buyers}@example.org`, phone: '0772123470' };
  const first = (await placeOrder(h, race, buyer)).id;
  const second = (await placeOrder(h, race, buyer, { tickets: 1 })).id;
  const elsewhere = await makeRace(h);
  const theirs = (await placeOrder(h, elsewhere, buyer)).id;
  return { buyer, first, second, theirs, elsewhere };
}

describe('buyer erasure in the organizer app', () => {
  test('an owner erases from the order page after a confirmation that says what goes and what stays', async () => {
    const { buyer, first, second, theirs } = await buyerWithOrders();
    const amounts = await amountsOf(h, first);
    const agent = await signIn(h, owner);
    const page = await agent.get(`/orders/${first}`);
    assert.match(page.body, new RegExp(`href="/orders/${first}/erase-buyer"`));

    const ask = await agent.get(`/orders/${first}/erase-buyer`);
    assert.equal(ask.statusCode, 200);
    const asked = textOf(ask.body);
    assert.match(asked, new RegExp(`Erase the personal data of ${buyer.name}\\?`));
    assert.match(asked, new RegExp(`Every order of this organization placed with ${buyer.email}`));
    assert.match(asked, /What is erased .*name, email address and phone number/);
    assert.match(asked, /What is kept .*amounts/);
    assert.match(asked, /cannot be undone/);

    const done = await agent.post(`/orders/${first}/erase-buyer`);
    assert.equal(done.statusCode, 200, done.body.slice(0, 300));
    const result = textOf(done.body);
    assert.match(result, /The buyer's personal data is erased/);
    assert.match(result, /Erased from: 2 orders 3 registrations/);
    assert.match(result, /era_[A-Za-z0-9]{24}/);
    assert.equal(result.includes(buyer.email), false);

    for (const id of [first, second]) {
      const stored = await storedOrder(h, id);
      assert.deepEqual(
        [stored.order!.buyer_name, stored.order!.buyer_email, stored.order!.buyer_phone],
        [ERASED, ERASED, ERASED],
      );
    }
    assert.deepEqual(await amountsOf(h, first), amounts);
    // Another organization's order of the same buyer is not this organization's to erase.
    assert.equal((await storedOrder(h, theirs)).order!.buyer_email, buyer.email);

    // One audit entry, the member as actor, the counts and never the data.
    const [entry, ...more] = await auditOf(race.partner.organizationId);
    assert.equal(more.length, 0);
    assert.deepEqual(
      [entry!.actor_member_id, entry!.actor_label, entry!.target_type],
      [owner.memberId, owner.email, 'buyer'],
    );
    const details = entry!.details as Record<string, unknown>;
    assert.equal(details.orders, 2);
    assert.equal(typeof details.order_code, 'string');
    for (const trace of [buyer.name, buyer.email, buyer.phone, '256772123470']) {
      assert.equal(JSON.stringify(entry).includes(trace), false, trace);
    }
    // The audit log page shows it.
    const log = textOf((await agent.get('/audit-log')).body);
    assert.match(log, /erased a buyer's personal data: Buyer data, erasure era_/);

    // The order page shows the marker and no erase button any more.
    const after = await agent.get(`/orders/${first}`);
    assert.match(textOf(after.body), /Buyer Personal data erased/);
    assert.doesNotMatch(after.body, /erase-buyer/);
  });

  test('erasing twice is harmless: nothing more changes and nothing more is recorded', async () => {
    const { first } = await buyerWithOrders();
    const agent = await signIn(h, owner);
    await agent.get(`/orders/${first}/erase-buyer`);
    const csrf = agent.csrf!;
    assert.equal((await agent.post(`/orders/${first}/erase-buyer`)).statusCode, 200);
    const entries = (await auditOf(race.partner.organizationId)).length;
    const stored = await storedOrder(h, first);
    // the same form sent again (a second tab, a reload): back to the order, nothing done
    const again = await agent.post(`/orders/${first}/erase-buyer`, { _csrf: csrf });
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/orders/${first}`);
    assert.equal((await agent.get(`/orders/${first}/erase-buyer`)).statusCode, 303);
    assert.equal((await auditOf(race.partner.organizationId)).length, entries);
    assert.deepEqual(await storedOrder(h, first), stored);
  });

  test('an admin may erase; a developer and a viewer are refused with 403 and nothing changes', async () => {
    for (const role of ['developer', 'viewer'] as const) {
      const { buyer, first } = await buyerWithOrders();
      const agent = await signIn(h, await makeMember(h, race.partner.organizationId, role));
      const page = await agent.get(`/orders/${first}`);
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /erase-buyer/, `${role}: no button`);
      assert.equal((await agent.get(`/orders/${first}/erase-buyer`)).statusCode, 403);
      const refused = await agent.post(`/orders/${first}/erase-buyer`);
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /Your role cannot do this/);
      assert.equal((await storedOrder(h, first)).order!.buyer_email, buyer.email, role);
    }
    const { first } = await buyerWithOrders();
    const agent = await signIn(h, await makeMember(h, race.partner.organizationId, 'admin'));
    await agent.get(`/orders/${first}/erase-buyer`);
    assert.equal((await agent.post(`/orders/${first}/erase-buyer`)).statusCode, 200);
    assert.equal((await storedOrder(h, first)).order!.buyer_email, ERASED);
  });

  test("the form needs its CSRF token and a same-site origin; another organization's order is not found", async () => {
    const { buyer, first, theirs, elsewhere } = await buyerWithOrders();
    const agent = await signIn(h, owner);
    await agent.get(`/orders/${first}/erase-buyer`);
    const valid = agent.csrf!;
    for (const [fields, headers] of [
      [{ _csrf: '' }, {}],
      [{ _csrf: 'wrong-token-0123456789abcdef' }, {}],
      [{ _csrf: valid }, { origin: 'https://evil.example' }],
    ] as const) {
      const res = await agent.post(`/orders/${first}/erase-buyer`, fields, headers);
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /Nothing was changed/);
    }
    agent.csrf = valid;
    assert.equal((await storedOrder(h, first)).order!.buyer_email, buyer.email);
    // another organization's order: the same 404 as none
    for (const id of [theirs, 'ord_ZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      assert.equal((await agent.get(`/orders/${id}/erase-buyer`)).statusCode, 404);
      assert.equal((await agent.post(`/orders/${id}/erase-buyer`)).statusCode, 404);
    }
    assert.equal((await storedOrder(h, theirs)).order!.buyer_email, buyer.email);
    assert.equal((await auditOf(elsewhere.partner.organizationId)).length, 0);
    // signed out: to the sign-in page
    const stranger = new Agent(h);
    const res = await stranger.post(`/orders/${first}/erase-buyer`);
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers.location), /^\/sign-in/);
  });
});
