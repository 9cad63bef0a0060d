// An event's money page and its two files, over HTTP, from orders, payments and refunds written
// with known figures (a whole refund, a runner's refund, an amount refund, a payment after the hold
// ended): each network's and ticket type's sums, the net, who sees the downloads, and a 404 for
// another organization's event. How refunds come about is tested with the refunds themselves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { makeMember, signIn, textOf, type Agent } from './app-helpers.ts';
import { seedMoneyEvent } from './money-fixtures.ts';
import { listAuditEvents } from '../../src/audit/audit-log.ts';

let h: Harness;
let organizationId: string;
let eventId: string;
let foreignEventId: string;
let owner: Agent;
let developer: Agent;
const db = () => h.service.ctx.database.db;

before(async () => {
  h = await startHarness();
  const partner = await makePartner(h);
  organizationId = partner.organizationId;
  eventId = await seedMoneyEvent(h, partner);
  foreignEventId = (await makeEvent(h, await makePartner(h))).id;
  owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  developer = await signIn(h, await makeMember(h, organizationId, 'developer'));
});
after(() => h.close());

describe("an event's money", () => {
  test('the page: what buyers paid, fees, donations, refunds and the net, per network and ticket type', async () => {
    const res = await owner.get(`/events/${eventId}/money`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const text = textOf(res.body);
    assert.match(
      text,
      /Paid by buyers UGX 129,200 Service fees UGX 4,200 Donations UGX 5,000 Refunded UGX 75,450 You receive UGX 52,000/,
    );
    // network: orders, paid, fees, donations, refunded, net
    assert.match(text, /MTN MoMo 1 UGX 77,450 UGX 2,450 UGX 5,000 UGX 23,700 UGX 52,000/);
    assert.match(text, /Airtel Money 1 UGX 51,750 UGX 1,750 UGX 0 UGX 51,750 UGX 0/);
    assert.match(text, /Total 2 UGX 129,200 UGX 4,200 UGX 5,000 UGX 75,450 UGX 52,000/);
    // ticket type: places sold, ticket money, fees, refunded (runners), net
    assert.match(text, /10 km 2 UGX 100,000 UGX 3,500 UGX 50,000 \(1\) UGX 50,000/);
    assert.match(text, /5 km 1 UGX 20,000 UGX 700 UGX 20,000 \(1\) UGX 0/);
    assert.match(text, /Donations — UGX 5,000 — UGX 0 UGX 5,000/);
    assert.match(text, /Refunds of an amount — — — UGX 3,000 -UGX 3,000/);
    assert.match(res.body, /href="\/events\/[^"]+\/reconciliation.csv"/);
    const eventPage = await owner.get(`/events/${eventId}`);
    assert.match(eventPage.body, new RegExp(`href="/events/${eventId}/money"`));
  });

  test('the figures as CSV, audited', async () => {
    const res = await owner.get(`/events/${eventId}/money.csv`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-disposition']), /filename="gulu-peace-run-money.csv"/);
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    assert.equal(
      lines[0],
      'Section,Line,Orders,Tickets,Paid (UGX),Service fees (UGX),Donations (UGX),Refunded (UGX),Refunded runners,You receive (UGX)',
    );
    assert.ok(lines.includes('Network,MTN MoMo,1,,77450,2450,5000,23700,,52000'), lines.join('\n'));
    assert.ok(lines.includes('Network,Total,2,,129200,4200,5000,75450,,52000'));
    assert.ok(lines.includes('Ticket type,10 km,,2,100000,3500,,50000,1,50000'));
    assert.ok(lines.includes('Donations,Donations,,,5000,,5000,0,,5000'), lines.join('\n'));
    assert.ok(lines.includes('Refunds,Refunds of an amount,,,,,,3000,,-3000'), lines.join('\n'));
    const audit = await listAuditEvents(db(), organizationId, { limit: 5 });
    assert.equal(audit.rows[0]!.action, 'event.money_exported');
  });

  test('every payment and refund with the network reference, order by order; no unpaid order', async () => {
    const res = await owner.get(`/events/${eventId}/reconciliation.csv`);
    assert.equal(res.statusCode, 200);
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    assert.equal(
      lines[0],
      'Time (Africa/Kampala),Type,Network,Amount,Currency,Network reference,Our reference,Order,Order status',
    );
    const rows = lines.slice(1).map((l) => l.split(','));
    assert.deepEqual(
      rows.map((r) => r[5]),
      ['MTN-TX-1', 'MTN-RF-1', 'MTN-RF-2', 'AIR-TX-2', 'AIR-RF-1', 'MTN-TX-LATE'],
    );
    assert.match(lines[1]!, /,Payment,MTN MoMo,77450,UGX,MTN-TX-1,[0-9a-f-]{36},[A-Z2-9]{8},paid$/);
    assert.match(lines[2]!, /,Refund,MTN MoMo,-20700,UGX,MTN-RF-1,/);
    assert.match(lines[5]!, /,Refund,Airtel Money,-51750,UGX,AIR-RF-1,[^,]+,[A-Z2-9]{8},refunded$/);
    assert.match(lines[6]!, /,Payment,MTN MoMo,51750,UGX,MTN-TX-LATE,[^,]+,[A-Z2-9]{8},expired$/);
  });

  test('a developer reads the page without the downloads and may not download; another organization gets 404', async () => {
    const res = await developer.get(`/events/${eventId}/money`);
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, /money\.csv|reconciliation\.csv/);
    assert.equal((await developer.get(`/events/${eventId}/money.csv`)).statusCode, 403);
    assert.equal((await developer.get(`/events/${eventId}/reconciliation.csv`)).statusCode, 403);
    assert.equal((await owner.get(`/events/${foreignEventId}/money`)).statusCode, 404);
    assert.equal((await owner.get(`/events/${foreignEventId}/reconciliation.csv`)).statusCode, 404);
    assert.equal((await owner.get('/events/evt_nope/money')).statusCode, 404);
  });
});
