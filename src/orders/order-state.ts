// The order state machine (docs/architecture.md#order-states) as one pure function. Every status
// change in the service goes through `transition`, so the table test of it covers every path.

export const ORDER_STATUSES = ['pending', 'paid', 'expired', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const FAILURE_KINDS = [
  'payment_declined',
  'payment_timeout',
  'insufficient_funds',
  'invalid_phone_number',
  'provider_error',
  'hold_expired',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export type OrderEvent =
  /** a status query confirmed the payment (or the order is free) */
  | { type: 'payment_confirmed' }
  /** a payment attempt failed; the buyer may retry while the hold lasts */
  | { type: 'payment_failed'; failureKind: Exclude<FailureKind, 'hold_expired'> }
  /** the hold lapsed with no payment */
  | { type: 'hold_expired' }
  /** the buyer or the organizer gave up on a pending order, or a new attempt replaced it */
  | { type: 'cancel' }
  /** a payment confirmed after the hold lapsed, and capacity allowed honouring it */
  | { type: 'late_payment_honoured' }
  /** money returned for a paid order */
  | { type: 'refund' };

export interface OrderState {
  status: OrderStatus;
  failureKind: FailureKind | null;
}

export type Transition = { ok: true; next: OrderState } | { ok: false; reason: string };

const refuse = (state: OrderState, event: OrderEvent): Transition => ({
  ok: false,
  reason: `a ${state.status} order cannot take ${event.type}`,
});

export function transition(state: OrderState, event: OrderEvent): Transition {
  switch (state.status) {
    case 'pending':
      switch (event.type) {
        case 'payment_confirmed':
          return { ok: true, next: { status: 'paid', failureKind: null } };
        case 'payment_failed':
          return { ok: true, next: { status: 'pending', failureKind: event.failureKind } };
        case 'hold_expired':
          return { ok: true, next: { status: 'expired', failureKind: 'hold_expired' } };
        case 'cancel':
          return { ok: true, next: { status: 'cancelled', failureKind: state.failureKind } };
        default:
          return refuse(state, event);
      }
    case 'expired':
      if (event.type === 'late_payment_honoured')
        return { ok: true, next: { status: 'paid', failureKind: null } };
      return refuse(state, event);
    case 'paid':
      if (event.type === 'refund') return { ok: true, next: { status: 'refunded', failureKind: null } };
      return refuse(state, event);
    case 'cancelled':
    case 'refunded':
      return refuse(state, event);
  }
}
