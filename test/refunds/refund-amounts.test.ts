// What a refund gives back, as a pure function (src/payments/refund-amounts.ts): the whole of what
// is left, runners' places (price plus the fee on it, less their share of the discount), or an
// amount (ticket money, then donation, then fees); and the requests it refuses.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  discountShares,
  planRefund,
  type RefundableOrder,
  type RefundableRunner,
  type Returned,
} from '../../src/payments/refund-amounts.ts';

const nothing: Returned = { amount: 0, fee: 0, donation: 0 };

/** Two runners, 30 000 and 50 000 with fees 1 050 and 1 750, a donation of 5 000, no discount. */
const order: RefundableOrder = {
  subtotal: 80_000,
  discountTotal: 0,
  donationTotal: 5_000,
  lacesFee: 2_800,
  total: 87_800,
};
const runners: RefundableRunner[] = [
  { id: 'reg_a', priceMinor: 30_000, feeMinor: 1_050, refunded: false },
  { id: 'reg_b', priceMinor: 50_000, feeMinor: 1_750, refunded: false },
];

describe('discount shares', () => {
  test('are pro rata to the prices and sum exactly to the discount', () => {
    assert.deepEqual(discountShares(1_000, [30_000, 50_000]), [375, 625]);
    assert.deepEqual(discountShares(100, [1, 1, 1]), [34, 33, 33]);
    assert.deepEqual(discountShares(0, [5, 5]), [0, 0]);
  });

  test('always sum to the discount, none negative (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000_000 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (prices, asked) => {
          const sum = prices.reduce((a, b) => a + b, 0);
          const discount = Math.min(asked, sum);
          const shares = discountShares(discount, prices);
          assert.equal(
            shares.reduce((a, b) => a + b, 0),
            sum === 0 ? 0 : discount,
          );
          for (const [i, s] of shares.entries()) assert.ok(s >= 0 && s <= prices[i]!);
        },
      ),
    );
  });
});

describe('planning a refund', () => {
  test('without amount or runners, everything left goes back with every place', () => {
    assert.deepEqual(planRefund(order, runners, nothing, {}), {
      amount: 87_800,
      fee: 2_800,
      donation: 5_000,
      registrationIds: ['reg_a', 'reg_b'],
      completes: true,
    });
  });

  test("a runner's refund is its price and the fee on it; the donation stays", () => {
    assert.deepEqual(planRefund(order, runners, nothing, { registrationIds: ['reg_a'] }), {
      amount: 31_050,
      fee: 1_050,
      donation: 0,
      registrationIds: ['reg_a'],
      completes: false,
    });
  });

  test("a runner's refund is less its share of the discount", () => {
    const discounted = { ...order, discountTotal: 1_000, total: 86_800 };
    const plan = planRefund(discounted, runners, nothing, { registrationIds: ['reg_b'] });
    assert.ok(!('refusal' in plan));
    assert.equal(plan.amount, 50_000 + 1_750 - 625);
  });

  test('the last runner takes everything else left, the donation included, and completes the order', () => {
    const afterA: Returned = { amount: 31_050, fee: 1_050, donation: 0 };
    const done = runners.map((r) => ({ ...r, refunded: r.id === 'reg_a' }));
    assert.deepEqual(planRefund(order, done, afterA, { registrationIds: ['reg_b'] }), {
      amount: 56_750,
      fee: 1_750,
      donation: 5_000,
      registrationIds: ['reg_b'],
      completes: true,
    });
  });

  test('an amount comes from ticket money first, then the donation, then fees', () => {
    const plan = planRefund(order, runners, nothing, { amountMinor: 83_000 });
    assert.deepEqual(plan, {
      amount: 83_000,
      fee: 0,
      donation: 3_000,
      registrationIds: [],
      completes: false,
    });
    const afterTickets: Returned = { amount: 83_000, fee: 0, donation: 3_000 };
    assert.deepEqual(planRefund(order, runners, afterTickets, { amountMinor: 3_000 }), {
      amount: 3_000,
      fee: 1_000,
      donation: 2_000,
      registrationIds: [],
      completes: false,
    });
  });

  test('an amount equal to what is left completes the order with every place', () => {
    const plan = planRefund(order, runners, { amount: 7_800, fee: 0, donation: 0 }, { amountMinor: 80_000 });
    assert.ok(!('refusal' in plan));
    assert.equal(plan.completes, true);
    assert.deepEqual(plan.registrationIds, ['reg_a', 'reg_b']);
  });

  test('an amount with runners replaces what the runners come to', () => {
    assert.deepEqual(
      planRefund(order, runners, nothing, { amountMinor: 20_000, registrationIds: ['reg_b'] }),
      {
        amount: 20_000,
        fee: 0,
        donation: 0,
        registrationIds: ['reg_b'],
        completes: false,
      },
    );
  });

  const refusals: Array<[string, Parameters<typeof planRefund>, RegExp]> = [
    [
      'an amount above what is left',
      [order, runners, nothing, { amountMinor: 87_801 }],
      /more than the 87800 left/,
    ],
    [
      'an amount above what is left after earlier refunds',
      [order, runners, { amount: 80_000, fee: 0, donation: 0 }, { amountMinor: 7_801 }],
      /more than the 7800 left/,
    ],
    [
      'a runner not of the order',
      [order, runners, nothing, { registrationIds: ['reg_x'] }],
      /not one of this order/,
    ],
    [
      'a runner refunded already',
      [
        order,
        runners.map((r) => ({ ...r, refunded: true })),
        { amount: 1, fee: 0, donation: 0 },
        { registrationIds: ['reg_a'] },
      ],
      /refunded already/,
    ],
    ['a free order', [{ ...order, total: 0 }, runners, nothing, {}], /free/],
    [
      'an order refunded in full',
      [order, runners, { amount: 87_800, fee: 2_800, donation: 5_000 }, {}],
      /refunded already/,
    ],
    [
      'runners worth more than is left',
      [order, runners, { amount: 80_000, fee: 0, donation: 0 }, { registrationIds: ['reg_a'] }],
      /more than the 7800 left/,
    ],
  ];
  for (const [name, args, message] of refusals) {
    test(`refuses ${name}`, () => {
      const plan = planRefund(...args);
      assert.ok('refusal' in plan, JSON.stringify(plan));
      assert.match(plan.refusal, message);
    });
  }

  test('never gives back more than is left, and its parts add up (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 87_800 }),
        fc.integer({ min: 0, max: 87_799 }),
        (amount, before) => {
          // what earlier amounts returned, split as the rule splits them
          const donation = Math.min(Math.max(0, before - 80_000), 5_000);
          const returned: Returned = { amount: before, fee: Math.max(0, before - 85_000), donation };
          const plan = planRefund(order, runners, returned, { amountMinor: amount });
          if ('refusal' in plan) return assert.ok(amount > 87_800 - before);
          assert.ok(plan.amount <= 87_800 - before);
          assert.ok(plan.fee >= 0 && plan.donation >= 0 && plan.fee + plan.donation <= plan.amount);
        },
      ),
    );
  });
});
