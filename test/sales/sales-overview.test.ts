// The sales overview's figures from known orders: days in the event's time zone, only paid
// orders counted, money per method and per partner, capacity, and the payments needing attention
// (paid after expiry, duplicate, pending too long), all scoped to one organization.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ticketTypesOf } from '../../src/events/events.ts';
import { defaultEvent, loadSalesOverview, type SalesOverview } from '../../src/sales/sales-overview.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { randomUUID } from 'node:crypto';
import { refunds } from '../../src/payments/payments.schema.ts';
import { newId } from '../../src/platform/ids.ts';
import { insertAttempt, insertOrder } from './sales-fixtures.ts';

const MIN = 60_000;

describe('sales overview queries', () => {
  let h: Harness;
  let partner: TestPartner;
  let other: TestPartner;
  let eventId: string;
  let otherEventId: string;
  let tt10: string;
  let tt5: string;
  let overview: SalesOverview;
  const codes: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const db = h.service.ctx.database.db;
    const now = h.clock.now();
    partner = await makePartner(h);
    other = await makePartner(h);
    const event = await makeEvent(h, partner, { name: 'Kampala 10K' });
    eventId = event.id;
    [tt10, tt5] = (await ticketTypesOf(db, [eventId]))
      .sort((a, b) => a.position - b.position)
      .map((t) => t.id) as [string, string];
    const org = partner.organizationId;
    const base = { organizationId: org, eventId };
    // 22:30 UTC is 01:30 the next day in Kampala (UTC+3); 20:00 UTC is still the same day there.
    await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt10],
      paymentMethod: 'momo',
      apiClientId: partner.clientId,
      total: 31050,
      fee: 1050,
      createdAt: new Date('2026-11-20T22:30:00Z'),
    });
    await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt10, tt5],
      paymentMethod: 'airtel',
      apiClientId: partner.clientId,
      total: 31050,
      fee: 1050,
      createdAt: new Date('2026-11-20T20:00:00Z'),
    });
    await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt5],
      paymentMethod: null,
      createdAt: new Date('2026-11-21T05:00:00Z'),
    });
    // not paid: held, expired, refunded; and another organization's paid order
    await insertOrder(db, { ...base, ticketTypeIds: [tt10], status: 'pending', createdAt: now });
    await insertOrder(db, { ...base, ticketTypeIds: [tt10], status: 'expired', createdAt: now });
    await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt10],
      status: 'refunded',
      total: 31050,
      createdAt: now,
    });
    const otherEvent = await makeEvent(h, other);
    otherEventId = otherEvent.id;
    const [otherTt] = await ticketTypesOf(db, [otherEvent.id]);
    await insertOrder(db, {
      organizationId: other.organizationId,
      eventId: otherEvent.id,
      ticketTypeIds: [otherTt!.id],
      total: 99999,
      createdAt: new Date('2026-11-20T10:00:00Z'),
    });

    // Attention: a payment after expiry, a second payment of a paid order, a stuck prompt.
    const late = await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt10],
      status: 'expired',
      paidAfterExpiry: true,
      createdAt: new Date(now.getTime() - 60 * MIN),
    });
    codes.late = late.code;
    await insertAttempt(db, {
      organizationId: org,
      orderId: late.id,
      status: 'successful',
      amount: 31050,
      createdAt: new Date(now.getTime() - 50 * MIN),
    });
    const twice = await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt5],
      total: 31050,
      createdAt: new Date(now.getTime() - 40 * MIN),
    });
    codes.twice = twice.code;
    for (const minutes of [39, 38]) {
      await insertAttempt(db, {
        organizationId: org,
        orderId: twice.id,
        method: 'airtel',
        status: 'successful',
        amount: 31050,
        createdAt: new Date(now.getTime() - minutes * MIN),
      });
    }
    const stuck = await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt5],
      status: 'pending',
      createdAt: new Date(now.getTime() - 12 * MIN),
    });
    codes.stuck = stuck.code;
    await insertAttempt(db, {
      organizationId: org,
      orderId: stuck.id,
      status: 'pending',
      amount: 31050,
      createdAt: new Date(now.getTime() - 11 * MIN),
    });
    // Not stuck: a prompt still inside its window, and an old timed-out one the buyer retried.
    const fresh = await insertOrder(db, { ...base, ticketTypeIds: [tt5], status: 'pending', createdAt: now });
    codes.fresh = fresh.code;
    await insertAttempt(db, {
      organizationId: org,
      orderId: fresh.id,
      status: 'pending',
      amount: 1,
      createdAt: now,
    });
    const retried = await insertOrder(db, {
      ...base,
      ticketTypeIds: [tt5],
      status: 'pending',
      createdAt: new Date(now.getTime() - 9 * MIN),
    });
    codes.retried = retried.code;
    await insertAttempt(db, {
      organizationId: org,
      orderId: retried.id,
      status: 'timed_out',
      amount: 1,
      createdAt: new Date(now.getTime() - 8 * MIN),
    });
    await insertAttempt(db, {
      organizationId: org,
      orderId: retried.id,
      status: 'pending',
      amount: 1,
      createdAt: new Date(now.getTime() - MIN),
    });
    // a paid order whose refund the network refused, of another event of the organization (the
    // attention list covers every event; the figures above only the chosen one)
    const spare = await makeEvent(h, partner, { name: 'Spare Run' });
    const [spareTt] = await ticketTypesOf(db, [spare.id]);
    const refused = await insertOrder(db, {
      organizationId: org,
      eventId: spare.id,
      ticketTypeIds: [spareTt!.id],
      total: 31050,
      createdAt: new Date(now.getTime() - 50 * MIN),
    });
    codes.refused = refused.code;
    const paidWith = await insertAttempt(db, {
      organizationId: org,
      orderId: refused.id,
      status: 'successful',
      amount: 31050,
      createdAt: new Date(now.getTime() - 49 * MIN),
    });
    await db.insert(refunds).values({
      id: newId('rfd'),
      organizationId: org,
      orderId: refused.id,
      attemptId: paidWith,
      kind: 'order',
      reference: randomUUID(),
      amount: 31050,
      currency: 'UGX',
      method: 'momo',
      status: 'failed',
      failureReason: 'refused by the network',
      requestedByLabel: 'operator',
      createdAt: new Date(now.getTime() - 5 * MIN),
      finalizedAt: new Date(now.getTime() - 4 * MIN),
    });
    // another organization's stuck prompt
    const foreign = await insertOrder(db, {
      organizationId: other.organizationId,
      eventId: otherEvent.id,
      ticketTypeIds: [otherTt!.id],
      status: 'pending',
      createdAt: new Date(now.getTime() - 30 * MIN),
    });
    codes.foreign = foreign.code;
    await insertAttempt(db, {
      organizationId: other.organizationId,
      orderId: foreign.id,
      status: 'pending',
      amount: 1,
      createdAt: new Date(now.getTime() - 30 * MIN),
    });

    const result = await loadSalesOverview(db, { organizationId: org, eventId, now });
    assert.notEqual(result, 'not_found');
    overview = result as SalesOverview;
  });
  after(() => h.close());

  test('counts paid tickets per day in the event time zone, per ticket type', () => {
    assert.deepEqual(overview.daily, [
      { day: '2026-11-20', tickets: { [tt10]: 1, [tt5]: 1 } },
      // the 22:30 UTC payment and the free 05:00 UTC order; 40 minutes ago is today, twice paid
      { day: '2026-11-21', tickets: { [tt10]: 1, [tt5]: 1 } },
      ...overview.daily.slice(2),
    ]);
    // the order paid twice is a paid order of today: one 5 km ticket on the clock's day
    const rest = overview.daily.slice(2);
    assert.equal(
      rest.reduce((n, d) => n + Object.values(d.tickets).reduce((a, b) => a + b, 0), 0),
      1,
    );
  });

  test('sums money per payment method, free orders apart', () => {
    const byLabel = Object.fromEntries(overview.byMethod.map((l) => [l.label, l]));
    assert.deepEqual(byLabel['MTN MoMo'], {
      label: 'MTN MoMo',
      orders: 2,
      totalMinor: 62100,
      feesMinor: 1050,
    });
    assert.deepEqual(byLabel['Airtel Money'], {
      label: 'Airtel Money',
      orders: 1,
      totalMinor: 31050,
      feesMinor: 1050,
    });
    assert.deepEqual(byLabel.Free, { label: 'Free', orders: 1, totalMinor: 0, feesMinor: 0 });
    assert.equal(overview.byMethod.length, 3);
  });

  test('sums money per channel and partner by the client name', () => {
    const byLabel = Object.fromEntries(overview.byChannel.map((l) => [l.label, l]));
    assert.equal(byLabel['Partner API: Test client']?.orders, 2);
    assert.equal(byLabel['Partner API: Test client']?.totalMinor, 62100);
    assert.equal(byLabel['Partner API']?.orders, 2);
  });

  test('shows sold, held and left per ticket type from the inventory counters', () => {
    const [ten, five] = overview.ticketTypes;
    assert.deepEqual(ten, { id: tt10, name: '10 km', capacity: 100, sold: 2, held: 1, left: 97 });
    assert.equal(five?.sold, 3);
    assert.equal(five?.held, 3);
  });

  test('lists payments after expiry, duplicates, stuck prompts and failed refunds of this organization only', () => {
    const seen = overview.attention.items.map((i) => `${i.reason}:${i.orderCode}`).sort();
    assert.deepEqual(
      seen,
      [
        `duplicate_payment:${codes.twice}`,
        `paid_after_expiry:${codes.late}`,
        `pending_too_long:${codes.stuck}`,
        `refund_failed:${codes.refused}`,
      ].sort(),
    );
    assert.equal(overview.attention.more, false);
    const duplicate = overview.attention.items.find((i) => i.reason === 'duplicate_payment')!;
    assert.equal(duplicate.method, 'Airtel Money');
    assert.equal(duplicate.eventName, 'Kampala 10K');
  });

  test("refuses another organization's event as not found", async () => {
    const db = h.service.ctx.database.db;
    const now = h.clock.now();
    assert.equal(
      await loadSalesOverview(db, { organizationId: partner.organizationId, eventId: otherEventId, now }),
      'not_found',
    );
  });
});

describe('the event shown by default', () => {
  const at = (iso: string) => new Date(iso);
  const events = [
    { id: 'past', endsAt: at('2026-10-01T00:00:00Z'), status: 'closed' },
    { id: 'cancelled', endsAt: at('2026-12-01T00:00:00Z'), status: 'cancelled' },
    { id: 'next', endsAt: at('2026-12-05T00:00:00Z'), status: 'open' },
    { id: 'later', endsAt: at('2027-01-05T00:00:00Z'), status: 'open' },
  ];
  test('is the next event not yet ended, skipping cancelled ones', () => {
    assert.equal(defaultEvent(events, at('2026-11-26T00:00:00Z'))?.id, 'next');
  });
  test('is the last one to end when all have ended', () => {
    assert.equal(defaultEvent(events, at('2027-02-01T00:00:00Z'))?.id, 'later');
  });
  test('is null without events', () => {
    assert.equal(defaultEvent([], at('2027-02-01T00:00:00Z')), null);
  });
});
