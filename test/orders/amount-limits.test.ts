// Amount ceilings (docs/decisions/amount-ceilings.md): prices at most MAX_PRICE_MINOR through the
// admin API and insertEvent, donations at most MAX_DONATION_MINOR, order totals under every payment
// method at most MAX_ORDER_TOTAL_MINOR. Nothing above them is written, no amount reaches a 500, and
// a property over price x quantity x fee x donation finds no computed value past a ceiling.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { feeFor, MAX_FIXED_FEE_MINOR, MAX_PRICE_MINOR } from '../../src/events/fees.ts';
import { insertTicketType, insertEvent, patchTicketType } from '../../src/events/events.ts';
import { MAX_DONATION_MINOR } from '../../src/orders/order-rules.ts';
import { MAX_ORDER_TOTAL_MINOR } from '../../src/orders/plan-order.ts';
import { ApiError } from '../../src/platform/errors.ts';
import {
  bearer,
  eventInput,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { admin, dataOf, errorOf, fieldsOf } from '../admin/admin-helpers.ts';
import {
  BUYER,
  expectCreated,
  expectError,
  expectNothingWritten,
  HARNESS_ENV,
  postOrder,
  ticketTypeIds,
} from './order-helpers.ts';
import { getPage, postForm } from '../site/site-helpers.ts';

const INT4_MAX = 2_147_483_647;

let h: Harness;
let partner: TestPartner;
let token: string;

before(async () => {
  h = await startHarness({ env: HARNESS_ENV });
  partner = await makePartner(h);
  token = await getToken(h, partner);
});
after(() => h.close());

/** A bare event (no waiver, no questions) with one ticket type at `price`. */
async function eventAt(price: number, capacity = 1000): Promise<{ eventId: string; ticketTypeId: string }> {
  const event = await makeEvent(h, partner, {
    ticket_types: [{ name: 'Marathon', price_minor: price, capacity }],
  });
  const [ticketTypeId] = await ticketTypeIds(h, event.id);
  return { eventId: event.id, ticketTypeId: ticketTypeId! };
}

function orderOf(
  eventId: string,
  ticketTypeId: string,
  quantity: number,
  extra: Record<string, unknown> = {},
) {
  return {
    event_id: eventId,
    items: Array.from({ length: quantity }, (_, i) => ({
      ticket_type_id: ticketTypeId,
      participant_name: `Runner ${i + 1}`,
    })),
    buyer: BUYER,
    ...extra,
  };
}

async function eventDetail(eventId: string) {
  const res = await h.service.api.inject({
    method: 'GET',
    url: `/v1/events/${eventId}`,
    headers: bearer(token),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    ticket_types: Array<{
      price_minor: number;
      laces_fee_minor: number;
      total_minor: number;
      airtel: { laces_fee_minor: number; total_minor: number };
    }>;
  };
}

function expectTotalsWithinCeilings(detail: Awaited<ReturnType<typeof eventDetail>>): void {
  for (const tt of detail.ticket_types) {
    for (const value of [
      tt.price_minor,
      tt.laces_fee_minor,
      tt.total_minor,
      tt.airtel.laces_fee_minor,
      tt.airtel.total_minor,
    ]) {
      assert.ok(Number.isSafeInteger(value) && value >= 0, String(value));
      assert.ok(value <= MAX_ORDER_TOTAL_MINOR, `${value} is within the order ceiling`);
    }
    assert.ok(tt.price_minor <= MAX_PRICE_MINOR);
  }
}

/** An event through the admin API, as an operator creates one. */
function adminEvent(ticketTypes: unknown[]) {
  const input = eventInput(h);
  return admin(h, {
    method: 'POST',
    url: `/organizations/${partner.organizationId}/events`,
    body: { ...input, ticket_types: ticketTypes },
  });
}

describe('the price ceiling', () => {
  test('the admin API refuses price_minor 2147483647 with 400 validation_failed, on every route that sets a price', async () => {
    const before = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM events`,
    );
    for (const price of [INT4_MAX, MAX_PRICE_MINOR + 1]) {
      const refused = await adminEvent([{ name: 'Elite', price_minor: price, capacity: 10 }]);
      assert.deepEqual(fieldsOf(errorOf(refused, 400, 'validation_failed')), ['ticket_types[0].price_minor']);
    }
    const after = await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM events`,
    );
    assert.equal(Number(after[0]!.n), Number(before[0]!.n), 'no event written');

    const created = dataOf(
      await adminEvent([{ name: 'Elite', price_minor: MAX_PRICE_MINOR, capacity: 10 }]),
      201,
    );
    const eventId = created.event_id as string;
    const added = await admin(h, {
      method: 'POST',
      url: `/events/${eventId}/ticket-types`,
      body: { name: 'VIP', price_minor: INT4_MAX, capacity: 5 },
    });
    assert.deepEqual(fieldsOf(errorOf(added, 400, 'validation_failed')), ['price_minor']);
    const [ticketTypeId] = await ticketTypeIds(h, eventId);
    for (const price of [INT4_MAX, MAX_PRICE_MINOR + 1, 1_000_000_000]) {
      const patched = await admin(h, {
        method: 'PATCH',
        url: `/ticket-types/${ticketTypeId}`,
        body: { price_minor: price },
      });
      assert.deepEqual(fieldsOf(errorOf(patched, 400, 'validation_failed')), ['price_minor']);
    }
    const detail = await eventDetail(eventId);
    assert.deepEqual(
      detail.ticket_types.map((t) => t.price_minor),
      [MAX_PRICE_MINOR],
    );
    expectTotalsWithinCeilings(detail);
  });

  test('insertEvent, insertTicketType and patchTicketType refuse a price above the ceiling before writing', async () => {
    const db = h.service.ctx.database.db;
    const count = async () =>
      Number(
        (await h.service.ctx.database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM events`))[0]!.n,
      );
    const before = await count();
    await assert.rejects(
      insertEvent(db, partner.organizationId, {
        ...eventInput(h),
        ticket_types: [
          { name: 'Fine', price_minor: 1000, capacity: 1 },
          { name: 'Too dear', price_minor: INT4_MAX, capacity: 1 },
        ],
      }),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 'validation_failed' &&
        error.errors?.[0]?.field === 'ticket_types[1].price_minor',
    );
    assert.equal(await count(), before);

    const event = await makeEvent(h, partner);
    const [ticketTypeId] = await ticketTypeIds(h, event.id);
    const refusedOn = (field: string) => (error: unknown) =>
      error instanceof ApiError && error.code === 'validation_failed' && error.errors?.[0]?.field === field;
    await assert.rejects(
      insertTicketType(db, event, { name: 'Too dear', price_minor: MAX_PRICE_MINOR + 1, capacity: 1 }),
      refusedOn('price_minor'),
    );
    await assert.rejects(
      patchTicketType(db, ticketTypeId!, { price_minor: INT4_MAX }, 'UGX'),
      refusedOn('price_minor'),
    );
    assert.equal((await ticketTypeIds(h, event.id)).length, 2, 'no ticket type added');
    const [row] = await h.service.ctx.database.rows<{ price_minor: number }>(
      sql`SELECT price_minor FROM ticket_types WHERE id = ${ticketTypeId!}`,
    );
    assert.equal(Number(row!.price_minor), 30000, 'the price is unchanged');
  });
});

describe('the order total ceiling', () => {
  test('10 tickets at the ceiling price (1,035,000,000 with the fee) get 422 amount_too_large; 9 are taken', async () => {
    const { eventId, ticketTypeId } = await eventAt(MAX_PRICE_MINOR);
    const refused = await expectNothingWritten(h, () =>
      postOrder(h, bearer(token), orderOf(eventId, ticketTypeId, 10)),
    );
    const body = expectError(refused, 422, 'amount_too_large');
    assert.match(body.message, /1035000000 UGX/);
    assert.match(body.message, /1000000000/);
    const order = expectCreated(await postOrder(h, bearer(token), orderOf(eventId, ticketTypeId, 9)));
    assert.equal(
      order.total,
      9 * (MAX_PRICE_MINOR + feeFor(MAX_PRICE_MINOR, { percent_bp: 350, fixed_minor: 0 })),
    );
    assert.ok(order.total <= MAX_ORDER_TOTAL_MINOR);
  });

  test('a donation that takes the total over the ceiling is refused too; one over its own ceiling is 400', async () => {
    const { eventId, ticketTypeId } = await eventAt(MAX_PRICE_MINOR);
    const over = await expectNothingWritten(h, () =>
      postOrder(h, bearer(token), orderOf(eventId, ticketTypeId, 9, { donation_minor: MAX_DONATION_MINOR })),
    );
    expectError(over, 422, 'amount_too_large');
    for (const donation of [MAX_DONATION_MINOR + 1, INT4_MAX, 2 ** 40]) {
      const res = await postOrder(
        h,
        bearer(token),
        orderOf(eventId, ticketTypeId, 1, { donation_minor: donation }),
      );
      const refused = expectError(res, 400, 'validation_failed');
      assert.deepEqual(
        refused.errors!.map((e) => e.field),
        ['donation_minor'],
      );
    }
  });

  test('prices stored before the ceiling (3 tickets at 1,000,000,000; one at 2147483647) get 422, not 500', async () => {
    const { eventId, ticketTypeId } = await eventAt(1000);
    for (const [price, quantity] of [
      [1_000_000_000, 3],
      [INT4_MAX, 1],
      [INT4_MAX, 10],
    ] as const) {
      await h.service.ctx.database.rows(
        sql`UPDATE ticket_types SET price_minor = ${price} WHERE id = ${ticketTypeId}`,
      );
      const res = await expectNothingWritten(h, () =>
        postOrder(h, bearer(token), orderOf(eventId, ticketTypeId, quantity)),
      );
      expectError(res, 422, 'amount_too_large', `${quantity} at ${price}`);
    }
  });

  test('the ceiling holds for every payment method, not only the one priced at creation', async () => {
    const dear = await makePartner(h, {
      fees: { momo: { percent_bp: 0, fixed_minor: 0 }, airtel: { percent_bp: 1000, fixed_minor: 0 } },
    });
    const event = await makeEvent(h, dear, {
      ticket_types: [{ name: 'Marathon', price_minor: 95_000_000, capacity: 100 }],
    });
    const [ticketTypeId] = await ticketTypeIds(h, event.id);
    // momo: 950,000,000; airtel: 1,045,000,000
    const res = await postOrder(h, bearer(await getToken(h, dear)), orderOf(event.id, ticketTypeId!, 10));
    expectError(res, 422, 'amount_too_large');
  });

  test('the hosted review page answers 4xx, not 500, for an order over the ceiling', async () => {
    const shopPartner = await makePartner(h, {
      allowedDomains: ['https://shop.example.org'],
      returnUrlDomains: ['https://shop.example.org'],
    });
    const { id: eventId } = await makeEvent(h, shopPartner, {
      ticket_types: [{ name: 'Marathon', price_minor: MAX_PRICE_MINOR, capacity: 100 }],
    });
    const [ticketTypeId] = await ticketTypeIds(h, eventId);
    const shopToken = await getToken(h, shopPartner);
    const created = await h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: { ...bearer(shopToken), 'content-type': 'application/json' },
      payload: JSON.stringify({
        event_id: eventId,
        on_success_url: 'https://shop.example.org/thanks',
        on_cancel_url: 'https://shop.example.org/cart',
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const sessionId = created.json().data.id as string;
    const form = (quantity: number, action: string): Record<string, string> => {
      const fields: Record<string, string> = {
        [`qty.${ticketTypeId}`]: String(quantity),
        'buyer.name': BUYER.name,
        'buyer.email': BUYER.email,
        'buyer.phone': BUYER.phone,
        donation_minor: '',
        payment_method: 'momo',
        payment_phone: '0770000001',
        action,
      };
      for (let i = 0; i < quantity; i++) {
        fields[`items[${i}].ticket_type_id`] = ticketTypeId!;
        fields[`items[${i}].participant_name`] = `Runner ${i + 1}`;
        fields[`items[${i}].date_of_birth`] = '';
      }
      return fields;
    };
    const page = await getPage(h, `/checkout/${sessionId}`);
    assert.equal(page.statusCode, 200);
    for (const action of ['review', 'pay']) {
      const res = await expectNothingWritten(h, () =>
        postForm(h, `/checkout/${sessionId}/order`, form(10, action)),
      );
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${action}: ${res.statusCode} ${res.body}`);
      assert.match(String(res.headers['x-request-id']), /^req_/);
    }
    // a price stored before the ceiling: 3 tickets at 1,000,000,000
    await h.service.ctx.database.rows(
      sql`UPDATE ticket_types SET price_minor = 1000000000 WHERE id = ${ticketTypeId!}`,
    );
    const legacy = await postForm(h, `/checkout/${sessionId}/order`, form(3, 'review'));
    assert.ok(legacy.statusCode >= 400 && legacy.statusCode < 500, String(legacy.statusCode));
  });
});

describe('property: price x quantity x fee x donation', () => {
  test('no fee, total_minor or order total passes a ceiling or 2^31-1, and every order is a 201 or a 4xx', async () => {
    const { eventId, ticketTypeId } = await eventAt(1000, 1_000_000);
    let price = 1000;
    const priceArb = fc.oneof(
      fc.integer({ min: 0, max: MAX_PRICE_MINOR }),
      fc.constantFrom(0, 1, MAX_PRICE_MINOR, MAX_PRICE_MINOR + 1, 1_000_000_000, INT4_MAX),
      fc.integer({ min: 0, max: INT4_MAX }),
    );
    const feeArb = fc.record({
      percent_bp: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom(0, 350, 5000, 10_000)),
      fixed_minor: fc.oneof(
        fc.integer({ min: 0, max: MAX_FIXED_FEE_MINOR }),
        fc.constantFrom(0, MAX_FIXED_FEE_MINOR),
      ),
    });
    const donationArb = fc.oneof(
      fc.constant(undefined),
      fc.integer({ min: 0, max: MAX_DONATION_MINOR }),
      fc.constantFrom(MAX_DONATION_MINOR, MAX_DONATION_MINOR + 1, INT4_MAX),
    );
    await fc.assert(
      fc.asyncProperty(
        priceArb,
        fc.integer({ min: 1, max: 10 }),
        feeArb,
        feeArb,
        donationArb,
        async (newPrice, quantity, momo, airtel, donation) => {
          const fees = await admin(h, {
            method: 'PATCH',
            url: `/organizations/${partner.organizationId}`,
            body: { fees: { momo, airtel } },
          });
          assert.equal(fees.statusCode, 200, fees.body);
          const patched = await admin(h, {
            method: 'PATCH',
            url: `/ticket-types/${ticketTypeId}`,
            body: { price_minor: newPrice },
          });
          if (newPrice > MAX_PRICE_MINOR) {
            assert.deepEqual(fieldsOf(errorOf(patched, 400, 'validation_failed')), ['price_minor']);
          } else {
            assert.equal(patched.statusCode, 200, patched.body);
            price = newPrice;
          }
          const detail = await eventDetail(eventId);
          expectTotalsWithinCeilings(detail);
          assert.equal(detail.ticket_types[0]!.laces_fee_minor, feeFor(price, momo));
          assert.equal(detail.ticket_types[0]!.airtel.total_minor, price + feeFor(price, airtel));

          const res = await postOrder(
            h,
            bearer(token),
            orderOf(
              eventId,
              ticketTypeId,
              quantity,
              donation === undefined ? {} : { donation_minor: donation },
            ),
          );
          assert.ok(res.statusCode < 500, `never a 5xx: ${res.statusCode} ${res.body}`);
          // Worked out exactly, apart from the service's arithmetic.
          const given = BigInt(donation ?? 0);
          const exact = (fee: { percent_bp: number; fixed_minor: number }) => {
            if (price === 0) return BigInt(0);
            const scaled = BigInt(price) * BigInt(fee.percent_bp);
            const rounded = scaled / 10_000n + (scaled % 10_000n >= 5_000n ? 1n : 0n);
            return rounded + BigInt(fee.fixed_minor);
          };
          const totalFor = (fee: { percent_bp: number; fixed_minor: number }) =>
            BigInt(quantity) * (BigInt(price) + exact(fee)) + given;
          const largest = [totalFor(momo), totalFor(airtel)].reduce((a, b) => (a > b ? a : b));
          if ((donation ?? 0) > MAX_DONATION_MINOR) {
            expectError(res, 400, 'validation_failed');
          } else if (largest > BigInt(MAX_ORDER_TOTAL_MINOR)) {
            expectError(res, 422, 'amount_too_large');
          } else {
            const order = expectCreated(res);
            assert.equal(BigInt(order.total), totalFor(momo));
            for (const value of [order.total, order.subtotal, order.laces_fee, order.donation_total]) {
              assert.ok(value <= MAX_ORDER_TOTAL_MINOR && value <= INT4_MAX, String(value));
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
