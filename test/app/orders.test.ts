// The organizer's orders pages over HTTP: the list scoped to the member's organization, each
// filter and the search, bad filters refused next to their fields, pages newest first, the CSV
// export of the same filters (plain headers, local times, phones kept as text, formulas neutralised,
// audited; buyers' contacts only for roles that see them), and one order with its timeline.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { Agent, makeMember, makeOrder, signIn } from './app-helpers.ts';
import { ORDERS_PER_PAGE } from '../../src/app/routes/orders-list.ts';
import { listAuditEvents } from '../../src/audit/audit-log.ts';

let h: Harness;
let mine: TestPartner;
let theirs: TestPartner;
let owner: Agent;
let viewer: Agent;
let raceId: string;
let walkId: string;
const codes: Record<string, string> = {};

before(async () => {
  h = await startHarness({ env: { RATE_LIMIT_BEARER_RATE: '100000', RATE_LIMIT_BEARER_BURST: '100000' } });
  mine = await makePartner(h);
  theirs = await makePartner(h);
  owner = await signIn(h, await makeMember(h, mine.organizationId, 'owner'));
  viewer = await signIn(h, await makeMember(h, mine.organizationId, 'viewer'));
  raceId = (await makeEvent(h, mine, { name: 'Kampala City 10K' })).id;
  walkId = (await makeEvent(h, mine, { name: 'Jinja Charity Walk' })).id;
  const theirEvent = (await makeEvent(h, theirs, { name: 'Their Race' })).id;
  const buyers = {
    ada: { name: 'Ada Runner', email: 'ada@example.org', phone: '0772123456' },
    okello: { name: 'Okello Brian', email: 'okello@example.org', phone: '0701234567' },
    formula: { name: '=HYPERLINK("x")', email: 'f@example.org', phone: '0752000000' },
  };
  codes.ada = (await makeOrder(h, mine, { eventId: raceId, buyer: buyers.ada })).order_code;
  h.clock.advance(60_000);
  codes.okello = (await makeOrder(h, mine, { eventId: walkId, buyer: buyers.okello, paid: true })).order_code;
  h.clock.advance(60_000);
  codes.formula = (await makeOrder(h, mine, { eventId: raceId, buyer: buyers.formula })).order_code;
  codes.theirs = (await makeOrder(h, theirs, { eventId: theirEvent })).order_code;
});
after(() => h.close());

/** The order codes a list page shows, in order. */
function listed(body: string): string[] {
  return [...body.matchAll(/<a href="\/orders\/ord_[A-Za-z0-9]+"><code>([A-Z0-9]{8})<\/code><\/a>/g)].map(
    (m) => m[1]!,
  );
}

describe('the orders list', () => {
  test("shows the organization's orders, newest first, and never another organization's", async () => {
    const res = await viewer.get('/orders');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(listed(res.body), [codes.formula, codes.okello, codes.ada]);
    // a free order's total reads Free, a paid one's its amount
    assert.equal(res.body.match(/data-label="Total" class="nowrap">Free</g)?.length, 2);
    assert.match(res.body, /data-label="Total" class="nowrap">UGX\u00a0\d/);
    assert.doesNotMatch(res.body, new RegExp(codes.theirs!));
    assert.match(res.body, /Kampala City 10K/);
    assert.match(res.body, /Partner&#39;s server \(API\)|Partner's server \(API\)/);
  });

  test('each filter and the search narrow the list', async () => {
    const cases: [string, string[]][] = [
      [`/orders?event=${walkId}`, [codes.okello!]],
      ['/orders?status=pending', [codes.okello!]],
      ['/orders?status=paid', [codes.formula!, codes.ada!]],
      ['/orders?channel=api', [codes.formula!, codes.okello!, codes.ada!]],
      ['/orders?channel=hosted', []],
      [`/orders?client=${mine.clientId}`, [codes.formula!, codes.okello!, codes.ada!]],
      [`/orders?q=${codes.ada}`, [codes.ada!]],
      [`/orders?q=${codes.ada!.toLowerCase()}`, [codes.ada!]],
      ['/orders?q=okello', [codes.okello!]],
      ['/orders?q=OKELLO%40EXAMPLE', [codes.okello!]],
      ['/orders?q=%2B256%20772%20123456', [codes.ada!]],
      ['/orders?q=Ada%20Runner%20Junior', [codes.ada!]],
      ['/orders?q=%25', []],
      ['/orders?q=_', []],
    ];
    for (const [url, expected] of cases) {
      const res = await owner.get(url);
      assert.equal(res.statusCode, 200, url);
      assert.deepEqual(listed(res.body), expected, url);
    }
    const today = h.clock.now().toISOString().slice(0, 10);
    assert.equal(listed((await owner.get(`/orders?from=${today}&to=${today}`)).body).length, 3);
    assert.equal(listed((await owner.get('/orders?to=2001-01-01')).body).length, 0);
  });

  test('filters that cannot be read are refused next to their fields with 400, and nothing is listed', async () => {
    const res = await owner.get('/orders?from=12-07-2026&to=2026-02-30&status=lost&channel=fax&event=x');
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /<title>Error: Orders/);
    for (const field of ['from', 'to', 'status', 'channel', 'event']) {
      assert.match(res.body, new RegExp(`id="f-${field}-error">Error: `), field);
    }
    assert.deepEqual(listed(res.body), []);
    const tampered = await owner.get('/orders?after=123.nope');
    assert.equal(tampered.statusCode, 400);
    assert.equal((await owner.get(`/orders?q=${'x'.repeat(101)}`)).statusCode, 400);
    assert.equal((await owner.get('/orders.csv?from=yesterday')).statusCode, 400);
  });

  test('pages run newest first without repeating or losing an order', async () => {
    const event = (
      await makeEvent(h, mine, {
        name: 'Many Runs',
        ticket_types: [{ name: '5 km', price_minor: 0, capacity: 500, distance_km: 5 }],
      })
    ).id;
    const made: string[] = [];
    for (let i = 0; i < ORDERS_PER_PAGE + 3; i++) {
      made.unshift((await makeOrder(h, mine, { eventId: event })).order_code);
      h.clock.advance(1000);
    }
    const first = await owner.get(`/orders?event=${event}`);
    const older = /href="(\/orders\?[^"]*after=[^"]+)">Older orders/.exec(first.body);
    assert.ok(older, 'a link to the next page');
    const second = await owner.get(older[1]!.replace(/&amp;/g, '&'));
    assert.deepEqual([...listed(first.body), ...listed(second.body)], made);
    assert.doesNotMatch(second.body, /Older orders/);
  });
});

