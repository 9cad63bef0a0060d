// POST /v1/orders (headless checkout): the Order shape, totals and fees, free orders paid at once,
// every input rule as validation_failed naming its field, the business refusals (not_found,
// sale_closed, payments_disabled, sold_out) writing nothing, and Idempotency-Key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdditionalQuestion } from '../../src/events/events.schema.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import {
  BUYER,
  DAY_MS,
  expectCreated,
  expectError,
  expectFieldErrors,
  expectNothingWritten,
  HARNESS_ENV,
  MINUTE_MS,
  ORDER_CODE,
  ORDER_KEYS,
  orderBody,
  orderPaidRows,
  postOrder,
  REGISTRATION_KEYS,
  snapshot,
  ticketCounts,
  ticketTypeIds,
} from './order-helpers.ts';

let h: Harness;
let partner: TestPartner;
let auth: Record<string, string>;
/** the default event: '10 km' at 30000 (paid) and '5 km' free */
let eventId: string;
let paidTt: string;
let freeTt: string;

before(async () => {
  h = await startHarness({ env: HARNESS_ENV });
  partner = await makePartner(h);
  auth = bearer(await getToken(h, partner));
  eventId = (await makeEvent(h, partner)).id;
  [paidTt, freeTt] = (await ticketTypeIds(h, eventId)) as [string, string];
});
after(() => h.close());

const TSHIRT: AdditionalQuestion = {
  key: 'tshirt_size',
  label: 'T-shirt',
  type: 'select',
  required: true,
  options: ['S', 'M', 'L'],
  help: '',
};

