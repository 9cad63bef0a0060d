// Card payments on the organizer's pages and files: the money page, its CSV and the reconciliation
// file name Flutterwave; the orders export says Card; the order page tells a card payment (paid on
// Flutterwave's page, no number kept) from a prompt, and a refund goes back to the card that paid;
// the overview and the event page's prices list Flutterwave. Figures are written straight into the tables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { strFromU8, unzipSync } from 'fflate';
import { ticketTypesOf } from '../../src/events/events.ts';
import { updateOrganization } from '../../src/organizations/organizations.ts';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { makeMember, signIn, textOf, type Agent } from './app-helpers.ts';
import { paidOrder, refunded, type Money } from './money-fixtures.ts';

let h: Harness;
let owner: Agent;
let eventId: string;
let card: Awaited<ReturnType<typeof paidOrder>>;
let late: Awaited<ReturnType<typeof paidOrder>>;

before(async () => {
  h = await startHarness();
  const partner = await makePartner(h);
  const db = h.service.ctx.database.db;
  await updateOrganization(db, partner.organizationId, { optedInMethods: ['card'] }, h.clock.now());
  const event = await makeEvent(h, partner, {
    name: 'Jinja Source Run',
    handle: 'jinja-source-run',
    ticket_types: [{ name: '10 km', price_minor: 50000, capacity: 100 }],
  });
  eventId = event.id;
  const m: Money = { db, organizationId: partner.organizationId, eventId };
  const [ten] = await ticketTypesOf(db, [eventId]);
  const at = (minutes: number) => new Date(h.clock.now().getTime() - 86_400_000 + minutes * 60_000);
  const runner = (fee: number) => ({ ticketTypeId: ten!.id, price: 50000, fee });
  await paidOrder(m, { method: 'momo', runners: [runner(1750)], providerId: 'MTN-TX-1', at: at(0) });
  // UGX 50,000 at the default 3.8 % card fee
  card = await paidOrder(m, {
    method: 'card',
    msisdn: '',
    runners: [runner(1900)],
    providerId: 'FLW-TX-1',
    at: at(10),
  });
  await refunded(m, card, { amount: 10000, fee: 0, runners: [], at: at(20), providerId: 'FLW-RF-1' });
  // a card payment confirmed after its hold ended: to be refunded
  late = await paidOrder(m, {
    method: 'card',
    msisdn: '',
    runners: [runner(1900)],
    status: 'expired',
    paidAfterExpiry: true,
    providerId: 'FLW-TX-LATE',
    at: at(30),
  });
  owner = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
});
after(() => h.close());

const csvRows = (body: string) =>
  body
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n');

describe('card payments in the money pages and files', () => {
  test('the money page has a Flutterwave line, and names its statements for reconciliation', async () => {
    const text = textOf((await owner.get(`/events/${eventId}/money`)).body);
    assert.match(text, /By payment provider Money by payment provider Provider Orders/);
    // orders, paid, fees, donations, refunded, net
    assert.match(text, /Flutterwave 1 UGX 51,900 UGX 1,900 UGX 0 UGX 10,000 UGX 40,000/);
    assert.match(text, /MTN MoMo 1 UGX 51,750 UGX 1,750 UGX 0 UGX 0 UGX 50,000/);
    assert.match(text, /your MTN MoMo, Airtel Money, M-Pesa and Flutterwave statements/);
  });

  test('the figures CSV and the reconciliation file name Flutterwave with its references', async () => {
    const figures = csvRows((await owner.get(`/events/${eventId}/money.csv`)).body);
    assert.ok(figures.includes('Network,Flutterwave,1,,51900,1900,0,10000,,40000'), figures.join('\n'));
    const lines = csvRows((await owner.get(`/events/${eventId}/reconciliation.csv`)).body);
    const flutterwave = lines.filter((l) => l.includes(',Flutterwave,'));
    assert.equal(flutterwave.length, 3, lines.join('\n'));
    assert.match(flutterwave[0]!, /,Payment,Flutterwave,51900,UGX,FLW-TX-1,[0-9a-f-]{36},[A-Z2-9]{8},paid$/);
    assert.match(flutterwave[1]!, /,Flutterwave,-10000,UGX,FLW-RF-1,/);
    assert.match(flutterwave[2]!, /,Payment,Flutterwave,51900,UGX,FLW-TX-LATE,.*,expired$/);
  });

  test('the orders CSV and workbook say Card', async () => {
    const lines = csvRows((await owner.get(`/orders.csv?event=${eventId}`)).body);
    assert.ok(lines[0]!.includes(',Payment method,'), lines[0]);
    assert.equal(lines.filter((l) => l.includes(',Card,')).length, 2, lines.join('\n'));
    assert.equal(lines.filter((l) => l.includes(',MTN Mobile Money,')).length, 1);
    const workbook = await owner.get(`/orders.xlsx?event=${eventId}`);
    const sheet = strFromU8(unzipSync(new Uint8Array(workbook.rawPayload))['xl/worksheets/sheet1.xml']!);
    assert.equal(sheet.match(/<t xml:space="preserve">Card<\/t>/g)?.length, 2);
  });

  test("the order page: a card payment on Flutterwave's page, no number; refunds by Card", async () => {
    const text = textOf((await owner.get(`/orders/${card.id}`)).body);
    assert.match(text, /Card payment of UGX 51,900 on Flutterwave's page/);
    assert.match(text, /Card payment: approved/);
    assert.doesNotMatch(text, /Card number|Prompt to :/);
    assert.match(text, /UGX 10,000 by Card/);
    assert.match(text, /Refund confirmed by Flutterwave/);
    const refund = textOf((await owner.get(`/orders/${card.id}/refund`)).body);
    assert.match(refund, /Money goes back to Amina Nakato through Card, to the card that paid\./);
  });

  test('a late card payment to refund goes back to the card that paid', async () => {
    const page = await owner.get(`/orders/${late.id}`);
    const text = textOf(page.body);
    assert.match(text, /UGX 51,900 by Card, confirmed/);
    assert.doesNotMatch(text, /by Card from/);
    const confirm = textOf((await owner.get(`/orders/${late.id}/payments/${late.attempt.id}/refund`)).body);
    assert.match(
      confirm,
      /UGX 51,900 goes back through Card to the card that paid\. The order itself does not change\./,
    );
  });

  test('the overview and the event page list card', async () => {
    const overview = textOf((await owner.get(`/?event=${eventId}`)).body);
    assert.match(overview, /Flutterwave 1 UGX\s51,900 UGX\s1,900/);
    const event = textOf((await owner.get(`/events/${eventId}`)).body);
    // prices name each method's provider, as the money pages do
    assert.match(event, /UGX 51,750 with Airtel Money, UGX 51,900 with Flutterwave \(service fee included\)/);
  });
});
