import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { findEvent, type EventInput } from '../../src/events/events.ts';
import { findOrganization } from '../../src/organizations/organizations.ts';

let h: Harness;

before(async () => {
  // The property test sends hundreds of requests with one token; lift the per-client limit.
  h = await startHarness({ env: { RATE_LIMIT_BEARER_RATE: '1000000', RATE_LIMIT_BEARER_BURST: '1000000' } });
});
after(() => h.close());

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type FieldType = 'string' | 'timestamp' | 'boolean' | 'integer' | 'number' | 'array' | 'object|null' | 'null';

/** Event detail fields of the contract: list item fields plus the detail ones (docs/contract.md). */
const DETAIL_TYPES: Record<string, FieldType> = {
  event_id: 'string',
  name: 'string',
  handle: 'string',
  short_code: 'string',
  description: 'string',
  cover: 'string',
  venue: 'string',
  event_type: 'string',
  status: 'string',
  visibility: 'string',
  starts_at: 'timestamp',
  ends_at: 'timestamp',
  timezone: 'string',
  currency: 'string',
  reg_opens_at: 'timestamp',
  reg_closes_at: 'timestamp',
  payments_enabled: 'boolean',
  organizer_name: 'string',
  support_email: 'string',
  payment_methods: 'array',
  ticket_types: 'array',
  additional_questions: 'array',
  waiver_required: 'boolean',
  waiver_version: 'string',
};

/** TicketType fields of the contract (docs/contract.md). card is null while cards are not offered. */
const TICKET_TYPE_TYPES: Record<string, FieldType> = {
  ticket_type_id: 'string',
  name: 'string',
  description: 'string',
  currency: 'string',
  price_minor: 'integer',
  laces_fee_minor: 'integer',
  total_minor: 'integer',
  card: 'null',
  airtel: 'object|null',
  mpesa: 'object|null',
  is_free: 'boolean',
  capacity: 'integer',
  distance_km: 'number',
  remaining: 'integer',
  sales_start: 'timestamp',
  sales_end: 'timestamp',
  min_age: 'integer',
};

const QUESTION_TYPES: Record<string, FieldType> = {
  key: 'string',
  label: 'string',
  type: 'string',
  required: 'boolean',
  options: 'array',
  help: 'string',
};

function assertFieldTypes(value: Record<string, unknown>, types: Record<string, FieldType>, where: string) {
  assert.deepEqual(Object.keys(value).sort(), Object.keys(types).sort(), `${where}: field names`);
  for (const [field, type] of Object.entries(types)) {
    const v = value[field];
    const what = `${where}.${field} = ${JSON.stringify(v)}`;
    switch (type) {
      case 'timestamp':
        assert.equal(typeof v, 'string', what);
        assert.match(v as string, TIMESTAMP, what);
        break;
      case 'integer':
        assert.ok(Number.isInteger(v), what);
        break;
      case 'array':
        assert.ok(Array.isArray(v), what);
        break;
      case 'null':
        assert.equal(v, null, what);
        break;
      case 'object|null':
        assert.ok(v === null || (typeof v === 'object' && !Array.isArray(v)), what);
        break;
      default:
        assert.equal(typeof v, type, what);
    }
  }
}

async function detail(token: string, eventId: string) {
  return h.service.api.inject({ url: `/v1/events/${eventId}`, headers: bearer(token) });
}

