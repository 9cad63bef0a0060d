import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FAILURE_KINDS,
  ORDER_STATUSES,
  transition,
  type OrderEvent,
  type OrderState,
  type OrderStatus,
} from '../../src/orders/order-state.ts';

const EVENTS: OrderEvent[] = [
  { type: 'payment_confirmed' },
  { type: 'payment_failed', failureKind: 'payment_declined' },
  { type: 'hold_expired' },
  { type: 'cancel' },
  { type: 'late_payment_honoured' },
  { type: 'refund' },
];

// The whole table: every status x every event. A missing or extra arrow fails this test.
const ALLOWED: Record<OrderStatus, Partial<Record<OrderEvent['type'], OrderStatus>>> = {
  pending: {
    payment_confirmed: 'paid',
    payment_failed: 'pending',
    hold_expired: 'expired',
    cancel: 'cancelled',
  },
  paid: { refund: 'refunded' },
  expired: { late_payment_honoured: 'paid' },
  cancelled: {},
  refunded: {},
};

describe('order state machine', () => {
  for (const status of ORDER_STATUSES) {
    for (const event of EVENTS) {
      const expected = ALLOWED[status][event.type];
      test(`${status} + ${event.type} -> ${expected ?? 'refused'}`, () => {
        const result = transition({ status, failureKind: null }, event);
        if (expected === undefined) {
          assert.equal(result.ok, false);
          if (!result.ok) assert.match(result.reason, new RegExp(`${status}.*${event.type}`));
        } else {
          assert.equal(result.ok, true);
          if (result.ok) assert.equal(result.next.status, expected);
        }
      });
    }
  }

  test('a failed payment keeps the order pending with its failure_kind, for every kind', () => {
    for (const kind of FAILURE_KINDS.filter((k) => k !== 'hold_expired')) {
      const result = transition(
        { status: 'pending', failureKind: null },
        { type: 'payment_failed', failureKind: kind as never },
      );
      assert.deepEqual(result, { ok: true, next: { status: 'pending', failureKind: kind } });
    }
  });

  test('payment clears the last failure; expiry records hold_expired', () => {
    const failed: OrderState = { status: 'pending', failureKind: 'insufficient_funds' };
    assert.deepEqual(transition(failed, { type: 'payment_confirmed' }), {
      ok: true,
      next: { status: 'paid', failureKind: null },
    });
    assert.deepEqual(transition(failed, { type: 'hold_expired' }), {
      ok: true,
      next: { status: 'expired', failureKind: 'hold_expired' },
    });
  });
});
