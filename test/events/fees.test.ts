import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  feeFor,
  MAX_FIXED_FEE_MINOR,
  MAX_PRICE_MINOR,
  priceByMethod,
  priceFor,
} from '../../src/events/fees.ts';
import { MAX_ORDER_TOTAL_MINOR } from '../../src/orders/plan-order.ts';
import { PAYMENT_METHOD_CATALOGUE } from '../../src/payments/methods/catalogue.ts';

/** A method's fee: any percentage up to 100 %, a fixed part up to `maxFixed`. */
const methodFeeOf = (maxFixed: number) =>
  fc.record({
    percent_bp: fc.integer({ min: 0, max: 10_000 }),
    fixed_minor: fc.integer({ min: 0, max: maxFixed }),
  });

describe('feeFor', () => {
  test('rounds price * percent half up, then adds the fixed part (table)', () => {
    // [price, percent_bp, fixed, expected fee], each worked by hand.
    const table: Array<[number, number, number, number]> = [
      [30000, 350, 0, 1050], // 1050 exactly
      [10, 350, 0, 0], // 0.35 -> 0
      [100, 350, 0, 4], // 3.5 -> 4
      [300, 350, 0, 11], // 10.5 -> 11 (half-even would give 10)
      [20, 350, 0, 1], // 0.7 -> 1
      [14, 350, 0, 0], // 0.49 -> 0
      [15, 350, 0, 1], // 0.525 -> 1
      [1, 350, 0, 0],
      [1, 5000, 0, 1], // 0.5 -> 1
      [3, 5000, 0, 2], // 1.5 -> 2
      [1, 4999, 0, 0], // 0.4999 -> 0
      [30000, 500, 100, 1600], // 1500 + 100
      [10, 500, 100, 101], // 0.5 -> 1, + 100
      [999, 0, 250, 250], // no percentage, fixed only
      [12345, 10000, 0, 12345], // 100 %
      [2_147_483_647, 350, 0, 75_161_928], // 75161927.645 -> 75161928 (largest int4 price)
      [100_000_000, 350, 0, 3_500_000], // the price ceiling
      [99_999_999, 350, 0, 3_500_000], // 3499999.965 -> 3500000
      [99_999_999, 1, 0, 10_000], // 9999.9999 -> 10000
      [100_000_000, 10_000, 100_000_000, 200_000_000], // both ceilings at 100 %
      [2_147_483_647, 10_000, 0, 2_147_483_647],
    ];
    for (const [price, percent_bp, fixed_minor, expected] of table) {
      assert.equal(
        feeFor(price, { percent_bp, fixed_minor }),
        expected,
        `${price} at ${percent_bp} bp + ${fixed_minor}`,
      );
    }
  });

  test('charges nothing on a free ticket, not even the fixed part', () => {
    assert.equal(feeFor(0, { percent_bp: 350, fixed_minor: 0 }), 0);
    assert.equal(feeFor(0, { percent_bp: 500, fixed_minor: 100 }), 0);
    assert.deepEqual(priceFor(0, { percent_bp: 500, fixed_minor: 100 }, 'UGX'), {
      laces_fee_minor: 0,
      total_minor: 0,
    });
  });

  test('in KES the percentage rounds half up to a whole shilling (100 minor units)', () => {
    const fee = { percent_bp: 350, fixed_minor: 0 };
    // KES 1,234.00 at 3.5 % is 43.19: 43 shillings; KES 1,300.00 is 45.50: 46 shillings.
    assert.equal(feeFor(123_400, fee, 100), 4_300);
    assert.equal(feeFor(130_000, fee, 100), 4_600);
    assert.deepEqual(priceFor(123_400, fee, 'KES'), { laces_fee_minor: 4_300, total_minor: 127_700 });
    assert.equal(feeFor(123_400, fee), 4_319);
  });

  test('property: a whole-shilling price has a whole-shilling fee and total in KES', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), methodFeeOf(0), (shillings, fee) => {
        const { laces_fee_minor, total_minor } = priceFor(shillings * 100, fee, 'KES');
        assert.equal(laces_fee_minor % 100, 0);
        assert.equal(total_minor % 100, 0);
        assert.ok(Math.abs(laces_fee_minor - (shillings * 100 * fee.percent_bp) / 10_000) <= 50);
      }),
      { numRuns: 1000 },
    );
  });

  test('priceByMethod gives each method its own fee and total, a method left out its default', () => {
    assert.deepEqual(priceByMethod(30000, 'UGX', {}, PAYMENT_METHOD_CATALOGUE), {
      momo: { laces_fee_minor: 1050, total_minor: 31050 },
      airtel: { laces_fee_minor: 1050, total_minor: 31050 },
      mpesa: { laces_fee_minor: 1050, total_minor: 31050 },
      // Card's default fee is 3.8 %.
      card: { laces_fee_minor: 1140, total_minor: 31140 },
    });
    assert.deepEqual(
      priceByMethod(
        30000,
        'UGX',
        {
          momo: { percent_bp: 200, fixed_minor: 0 },
          airtel: { percent_bp: 500, fixed_minor: 100 },
        },
        PAYMENT_METHOD_CATALOGUE,
      ),
      {
        momo: { laces_fee_minor: 600, total_minor: 30600 },
        airtel: { laces_fee_minor: 1600, total_minor: 31600 },
        mpesa: { laces_fee_minor: 1050, total_minor: 31050 },
        card: { laces_fee_minor: 1140, total_minor: 31140 },
      },
    );
    assert.deepEqual(
      priceByMethod(30000, 'UGX', { airtel: { percent_bp: 0, fixed_minor: 7 } }, PAYMENT_METHOD_CATALOGUE),
      {
        momo: { laces_fee_minor: 1050, total_minor: 31050 },
        airtel: { laces_fee_minor: 7, total_minor: 30007 },
        mpesa: { laces_fee_minor: 1050, total_minor: 31050 },
        card: { laces_fee_minor: 1140, total_minor: 31140 },
      },
    );
  });

  // Prices are stored as PostgreSQL integer; percentages up to 100 %.
  const price = fc.integer({ min: 1, max: 2_147_483_647 });
  const methodFee = methodFeeOf(1_000_000);

  test('property: the fee is a whole number >= 0 within 0.5 of price * percent + fixed', () => {
    fc.assert(
      fc.property(price, methodFee, (p, fee) => {
        const result = feeFor(p, fee);
        assert.ok(Number.isSafeInteger(result), String(result));
        assert.ok(result >= 0);
        assert.ok(Math.abs(result - (p * fee.percent_bp) / 10_000 - fee.fixed_minor) <= 0.5);
      }),
      { numRuns: 2000 },
    );
  });

  test('property: the fee is exactly round_half_up(price * bp / 10000) + fixed (exact arithmetic)', () => {
    fc.assert(
      fc.property(price, methodFee, (p, fee) => {
        const scaled = BigInt(p) * BigInt(fee.percent_bp); // fee * 10000, exactly
        const whole = scaled / 10_000n;
        const rest = scaled % 10_000n;
        const expected = Number((rest >= 5_000n ? whole + 1n : whole) + BigInt(fee.fixed_minor));
        assert.equal(feeFor(p, fee), expected);
        assert.equal(priceFor(p, fee, 'UGX').total_minor, p + expected);
      }),
      { numRuns: 2000 },
    );
  });

  test('property: within the price and fixed-fee ceilings a ticket total stays inside the order ceiling', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_PRICE_MINOR }),
        fc.record({
          percent_bp: fc.integer({ min: 0, max: 10_000 }),
          fixed_minor: fc.integer({ min: 0, max: MAX_FIXED_FEE_MINOR }),
        }),
        (p, fee) => {
          const { laces_fee_minor, total_minor } = priceFor(p, fee, 'UGX');
          assert.ok(Number.isSafeInteger(total_minor));
          assert.ok(laces_fee_minor <= MAX_PRICE_MINOR + MAX_FIXED_FEE_MINOR);
          assert.ok(total_minor <= 2 * MAX_PRICE_MINOR + MAX_FIXED_FEE_MINOR);
          assert.ok(total_minor <= MAX_ORDER_TOTAL_MINOR && total_minor <= 2_147_483_647);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('property: a higher price never has a lower fee', () => {
    fc.assert(
      fc.property(price, price, methodFee, (a, b, fee) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        assert.ok(feeFor(lo, fee) <= feeFor(hi, fee));
      }),
      { numRuns: 1000 },
    );
  });
});