/** YYYY-MM-DD `years` years before a YYYY-MM-DD date. */
function yearsBefore(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) - years}${date.slice(4)}`;
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

describe('POST /v1/orders creates an order', () => {
  test("answers 201 with the envelope and an Order with exactly the contract's fields", async () => {
    const t0 = Date.now();
    const res = await postOrder(
      h,
      auth,
      orderBody(eventId, [paidTt, paidTt], {
        buyer: { name: 'Ada Runner', email: 'ada@example.org', phone: '+256 772 123456' },
        donation_minor: 5000,
        client_reference_id: 'basket-42',
      }),
    );
    const t1 = Date.now();
    const body = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['code', 'data', 'message']);
    const order = expectCreated(res);
    assert.deepEqual(Object.keys(order).sort(), ORDER_KEYS);
    assert.match(order.id, /^ord_[A-Za-z0-9]{16,}$/);
    assert.match(order.order_code, ORDER_CODE);
    assert.equal(order.event_id, eventId);
    assert.equal(order.status, 'pending');
    assert.equal(order.currency, 'UGX');
    assert.equal(order.subtotal, 60000);
    assert.equal(order.discount_total, 0);
    assert.equal(order.donation_total, 5000);
    assert.equal(order.laces_fee, 2100, 'two tickets at the default 3.5% of 30000');
    assert.equal(order.total, 67100, 'subtotal - discount + donation + fee');
    assert.equal(order.refunded_total, 0);
    assert.equal(order.payment_method, null, 'no method chosen before pay');
    assert.equal(order.failure_kind, null);
    assert.equal(order.ticket_count, 2);
    assert.deepEqual(order.buyer, { name: 'Ada Runner', email: 'ada@example.org', phone: '256772123456' });
    assert.deepEqual(order.attribution, {
      channel: 'partner_api',
      api_client_id: partner.clientId,
      checkout_session_id: null,
      partner_reference: 'basket-42',
    });
    const createdAt = Date.parse(order.created_at);
    assert.equal(new Date(createdAt).toISOString(), order.created_at, 'ISO 8601 UTC with milliseconds');
    assert.ok(createdAt >= t0 && createdAt <= t1, 'created_at is when the order was made');
    assert.equal(order.hold_expires_at, new Date(createdAt + 15 * MINUTE_MS).toISOString());
    assert.equal(order.registrations.length, 2);
    order.registrations.forEach((reg, i) => {
      assert.deepEqual(Object.keys(reg).sort(), REGISTRATION_KEYS);
      assert.match(reg.id, /^reg_[A-Za-z0-9]{16,}$/);
      assert.deepEqual(
        { ...reg, id: 'x' },
        {
          id: 'x',
          ticket_type_id: paidTt,
          distance_km: 10,
          ticket_label: '10 km',
          participant_name: `Runner ${i + 1}`,
          status: 'pending',
        },
      );
    });
    assert.notEqual(order.registrations[0]!.id, order.registrations[1]!.id);
  });

  test('partner_reference is the empty string when no client_reference_id is given', async () => {
    const order = expectCreated(await postOrder(h, auth, orderBody(eventId, [paidTt])));
    assert.equal(order.attribution.partner_reference, '');
    assert.equal(order.attribution.api_client_id, partner.clientId);
  });

  test('order codes are unique and drawn from the unambiguous alphabet', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const order = expectCreated(await postOrder(h, auth, orderBody(eventId, [freeTt])));
      assert.match(order.order_code, ORDER_CODE);
      codes.add(order.order_code);
    }
    assert.equal(codes.size, 10);
  });

  test('the fee follows the organization fee schedule for momo, not airtel', async () => {
    const custom = await makePartner(h, {
      fees: { momo: { percent_bp: 500, fixed_minor: 100 }, airtel: { percent_bp: 300, fixed_minor: 0 } },
    });
    const customEvent = (await makeEvent(h, custom)).id;
    const [tt] = (await ticketTypeIds(h, customEvent)) as [string];
    const order = expectCreated(
      await postOrder(h, bearer(await getToken(h, custom)), orderBody(customEvent, [tt, tt])),
    );
    assert.equal(order.subtotal, 60000);
    assert.equal(order.laces_fee, 2 * (1500 + 100), '5% of 30000 plus 100 fixed, per ticket');
    assert.equal(order.total, 63200);
  });

  test('the fee is rounded half up per ticket, matching the total_minor the event shows', async () => {
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: 'Kids', price_minor: 100, capacity: 10, distance_km: 1 }],
    });
    const [tt] = (await ticketTypeIds(h, event.id)) as [string];
    const detail = await h.service.api.inject({
      method: 'GET',
      url: `/v1/events/${event.id}`,
      headers: auth,
    });
    const shown = detail.json().data.ticket_types[0] as { laces_fee_minor: number; total_minor: number };
    assert.equal(shown.laces_fee_minor, 4, '3.5 rounds half up to 4');
    const order = expectCreated(await postOrder(h, auth, orderBody(event.id, [tt, tt, tt])));
    assert.equal(order.laces_fee, 12, 'three tickets at 4 each, not round(10.5)');
    assert.equal(order.total, 3 * shown.total_minor);
  });

  test('a free-only order is paid at once: registrations confirmed, no hold, one order.paid outbox row', async () => {
    const before = await ticketCounts(h, freeTt);
    const res = await postOrder(h, auth, orderBody(eventId, [freeTt, freeTt]));
    const order = expectCreated(res);
    assert.equal(order.status, 'paid');
    assert.equal(order.total, 0);
    assert.equal(order.laces_fee, 0);
    assert.equal(order.subtotal, 0);
    assert.equal(order.hold_expires_at, null);
    assert.equal(order.failure_kind, null);
    assert.deepEqual(
      order.registrations.map((r) => r.status),
      ['confirmed', 'confirmed'],
    );
    assert.deepEqual(await ticketCounts(h, freeTt), { held: before.held, paid: before.paid + 2 });
    const rows = await orderPaidRows(h, order.id);
    assert.equal(rows.length, 1, 'exactly one order.paid event');
    assert.equal(rows[0]!.type, 'order.paid');
    assert.equal(rows[0]!.organizationId, partner.organizationId);
    assert.equal(rows[0]!.payload.type, 'order.paid');
    assert.match(rows[0]!.payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(rows[0]!.payload.data, order, 'the webhook data is the Order the partner got');
  });

  test('a paid order writes no order.paid row while it is pending', async () => {
    const order = expectCreated(await postOrder(h, auth, orderBody(eventId, [paidTt])));
    assert.deepEqual(await orderPaidRows(h, order.id), []);
  });

  test('accepts every national and international form of a phone number, normalised to 256XXXXXXXXX', async () => {
    const cases: Array<[string, string]> = [
      ['0772123456', '256772123456'],
      ['+256 772 123456', '256772123456'],
      ['772123456', '256772123456'],
      ['256752123456', '256752123456'],
    ];
    for (const [phone, normalised] of cases) {
      const order = expectCreated(
        await postOrder(h, auth, orderBody(eventId, [freeTt], { buyer: { ...BUYER, phone } })),
        phone,
      );
      assert.equal(order.buyer.phone, normalised, phone);
    }
  });

  test('accepts the limits themselves: 10 tickets and a 256-character client_reference_id', async () => {
    const ten = expectCreated(await postOrder(h, auth, orderBody(eventId, Array(10).fill(freeTt))));
    assert.equal(ten.ticket_count, 10);
    const ref = 'r'.repeat(256);
    const order = expectCreated(
      await postOrder(h, auth, orderBody(eventId, [freeTt], { client_reference_id: ref })),
    );
    assert.equal(order.attribution.partner_reference, ref);
  });
});

describe('POST /v1/orders refuses bad input with validation_failed naming the field', () => {
  let otherEventTt: string;
  let questionsEvent: string;
  let questionsTt: string;
  let ageEvent: string;
  let ageTt: string;
  /** the race day as a calendar date in the event's time zone (Africa/Kampala, UTC+3) */
  let raceDay: string;
  let waiverEvent: string;
  let waiverTt: string;

  before(async () => {
    [otherEventTt] = (await ticketTypeIds(h, (await makeEvent(h, partner)).id)) as [string];
    questionsEvent = (await makeEvent(h, partner, { additional_questions: [TSHIRT] })).id;
    [questionsTt] = (await ticketTypeIds(h, questionsEvent)) as [string];
    // The race starts at 22:00 UTC, already the next day in Kampala: the age rule must use that day.
    const day = new Date(h.clock.now().getTime() + 40 * DAY_MS);
    day.setUTCHours(22, 0, 0, 0);
    if (day.toISOString().slice(5, 10) === '02-28') day.setUTCDate(day.getUTCDate() + 2);
    raceDay = new Date(day.getTime() + 3 * 3600_000).toISOString().slice(0, 10);
    ageEvent = (
      await makeEvent(h, partner, {
        starts_at: day.toISOString(),
        ends_at: new Date(day.getTime() + 6 * 3600_000).toISOString(),
        ticket_types: [
          { name: 'Marathon', price_minor: 50000, capacity: 100, distance_km: 42.2, min_age: 18 },
        ],
      })
    ).id;
    [ageTt] = (await ticketTypeIds(h, ageEvent)) as [string];
    waiverEvent = (await makeEvent(h, partner, { waiver_required: true, waiver_version: '2025-01-01' })).id;
    [waiverTt] = (await ticketTypeIds(h, waiverEvent)) as [string];
  });

  /** `anyOf`: at least one of the fields is named and no other (a NUL may be caught by an earlier guard
   * that names the first one only, as body.items.0.participant_name) */
  type Case = { label: string; body: () => Record<string, unknown>; fields: string[]; anyOf?: true };
  const item = (overrides: Record<string, unknown>, tt?: () => string) => () => ({
    ticket_type_id: tt ? tt() : paidTt,
    participant_name: 'Runner',
    ...overrides,
  });
  const cases: Case[] = [
    { label: 'no items', body: () => orderBody(eventId, []), fields: ['items'] },
    { label: '11 items (max 10)', body: () => orderBody(eventId, Array(11).fill(freeTt)), fields: ['items'] },
    {
      label: 'unknown ticket_type_id',
      body: () => orderBody(eventId, ['tt_doesnotexist0000000000']),
      fields: ['items[0].ticket_type_id'],
    },
    {
      label: 'a ticket type of another event',
      body: () => orderBody(eventId, [otherEventTt]),
      fields: ['items[0].ticket_type_id'],
    },
    {
      label: 'blank participant_name',
      body: () => orderBody(eventId, [], { items: [item({ participant_name: '   ' })()] }),
      fields: ['items[0].participant_name'],
    },
    {
      label: 'the second item is the bad one',
      body: () => orderBody(eventId, [], { items: [item({})(), item({ participant_name: '' })()] }),
      fields: ['items[1].participant_name'],
    },
    {
      label: 'missing required answer',
      body: () => orderBody(questionsEvent, [questionsTt]),
      fields: ['items[0].answers.tshirt_size'],
    },
    {
      label: 'blank required answer',
      body: () =>
        orderBody(questionsEvent, [], {
          items: [item({ answers: { tshirt_size: ' ' } }, () => questionsTt)()],
        }),
      fields: ['items[0].answers.tshirt_size'],
    },
    {
      label: 'answer not among the options',
      body: () =>
        orderBody(questionsEvent, [], {
          items: [item({ answers: { tshirt_size: 'XL' } }, () => questionsTt)()],
        }),
      fields: ['items[0].answers.tshirt_size'],
    },
    {
      label: 'unknown answer key',
      body: () =>
        orderBody(questionsEvent, [], {
          items: [item({ answers: { tshirt_size: 'M', shoe_size: '42' } }, () => questionsTt)()],
        }),
      fields: ['items[0].answers.shoe_size'],
    },
    {
      label: 'min_age without date_of_birth',
      body: () => orderBody(ageEvent, [ageTt]),
      fields: ['items[0].date_of_birth'],
    },
    {
      label: 'born 17 years before race day',
      body: () =>
        orderBody(ageEvent, [], {
          items: [item({ date_of_birth: yearsBefore(raceDay, 17) }, () => ageTt)()],
        }),
      fields: ['items[0].date_of_birth'],
    },
    {
      label: 'turns 18 the day after race day',
      body: () =>
        orderBody(ageEvent, [], {
          items: [item({ date_of_birth: addDays(yearsBefore(raceDay, 18), 1) }, () => ageTt)()],
        }),
      fields: ['items[0].date_of_birth'],
    },
    ...['2000-13-01', '2001-02-29', '2000-1-01', '01/02/2000', '', '0000-01-01', '1899-12-31'].map((dob) => ({
      label: `malformed date_of_birth ${JSON.stringify(dob)}`,
      body: () => orderBody(eventId, [], { items: [item({ date_of_birth: dob })()] }),
      fields: ['items[0].date_of_birth'],
    })),
    {
      label: 'date_of_birth in the future',
      body: () =>
        orderBody(eventId, [], {
          items: [item({ date_of_birth: addDays(h.clock.now().toISOString().slice(0, 10), 2) })()],
        }),
      fields: ['items[0].date_of_birth'],
    },
    {
      label: 'bad buyer email',
      body: () => orderBody(eventId, [paidTt], { buyer: { ...BUYER, email: 'ada@example' } }),
      fields: ['buyer.email'],
    },
    {
      label: 'buyer email with a space',
      body: () => orderBody(eventId, [paidTt], { buyer: { ...BUYER, email: 'ada lovelace@example.org' } }),
      fields: ['buyer.email'],
    },
    ...['12345', '0712345', '07721234567', '+1 202 555 0100', ''].map((phone) => ({
      label: `bad buyer phone ${JSON.stringify(phone)}`,
      body: () => orderBody(eventId, [paidTt], { buyer: { ...BUYER, phone } }),
      fields: ['buyer.phone'],
    })),
    {
      label: 'blank buyer name',
      body: () => orderBody(eventId, [paidTt], { buyer: { ...BUYER, name: ' ' } }),
      fields: ['buyer.name'],
    },
    {
      label: 'waiver not accepted',
      body: () => orderBody(waiverEvent, [waiverTt]),
      fields: ['waiver_accepted'],
    },
    {
      label: 'waiver refused',
      body: () => orderBody(waiverEvent, [waiverTt], { waiver_accepted: false }),
      fields: ['waiver_accepted'],
    },
    ...[-1, 1.5, 'x', 100_000_001].map((donation) => ({
      label: `donation ${JSON.stringify(donation)}`,
      body: () => orderBody(eventId, [paidTt], { donation_minor: donation }),
      fields: ['donation_minor'],
    })),
    {
      label: 'client_reference_id of 257 characters',
      body: () => orderBody(eventId, [paidTt], { client_reference_id: 'r'.repeat(257) }),
      fields: ['client_reference_id'],
    },
    {
      label: 'unknown top-level field',
      body: () => orderBody(eventId, [paidTt], { coupon: 'FREE' }),
      fields: ['coupon'],
    },
    {
      label: 'unknown field in an item',
      body: () => orderBody(eventId, [], { items: [item({ price_minor: 0 })()] }),
      fields: ['items[0].price_minor'],
    },
    {
      label: 'no buyer',
      body: () => ({ event_id: eventId, items: [item({})()] }),
      fields: ['buyer'],
    },
    // Text PostgreSQL cannot store (NUL) or would silently alter (a lone surrogate) is refused, not a 500.
    {
      label: 'NUL in participant_name',
      body: () => orderBody(eventId, [], { items: [item({ participant_name: 'Ada\u0000' })()] }),
      fields: ['items[0].participant_name'],
      anyOf: true,
    },
    {
      label: 'NUL in buyer name and email',
      body: () =>
        orderBody(eventId, [paidTt], { buyer: { ...BUYER, name: '\u0000', email: 'a\u0000@example.org' } }),
      fields: ['buyer.name', 'buyer.email'],
      anyOf: true,
    },
    {
      label: 'a lone surrogate in the buyer name',
      body: () => orderBody(eventId, [paidTt], { buyer: { ...BUYER, name: 'Ada \ud83c' } }),
      fields: ['buyer.name'],
      anyOf: true,
    },
    {
      label: 'NUL in client_reference_id',
      body: () => orderBody(eventId, [paidTt], { client_reference_id: 'ref\u0000' }),
      fields: ['client_reference_id'],
      anyOf: true,
    },
    {
      label: 'NUL in event_id',
      body: () => orderBody(`${eventId}\u0000`, [paidTt]),
      fields: ['event_id'],
      anyOf: true,
    },
    {
      label: 'NUL in an answer',
      body: () =>
        orderBody(questionsEvent, [], {
          items: [item({ answers: { tshirt_size: 'M\u0000' } }, () => questionsTt)()],
        }),
      fields: ['items[0].answers.tshirt_size'],
      anyOf: true,
    },
    {
      label: 'every problem at once',
      body: () =>
        orderBody(eventId, [], {
          items: [item({ participant_name: '' })()],
          buyer: { name: 'Ada', email: 'nope', phone: '12345' },
        }),
      fields: ['items[0].participant_name', 'buyer.email', 'buyer.phone'],
    },
  ];

  for (const c of cases) {
    test(`refuses ${c.label}`, async () => {
      const res = await expectNothingWritten(h, () => postOrder(h, auth, c.body()), c.label);
      if (!c.anyOf) {
        expectFieldErrors(res, c.fields, c.label);
        return;
      }
      const named = expectError(res, 400, 'validation_failed', c.label).errors ?? [];
      assert.ok(named.length > 0, c.label);
      for (const { field } of named) {
        const plain = field.replace(/^body\./, '').replace(/\.(\d+)(?=\.|$)/g, '[$1]');
        assert.ok(c.fields.includes(plain), `${c.label}: ${res.body}`);
      }
    });
  }

  test('accepts a participant exactly 18 on race day in the event time zone', async () => {
    const order = expectCreated(
      await postOrder(
        h,
        auth,
        orderBody(ageEvent, [], {
          items: [
            { ticket_type_id: ageTt, participant_name: 'Runner', date_of_birth: yearsBefore(raceDay, 18) },
          ],
        }),
      ),
    );
    assert.equal(order.status, 'pending');
  });

  test('accepts a valid answer and an accepted waiver', async () => {
    expectCreated(
      await postOrder(
        h,
        auth,
        orderBody(questionsEvent, [], {
          items: [{ ticket_type_id: questionsTt, participant_name: 'Runner', answers: { tshirt_size: 'M' } }],
        }),
      ),
    );
    expectCreated(await postOrder(h, auth, orderBody(waiverEvent, [waiverTt], { waiver_accepted: true })));
  });
});

describe('POST /v1/orders business refusals write nothing', () => {
  test('an event of another organization, a draft, a private or an unknown event is 404 not_found', async () => {
    const stranger = await makePartner(h);
    const foreign = await makeEvent(h, stranger);
    const [foreignTt] = (await ticketTypeIds(h, foreign.id)) as [string];
    const draft = await makeEvent(h, partner, { status: 'draft' });
    const [draftTt] = (await ticketTypeIds(h, draft.id)) as [string];
    const hidden = await makeEvent(h, partner, { visibility: 'private' });
    const [hiddenTt] = (await ticketTypeIds(h, hidden.id)) as [string];
    const cases: Array<[string, Record<string, unknown>]> = [
      ['another organization', orderBody(foreign.id, [foreignTt])],
      ['draft', orderBody(draft.id, [draftTt])],
      ['private', orderBody(hidden.id, [hiddenTt])],
      ['unknown', orderBody('evt_doesnotexist000000000', [paidTt])],
    ];
    for (const [label, body] of cases) {
      const res = await expectNothingWritten(h, () => postOrder(h, auth, body), label);
      expectError(res, 404, 'not_found', label);
    }
  });

  test('registration closed or not yet open is 409 sale_closed', async () => {
    const now = h.clock.now().getTime();
    const closed = await makeEvent(h, partner, {
      reg_opens_at: new Date(now - 10 * DAY_MS).toISOString(),
      reg_closes_at: new Date(now - 60_000).toISOString(),
    });
    const notYet = await makeEvent(h, partner, {
      reg_opens_at: new Date(now + DAY_MS).toISOString(),
      reg_closes_at: new Date(now + 10 * DAY_MS).toISOString(),
    });
    for (const [label, event] of [
      ['closed', closed],
      ['not yet open', notYet],
    ] as const) {
      const [tt] = (await ticketTypeIds(h, event.id)) as [string];
      const res = await expectNothingWritten(h, () => postOrder(h, auth, orderBody(event.id, [tt])), label);
      expectError(res, 409, 'sale_closed', label);
    }
  });

  test('a ticket type outside its own sales window is 409 sale_closed; the others still sell', async () => {
    const now = h.clock.now().getTime();
    const event = await makeEvent(h, partner, {
      ticket_types: [
        {
          name: 'Late',
          price_minor: 1000,
          capacity: 10,
          sales_start: new Date(now + DAY_MS).toISOString(),
          sales_end: new Date(now + 5 * DAY_MS).toISOString(),
        },
        {
          name: 'Early bird',
          price_minor: 1000,
          capacity: 10,
          sales_start: new Date(now - 5 * DAY_MS).toISOString(),
          sales_end: new Date(now - 60_000).toISOString(),
        },
        { name: 'Regular', price_minor: 2000, capacity: 10 },
      ],
    });
    const [late, early, regular] = (await ticketTypeIds(h, event.id)) as [string, string, string];
    for (const [label, items] of [
      ['sales_start in the future', [late]],
      ['sales_end past', [early]],
      ['mixed with an open type', [regular, early]],
    ] as const) {
      const res = await expectNothingWritten(
        h,
        () => postOrder(h, auth, orderBody(event.id, [...items])),
        label,
      );
      expectError(res, 409, 'sale_closed', label);
    }
    expectCreated(await postOrder(h, auth, orderBody(event.id, [regular])));
  });

  test('an organization without payments gets 403 payments_disabled for a paid total; free tickets still work', async () => {
    const unpaid = await makePartner(h, { paymentsEnabled: false });
    const unpaidAuth = bearer(await getToken(h, unpaid));
    const event = await makeEvent(h, unpaid);
    const [paid, free] = (await ticketTypeIds(h, event.id)) as [string, string];
    for (const [label, body] of [
      ['a paid ticket', orderBody(event.id, [paid])],
      ['a paid ticket with a free one', orderBody(event.id, [free, paid])],
      ['a free ticket with a donation', orderBody(event.id, [free], { donation_minor: 1000 })],
    ] as const) {
      const res = await expectNothingWritten(h, () => postOrder(h, unpaidAuth, body), label);
      expectError(res, 403, 'payments_disabled', label);
    }
    const order = expectCreated(await postOrder(h, unpaidAuth, orderBody(event.id, [free])));
    assert.equal(order.status, 'paid');
  });

  test('not enough capacity is 409 sold_out; the last tickets still sell', async () => {
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: 'Tiny', price_minor: 1000, capacity: 2 }],
    });
    const [tt] = (await ticketTypeIds(h, event.id)) as [string];
    let res = await expectNothingWritten(h, () => postOrder(h, auth, orderBody(event.id, [tt, tt, tt])));
    assert.match(expectError(res, 409, 'sold_out').message, /sold out/);
    expectCreated(await postOrder(h, auth, orderBody(event.id, [tt, tt])));
    res = await expectNothingWritten(h, () => postOrder(h, auth, orderBody(event.id, [tt])));
    expectError(res, 409, 'sold_out');
    assert.deepEqual(await ticketCounts(h, tt), { held: 2, paid: 0 });
  });

  test('a refused order with several ticket types keeps no hold on the type that had room', async () => {
    const event = await makeEvent(h, partner, {
      ticket_types: [
        { name: 'A', price_minor: 1000, capacity: 1 },
        { name: 'B', price_minor: 1000, capacity: 1 },
      ],
    });
    // Holds are taken in id order: fill the later type, so the earlier one is held before the refusal.
    const [first, second] = (await ticketTypeIds(h, event.id)).sort() as [string, string];
    expectCreated(await postOrder(h, auth, orderBody(event.id, [second])));
    const res = await expectNothingWritten(h, () => postOrder(h, auth, orderBody(event.id, [second, first])));
    expectError(res, 409, 'sold_out');
    assert.deepEqual(await ticketCounts(h, first), { held: 0, paid: 0 });
    expectCreated(await postOrder(h, auth, orderBody(event.id, [first])), 'the seat is still free');
  });
});

describe('POST /v1/orders with an Idempotency-Key', () => {
  test('a replay answers the identical body with Idempotent-Replayed: true and creates one order', async () => {
    const body = orderBody(eventId, [paidTt], { client_reference_id: 'idem-1' });
    const headers = { ...auth, 'idempotency-key': 'order-replay-1' };
    const before = await snapshot(h);
    const first = await postOrder(h, headers, body);
    const order = expectCreated(first);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await postOrder(h, headers, body);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body, 'byte for byte the first response');
    const after = await snapshot(h);
    assert.equal(after.orders, before.orders + 1, 'one order');
    assert.equal(after.registrations, before.registrations + 1);
    assert.equal(after.held, before.held + 1, 'one hold');
    assert.equal((again.json() as { data: { id: string } }).data.id, order.id);
  });

  test('the same key with a different body is 422 idempotency_key_reused and writes nothing', async () => {
    const headers = { ...auth, 'idempotency-key': 'order-replay-2' };
    expectCreated(await postOrder(h, headers, orderBody(eventId, [paidTt])));
    const res = await expectNothingWritten(h, () =>
      postOrder(h, headers, orderBody(eventId, [paidTt, paidTt])),
    );
    expectError(res, 422, 'idempotency_key_reused');
  });

  test('a refused request does not use up its key', async () => {
    const headers = { ...auth, 'idempotency-key': 'order-replay-3' };
    const bad = await expectNothingWritten(h, () =>
      postOrder(h, headers, orderBody(eventId, [paidTt], { buyer: { ...BUYER, phone: '12345' } })),
    );
    expectFieldErrors(bad, ['buyer.phone']);
    const good = await postOrder(h, headers, orderBody(eventId, [paidTt]));
    expectCreated(good);
    assert.equal(good.headers['idempotent-replayed'], undefined);
  });

  test('keys belong to one client: another client may use the same key', async () => {
    const other = await makePartner(h);
    const otherEvent = (await makeEvent(h, other)).id;
    const [otherTt] = (await ticketTypeIds(h, otherEvent)) as [string];
    const key = { 'idempotency-key': 'shared-key' };
    const mine = expectCreated(await postOrder(h, { ...auth, ...key }, orderBody(eventId, [paidTt])));
    const res = await postOrder(
      h,
      { ...bearer(await getToken(h, other)), ...key },
      orderBody(otherEvent, [otherTt]),
    );
    const theirs = expectCreated(res);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.id, mine.id);
  });
});
