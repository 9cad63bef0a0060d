// What a ticket's price means to each side, as the event page and the app's script say it: the
// same total for every method in one sentence, different totals one by one, decimals of the
// currency, and a free ticket.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { priceBreakdown } from '../../src/app/views/price-breakdown.ts';

const MTN = { name: 'MTN MoMo', percent_bp: 350, fixed_minor: 0 };
const AIRTEL = { name: 'Airtel Money', percent_bp: 350, fixed_minor: 0 };

describe('the price breakdown', () => {
  test('one sentence when every method costs the same', () => {
    assert.equal(
      priceBreakdown(50000, [MTN, AIRTEL], 'UGX', 0),
      'Buyers pay UGX 51,750 with MTN MoMo or Airtel Money (UGX 1,750 service fee); you receive UGX 50,000.',
    );
  });

  test('each method with its total when the fees differ', () => {
    assert.equal(
      priceBreakdown(50000, [MTN, { ...AIRTEL, percent_bp: 300, fixed_minor: 200 }], 'UGX', 0),
      'Buyers pay UGX 51,750 with MTN MoMo, UGX 51,700 with Airtel Money (service fee included); you receive UGX 50,000.',
    );
  });

  test("the currency's decimals", () => {
    assert.equal(
      priceBreakdown(2550, [MTN], 'USD', 2),
      'Buyers pay USD 26.39 with MTN MoMo (USD 0.89 service fee); you receive USD 25.50.',
    );
  });

  test('a free ticket takes no fee', () => {
    assert.equal(
      priceBreakdown(0, [MTN, AIRTEL], 'UGX', 0),
      'Free: buyers pay nothing and no service fee is taken.',
    );
  });
});