describe('the CSV export', () => {
  test('holds every order of the filter, quoted, with formulas neutralised', async () => {
    const res = await owner.get(`/orders.csv?event=${raceId}`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = csvLines(res.body);
    // plain headers; one event, so the times are on its clock and the header names the zone
    assert.equal(
      lines[0],
      'Order,Created (Africa/Kampala),Event,Status,Total,Currency,Payment method,Buyer name,Buyer email,Buyer phone,Tickets,Channel,Partner',
    );
    assert.equal(lines.length, 3);
    assert.ok(lines[1]!.startsWith(`${codes.formula},`));
    assert.ok(lines[1]!.includes(`"'=HYPERLINK(""x"")"`), lines[1]);
    // the phone keeps its leading 0 in Excel: ="0772123456"
    assert.ok(lines[2]!.includes(',Ada Runner,ada@example.org,"=""0772123456""",1,'), lines[2]);
    assert.doesNotMatch(res.body, new RegExp(codes.theirs!));
  });

  test('times on the event clock, totals in major units; several zones are named in a column', async () => {
    const nairobi = (
      await makeEvent(h, mine, {
        name: 'Nairobi Night Run',
        timezone: 'Africa/Nairobi',
      })
    ).id;
    // a 30,000 UGX ticket; the order's total adds the booking fee
    const paid = await makeOrder(h, mine, { eventId: nairobi, paid: true });
    const res = await owner.get('/orders.csv');
    const lines = csvLines(res.body);
    assert.match(lines[0]!, /^Order,Created \(each event's local time\),Time zone,Event,/);
    const row = lines.find((l) => l.startsWith(paid.order_code))!;
    // the harness clock's instant, three hours ahead of UTC in Nairobi
    const local = new Date(h.clock.now().getTime() + 3 * 3600_000)
      .toISOString()
      .slice(0, 16)
      .replace('T', ' ');
    assert.ok(row.startsWith(`${paid.order_code},${local},Africa/Nairobi,Nairobi Night Run,`), row);
    assert.match(row, /,pending,"3\d,\d{3}",UGX,/);
  });

  test("a viewer's file leaves out buyers' email and phone, and each download is audited", async () => {
    const res = await viewer.get(`/orders.csv?event=${raceId}`);
    assert.equal(res.statusCode, 200);
    const lines = csvLines(res.body);
    assert.equal(
      lines[0],
      'Order,Created (Africa/Kampala),Event,Status,Total,Currency,Payment method,Buyer name,Tickets,Channel,Partner',
    );
    assert.doesNotMatch(res.body, /ada@example\.org|0772123456/);
    const [entry] = (await listAuditEvents(h.service.ctx.database.db, mine.organizationId, { limit: 1 }))
      .rows;
    assert.equal(entry!.action, 'orders.exported');
    assert.equal(entry!.targetType, 'event');
    assert.equal(entry!.targetId, raceId);
    const file = /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))![1];
    assert.deepEqual(entry!.details, { file, rows: 2, buyer_contacts: false });
    const list = await viewer.get('/orders');
    assert.match(list.body, /Ada Runner/);
    assert.doesNotMatch(list.body, /ada@example\.org|0772123456/);
  });
});

function csvLines(body: string): string[] {
  return body
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n');
}

describe('one order', () => {
  test("shows its registrations and timeline; another organization's is the same 404 as a missing one", async () => {
    const list = await owner.get(`/orders?q=${codes.okello}`);
    const id = /href="\/orders\/(ord_[A-Za-z0-9]+)"/.exec(list.body)![1]!;
    const res = await viewer.get(`/orders/${id}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, new RegExp(`<h1>Order <code>${codes.okello}</code></h1>`));
    assert.match(res.body, /Okello Brian Junior/);
    assert.match(res.body, /Jinja Charity Walk/);
    assert.match(res.body, /Order created/);
    const theirs = (await owner.get('/orders?q=' + codes.theirs)).body;
    assert.deepEqual(listed(theirs), []);
    const missing = await owner.get('/orders/ord_ZZZZZZZZZZZZZZZZZZZZZZZZ');
    assert.equal(missing.statusCode, 404);
    assert.equal((await owner.get('/orders/not-an-id')).statusCode, 404);
  });
});
