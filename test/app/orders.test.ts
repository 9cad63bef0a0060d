// The organizer's orders pages over HTTP: the list scoped to the member's organization, each
// filter and the search, bad filters refused next to their fields, pages newest first, the CSV
// export of the same filters (plain headers, local times, phones kept as text, formulas neutralised,
// audited; buyers' contacts only for roles that see them), and one order with its timeline.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
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
    // The filter's days are the organization's (Africa/Kampala): from 21:00 UTC, tomorrow there.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Kampala' }).format(h.clock.now());
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

describe('the Excel export', () => {
  test('the same columns as the CSV; amounts numbers, times dates, phones and formulas text', async () => {
    const ticketTypes = [{ name: '5 km', price_minor: 0, capacity: 50, distance_km: 5 }];
    const event = (await makeEvent(h, mine, { name: 'Tom & Jerry <Fun> Run', ticket_types: ticketTypes })).id;
    const buyer = (name: string, i: number) => ({ name, email: `x${i}@example.org`, phone: `077210000${i}` });
    await makeOrder(h, mine, { eventId: event, buyer: buyer('=1+1', 1) });
    h.clock.advance(60_000);
    const quoted = await makeOrder(h, mine, { eventId: event, buyer: buyer('A & B <"Runners">', 2) });
    const res = await owner.get(`/orders.xlsx?event=${event}`);
    assert.equal(res.statusCode, 200);
    assert.equal(
      res.headers['content-type'],
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.xlsx"$/,
    );
    const { xml, rows } = readSheet(res.rawPayload);
    const csvHeader = csvLines((await owner.get(`/orders.csv?event=${event}`)).body)[0]!;
    assert.deepEqual(
      rows[0]!.map((c) => c.text),
      csvHeader.split(','),
    );
    assert.equal(rows.length, 3);
    const column = (name: string) => rows[0]!.findIndex((c) => c.text === name);
    const [newest, oldest] = [rows[1]!, rows[2]!];
    assert.equal(newest[column('Order')]!.text, quoted.order_code);
    // text is escaped in the XML and reads back as typed; a formula-like name stays text
    assert.match(xml, /A &amp; B &lt;&quot;Runners&quot;&gt;/);
    assert.equal(newest[column('Buyer name')]!.text, 'A & B <"Runners">');
    assert.equal(newest[column('Event')]!.text, 'Tom & Jerry <Fun> Run');
    assert.deepEqual(oldest[column('Buyer name')], { text: '=1+1', type: 'inlineStr', style: '0' });
    assert.doesNotMatch(xml, /<f>/);
    // the phone keeps its leading 0: a text cell with the text format
    assert.deepEqual(newest[column('Buyer phone')], { text: '0772100002', type: 'inlineStr', style: '3' });
    // a free order's total is the number 0 with the currency beside it
    assert.deepEqual(newest[column('Total')], { text: '0', type: 'n', style: '4' });
    assert.equal(newest[column('Currency')]!.text, 'UGX');
    assert.deepEqual(newest[column('Tickets')], { text: '1', type: 'n', style: '0' });
    // the creation time as an Excel date on the event's clock (Kampala, three hours ahead of UTC)
    const created = newest[column('Created (Africa/Kampala)')]!;
    assert.equal(created.type, 'n');
    assert.equal(created.style, '2');
    const createdAt = Date.parse((quoted as typeof quoted & { created_at: string }).created_at);
    assert.equal(Math.round((Number(created.text) - 25_569) * 86_400_000), createdAt + 3 * 3600_000);
    const styles = strFromU8(unzipSync(new Uint8Array(res.rawPayload))['xl/styles.xml']!);
    assert.match(styles, /formatCode="yyyy-mm-dd hh:mm"/);
  });

  test("a viewer's workbook leaves out buyers' contacts and is audited; a role without exports gets 403", async () => {
    const res = await viewer.get(`/orders.xlsx?event=${raceId}`);
    assert.equal(res.statusCode, 200);
    const { rows } = readSheet(res.rawPayload);
    assert.deepEqual(
      rows[0]!.map((c) => c.text),
      [
        'Order',
        'Created (Africa/Kampala)',
        'Event',
        'Status',
        'Total',
        'Currency',
        'Payment method',
        'Buyer name',
        'Tickets',
        'Channel',
        'Partner',
      ],
    );
    assert.deepEqual(
      rows.slice(1).map((r) => r[0]!.text),
      [codes.formula, codes.ada],
    );
    const [entry] = (await listAuditEvents(h.service.ctx.database.db, mine.organizationId, { limit: 1 }))
      .rows;
    assert.equal(entry!.action, 'orders.exported');
    const file = /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))![1];
    assert.match(file!, /\.xlsx$/);
    assert.deepEqual(entry!.details, { file, rows: 2, buyer_contacts: false });
    assert.equal((await owner.get('/orders.xlsx?from=yesterday')).statusCode, 400);
    const developer = await signIn(h, await makeMember(h, mine.organizationId, 'developer'));
    const refused = await developer.get('/orders.xlsx');
    assert.equal(refused.statusCode, 403);
    assert.doesNotMatch((await developer.get('/orders')).body, /orders\.xlsx|orders\.csv/);
    assert.match((await viewer.get('/orders')).body, /href="\/orders\.xlsx"/);
  });
});

/** The workbook's sheet XML and its rows of cells: text (unescaped), type and style. */
function readSheet(body: Buffer): { xml: string; rows: { text: string; type: string; style: string }[][] } {
  const xml = strFromU8(unzipSync(new Uint8Array(body))['xl/worksheets/sheet1.xml']!);
  const unescape = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  // an empty cell is left out: each cell goes to the column its reference names
  const rows = [...xml.matchAll(/<row[^>]*>(.*?)<\/row>/g)].map((row) => {
    const cells: { text: string; type: string; style: string }[] = [];
    for (const c of row[1]!.matchAll(/<c ([^>]*?)(?:\/>|>(.*?)<\/c>)/g)) {
      const letters = /r="([A-Z]+)\d+"/.exec(c[1]!)![1]!;
      const index = [...letters].reduce((n, l) => n * 26 + l.charCodeAt(0) - 64, 0) - 1;
      while (cells.length < index) cells.push({ text: '', type: 'none', style: '0' });
      cells.push({
        text: unescape(/<(?:t|v)[^>]*>([^<]*)<\/(?:t|v)>/.exec(c[2] ?? '')?.[1] ?? ''),
        type: /t="([^"]+)"/.exec(c[1]!)?.[1] ?? 'n',
        style: /s="(\d+)"/.exec(c[1]!)?.[1] ?? '0',
      });
    }
    return cells;
  });
  return { xml, rows };
}

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

  test('a buyer without a phone (a free registration) is shown without an empty item', async () => {
    const buyer = { name: 'Nakato Free', email: 'nakato@example.org', phone: '0772000111' };
    const code = (await makeOrder(h, mine, { eventId: walkId, buyer })).order_code;
    await h.service.ctx.database.rows(sql`UPDATE orders SET buyer_phone = '' WHERE order_code = ${code}`);
    const list = await owner.get(`/orders?q=${code}`);
    assert.match(list.body, /nakato@example\.org<\/span/);
    const id = /href="\/orders\/(ord_[A-Za-z0-9]+)"/.exec(list.body)![1]!;
    const page = await owner.get(`/orders/${id}`);
    assert.match(page.body, /Nakato Free, nakato@example\.org\s*<\/dd>/);
  });
});