async function detailData(token: string, eventId: string) {
  const res = await detail(token, eventId);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

function assertNotFound(res: Awaited<ReturnType<typeof detail>>, what: string) {
  assert.equal(res.statusCode, 404, `${what}: ${res.statusCode} ${res.body}`);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error_code', 'message', 'request_id'], what);
  assert.equal(body.code, 404, what);
  assert.equal(body.error_code, 'not_found', what);
  assert.equal(typeof body.message, 'string', what);
  assert.match(body.request_id, /^req_/, what);
  assert.equal(body.request_id, res.headers['x-request-id'], what);
}

/** One event with one ticket type per price, so the fees of many prices show in one detail. */
async function ticketsAt(partner: TestPartner, prices: number[]) {
  const token = await getToken(h, partner);
  const event = await makeEvent(h, partner, {
    ticket_types: prices.map((price_minor, i) => ({ name: `T${i}`, price_minor, capacity: 10 })),
  });
  const data = await detailData(token, event.id);
  return data.ticket_types as Array<Record<string, unknown>>;
}

describe('GET /v1/events/{eventId}', () => {
  test('gives every Event detail and TicketType field of the contract with its value and type', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const now = h.clock.now().getTime();
    const salesStart = new Date(now - 2 * HOUR).toISOString();
    const salesEnd = new Date(now + 20 * DAY).toISOString();
    const input: Partial<EventInput> = {
      name: 'Kampala City Half Marathon',
      handle: 'kch-2026',
      short_code: 'KCH26',
      description: 'Flat and fast.',
      cover: 'https://cdn.example.org/kch.jpg',
      venue: 'Kololo',
      event_type: 'road_race',
      organizer_name: 'Kampala Runners',
      support_email: 'races@example.org',
      waiver_required: true,
      waiver_version: '2026-01-15',
      waiver_text: 'I run at my own risk.',
      additional_questions: [
        {
          key: 'tshirt',
          label: 'T-shirt size',
          type: 'select',
          required: true,
          options: ['S', 'M', 'L'],
          help: '',
        },
      ],
      ticket_types: [
        {
          name: '21 km',
          description: 'Half marathon',
          price_minor: 30000,
          capacity: 100,
          distance_km: 21.1,
          sales_start: salesStart,
          sales_end: salesEnd,
          min_age: 18,
        },
        { name: '5 km', price_minor: 0, capacity: 50, distance_km: 5 },
      ],
    };
    const event = await makeEvent(h, partner, input);
    const data = await detailData(token, event.id);

    assertFieldTypes(data, DETAIL_TYPES, 'event');
    assert.equal(data.ticket_types.length, 2);
    data.ticket_types.forEach((tt: Record<string, unknown>, i: number) =>
      assertFieldTypes(tt, TICKET_TYPE_TYPES, `ticket_types[${i}]`),
    );
    data.additional_questions.forEach((q: Record<string, unknown>, i: number) =>
      assertFieldTypes(q, QUESTION_TYPES, `additional_questions[${i}]`),
    );

    const { ticket_types, ...rest } = data;
    assert.deepEqual(rest, {
      event_id: event.id,
      name: 'Kampala City Half Marathon',
      handle: 'kch-2026',
      short_code: 'KCH26',
      description: 'Flat and fast.',
      cover: 'https://cdn.example.org/kch.jpg',
      venue: 'Kololo',
      event_type: 'road_race',
      status: 'open',
      visibility: 'public',
      starts_at: event.startsAt.toISOString(),
      ends_at: event.endsAt.toISOString(),
      timezone: 'Africa/Kampala',
      currency: 'UGX',
      reg_opens_at: event.regOpensAt.toISOString(),
      reg_closes_at: event.regClosesAt.toISOString(),
      payments_enabled: true,
      organizer_name: 'Kampala Runners',
      support_email: 'races@example.org',
      payment_methods: ['momo', 'airtel'],
      additional_questions: input.additional_questions,
      waiver_required: true,
      waiver_version: '2026-01-15',
    });
    // The waiver text is for the checkout page, not for the partner API.
    assert.equal('waiver_text' in data, false);

    const [paid, free] = ticket_types;
    assert.match(paid.ticket_type_id, /^tt_[A-Za-z0-9]{24}$/);
    assert.match(free.ticket_type_id, /^tt_[A-Za-z0-9]{24}$/);
    assert.notEqual(paid.ticket_type_id, free.ticket_type_id);
    assert.deepEqual(paid, {
      ticket_type_id: paid.ticket_type_id,
      name: '21 km',
      description: 'Half marathon',
      currency: 'UGX',
      price_minor: 30000,
      // 3.5 % of 30000 = 1050
      laces_fee_minor: 1050,
      total_minor: 31050,
      card: null,
      airtel: { laces_fee_minor: 1050, total_minor: 31050 },
      mpesa: null,
      is_free: false,
      capacity: 100,
      distance_km: 21.1,
      remaining: 100,
      sales_start: salesStart,
      sales_end: salesEnd,
      min_age: 18,
    });
    assert.deepEqual(free, {
      ticket_type_id: free.ticket_type_id,
      name: '5 km',
      description: '',
      currency: 'UGX',
      price_minor: 0,
      laces_fee_minor: 0,
      total_minor: 0,
      card: null,
      airtel: { laces_fee_minor: 0, total_minor: 0 },
      mpesa: null,
      is_free: true,
      capacity: 50,
      distance_km: 5,
      remaining: 50,
      // Without their own sales window, ticket types sell during the registration window.
      sales_start: event.regOpensAt.toISOString(),
      sales_end: event.regClosesAt.toISOString(),
      min_age: 0,
    });
  });

  test('a KES event offers M-Pesa only, priced in whole shillings; airtel is null', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    // KES 1,234.00 at 3.5 % is KES 43.19, rounded half up to a whole shilling: 43.
    const event = await makeEvent(h, partner, {
      currency: 'KES',
      timezone: 'Africa/Nairobi',
      ticket_types: [{ name: '10 km', price_minor: 123_400, capacity: 20 }],
    });
    const data = await detailData(token, event.id);
    assert.equal(data.currency, 'KES');
    assert.deepEqual(data.payment_methods, ['mpesa']);
    const [tt] = data.ticket_types;
    assertFieldTypes(tt, TICKET_TYPE_TYPES, 'ticket_types[0]');
    assert.deepEqual(
      { fee: tt.laces_fee_minor, total: tt.total_minor, card: tt.card, airtel: tt.airtel, mpesa: tt.mpesa },
      {
        fee: 4_300,
        total: 127_700,
        card: null,
        airtel: null,
        mpesa: { laces_fee_minor: 4_300, total_minor: 127_700 },
      },
    );
  });

  test('a KES price that is not whole shillings is refused', async () => {
    const partner = await makePartner(h);
    await assert.rejects(
      makeEvent(h, partner, {
        currency: 'KES',
        ticket_types: [{ name: '5 km', price_minor: 150_050, capacity: 5 }],
      }),
      (error: { code?: string; errors?: Array<{ field: string; message: string }> }) => {
        assert.equal(error.code, 'validation_failed');
        assert.match(error.errors?.[0]?.message ?? '', /whole KES/);
        return true;
      },
    );
  });

  test("falls back to the organization's name and support email", async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const event = await makeEvent(h, partner);
    const org = await findOrganization(h.service.ctx.database.db, partner.organizationId);
    const data = await detailData(token, event.id);
    assert.equal(data.organizer_name, org!.name);
    assert.equal(data.support_email, 'help@example.org');
    assert.deepEqual(data.additional_questions, []);
    assert.equal(data.waiver_required, false);
    assert.equal(data.waiver_version, '');
  });

  test('lists no payment methods while the organization cannot take payments', async () => {
    const partner = await makePartner(h, { paymentsEnabled: false });
    const token = await getToken(h, partner);
    const event = await makeEvent(h, partner);
    const data = await detailData(token, event.id);
    assert.equal(data.payments_enabled, false);
    assert.deepEqual(data.payment_methods, []);
  });

  test('lists ticket types in the order they were given', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const names = ['Marathon', '10 km', 'Kids', 'A', 'z'];
    const event = await makeEvent(h, partner, {
      ticket_types: names.map((name) => ({ name, price_minor: 1000, capacity: 5 })),
    });
    const data = await detailData(token, event.id);
    assert.deepEqual(
      data.ticket_types.map((t: { name: string }) => t.name),
      names,
    );
  });

  describe('fees (docs/contract.md#fees: round_half_up(price * percent) + fixed)', () => {
    test('charges the default 3.5 % rounded half up, and nothing on free tickets', async () => {
      const partner = await makePartner(h);
      // price -> fee, worked by hand: price * 0.035 rounded half up.
      const cases: Array<[number, number]> = [
        [30000, 1050], // 1050 exactly
        [10, 0], // 0.35 -> 0
        [14, 0], // 0.49 -> 0
        [15, 1], // 0.525 -> 1
        [20, 1], // 0.7 -> 1 (not truncated)
        [100, 4], // 3.5 -> 4 (half up)
        [300, 11], // 10.5 -> 11 (half up, where half-even would give 10)
        [1, 0], // 0.035 -> 0
        [0, 0], // free
        [100_000_000, 3_500_000], // the price ceiling
      ];
      const tts = await ticketsAt(
        partner,
        cases.map(([price]) => price),
      );
      cases.forEach(([price, fee], i) => {
        const tt = tts[i]!;
        assert.equal(tt.price_minor, price);
        assert.equal(tt.laces_fee_minor, fee, `fee of ${price}`);
        assert.equal(tt.total_minor, price + fee, `total of ${price}`);
        assert.deepEqual(tt.airtel, { laces_fee_minor: fee, total_minor: price + fee }, `airtel of ${price}`);
        assert.equal(tt.card, null);
        assert.equal(tt.is_free, price === 0);
      });
    });

    test("uses the organization's own fee per method: momo at the top level, airtel in airtel", async () => {
      const partner = await makePartner(h, {
        fees: {
          momo: { percent_bp: 200, fixed_minor: 0 },
          airtel: { percent_bp: 500, fixed_minor: 100 },
        },
      });
      const cases: Array<{ price: number; momo: number; airtel: number }> = [
        { price: 30000, momo: 600, airtel: 1600 }, // 2 % = 600; 5 % = 1500, + 100
        { price: 10, momo: 0, airtel: 101 }, // 0.2 -> 0; 0.5 -> 1 (half up), + 100
        { price: 25, momo: 1, airtel: 101 }, // 0.5 -> 1; 1.25 -> 1, + 100
        { price: 0, momo: 0, airtel: 0 }, // free tickets carry no fee, not even the fixed part
      ];
      const tts = await ticketsAt(
        partner,
        cases.map((c) => c.price),
      );
      cases.forEach((c, i) => {
        const tt = tts[i]!;
        assert.equal(tt.laces_fee_minor, c.momo, `momo fee of ${c.price}`);
        assert.equal(tt.total_minor, c.price + c.momo, `momo total of ${c.price}`);
        assert.deepEqual(
          tt.airtel,
          { laces_fee_minor: c.airtel, total_minor: c.price + c.airtel },
          `airtel of ${c.price}`,
        );
        assert.equal(tt.card, null);
      });
    });
  });

  test('gives remaining = capacity - paid - held', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const event = await makeEvent(h, partner, {
      ticket_types: [
        { name: 'A', price_minor: 1000, capacity: 100 },
        { name: 'B', price_minor: 0, capacity: 7 },
      ],
    });
    const db = h.service.ctx.database.db;
    const rows = (await findEvent(db, event.id))!.ticketTypes;
    const setCounts = (id: string, paidCount: number, heldCount: number) =>
      db.update(ticketTypes).set({ paidCount, heldCount }).where(eq(ticketTypes.id, id));

    const remaining = async () =>
      ((await detailData(token, event.id)).ticket_types as Array<{ remaining: number }>).map(
        (t) => t.remaining,
      );
    assert.deepEqual(await remaining(), [100, 7]);
    await setCounts(rows[0]!.id, 30, 12);
    await setCounts(rows[1]!.id, 0, 3);
    assert.deepEqual(await remaining(), [58, 4]);
    await setCounts(rows[0]!.id, 60, 40);
    await setCounts(rows[1]!.id, 7, 0);
    assert.deepEqual(await remaining(), [0, 0]);
    // capacity is reported as set, not reduced by sales
    const data = await detailData(token, event.id);
    assert.deepEqual(
      data.ticket_types.map((t: { capacity: number }) => t.capacity),
      [100, 7],
    );
  });

  test('serves an on-sale event outside its registration window', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const now = h.clock.now().getTime();
    const event = await makeEvent(h, partner, {
      reg_opens_at: new Date(now + DAY).toISOString(),
      reg_closes_at: new Date(now + 2 * DAY).toISOString(),
    });
    assert.equal((await detailData(token, event.id)).event_id, event.id);
  });

  test('serves an event that has started and not yet ended', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const now = h.clock.now().getTime();
    const event = await makeEvent(h, partner, {
      starts_at: new Date(now - HOUR).toISOString(),
      ends_at: new Date(now + HOUR).toISOString(),
    });
    assert.equal((await detailData(token, event.id)).event_id, event.id);
  });

  describe('not found', () => {
    let partner: TestPartner;
    let token: string;

    before(async () => {
      partner = await makePartner(h);
      token = await getToken(h, partner);
    });

    test("answers 404 not_found for another organization's event", async () => {
      const other = await makePartner(h);
      const theirs = await makeEvent(h, other);
      // It exists and is on sale: its own organization can read it.
      assert.equal((await detail(await getToken(h, other), theirs.id)).statusCode, 200);
      assertNotFound(await detail(token, theirs.id), 'other organization');
    });

    test('answers 404 not_found for events not on sale', async () => {
      const now = h.clock.now().getTime();
      const cases: Array<[string, Partial<EventInput>]> = [
        ['draft', { status: 'draft' }],
        ['closed', { status: 'closed' }],
        ['cancelled', { status: 'cancelled' }],
        ['private', { visibility: 'private' }],
        [
          'ended',
          {
            starts_at: new Date(now - 2 * DAY).toISOString(),
            ends_at: new Date(now - DAY).toISOString(),
          },
        ],
        [
          'ended a second ago',
          {
            starts_at: new Date(now - HOUR).toISOString(),
            ends_at: new Date(now - 1000).toISOString(),
          },
        ],
      ];
      for (const [what, overrides] of cases) {
        const event = await makeEvent(h, partner, overrides);
        assertNotFound(await detail(token, event.id), what);
      }
    });

    test('stops serving an event once it ends', async () => {
      const now = h.clock.now().getTime();
      const event = await makeEvent(h, partner, {
        starts_at: new Date(now - HOUR).toISOString(),
        ends_at: new Date(now + HOUR).toISOString(),
      });
      assert.equal((await detail(token, event.id)).statusCode, 200);
      const offset = h.clock.offsetMs;
      h.clock.advance(HOUR + 1000);
      try {
        assertNotFound(await detail(await getToken(h, partner), event.id), 'after the end');
      } finally {
        h.clock.offsetMs = offset;
      }
    });

    test('answers 404 not_found for unknown, overlong and odd ids, never 500', async () => {
      const ids = [
        'evt_000000000000000000000000',
        'evt_',
        'nope',
        'x'.repeat(300),
        `evt_${'a'.repeat(296)}`,
        'x'.repeat(200),
        encodeURIComponent('évènement-🎉'),
        encodeURIComponent('活动'),
        '%00',
        'evt_abc%00def',
        '%ED%A0%80', // a lone surrogate, as UTF-8
        '%C3', // a cut UTF-8 sequence
        '%2F',
        encodeURIComponent("evt_' OR '1'='1"),
      ];
      for (const id of ids) assertNotFound(await detail(token, id), `id ${id.slice(0, 40)}`);
    });

    test('property: any string as event id is 404 not_found, never 500', async () => {
      const percentEncode = (bytes: Uint8Array) =>
        [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }).map((s) => Buffer.from(s, 'utf8')),
            fc.uint8Array({ minLength: 1, maxLength: 300 }),
            fc
              .string({ unit: fc.constantFrom(...'ABCxyz019_'.split('')), minLength: 1, maxLength: 40 })
              .map((s) => Buffer.from(`evt_${s}`)),
          ),
          async (bytes) => {
            const res = await detail(token, percentEncode(bytes));
            assert.ok(res.statusCode < 500, `${percentEncode(bytes)} -> ${res.statusCode} ${res.body}`);
            assertNotFound(res, percentEncode(bytes));
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});
