// An order's status in words on the organizer's pages: each status, and why a pending order's last
// payment failed, never the raw failure kind.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { orderStatusText } from '../../src/app/views/order-status.ts';
import { FAILURE_KINDS, ORDER_STATUSES } from '../../src/orders/order-state.ts';

describe('order status words', () => {
  test('each status reads as words', () => {
    assert.deepEqual(
      ORDER_STATUSES.map((status) => orderStatusText({ status, failureKind: null })),
      ['Waiting for payment', 'Paid', 'Expired: not paid in time', 'Cancelled', 'Refunded'],
    );
  });

  test('a pending order after a failed try says why, and that the buyer may try again', () => {
    assert.equal(
      orderStatusText({ status: 'pending', failureKind: 'payment_declined' }),
      'Payment failed: the payment was declined; the buyer may try again',
    );
    assert.equal(
      orderStatusText({ status: 'expired', failureKind: 'hold_expired' }),
      'Expired: not paid in time (the places were held too long without payment)',
    );
    for (const kind of FAILURE_KINDS) {
      const text = orderStatusText({ status: 'pending', failureKind: kind });
      assert.doesNotMatch(text, /_/, `${kind} is said in words`);
    }
  });
});
