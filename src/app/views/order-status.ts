// An order's status as organizers read it: words for each status, and for a pending order whose
// last payment failed, why, in words ("pending (payment_declined)" told them nothing).
import type { FailureKind } from '../../orders/index.ts';

const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting for payment',
  paid: 'Paid',
  expired: 'Expired: not paid in time',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

const FAILURE_WORDS: Record<FailureKind, string> = {
  payment_declined: 'the payment was declined',
  payment_timeout: 'the buyer did not approve the prompt in time',
  insufficient_funds: 'there was not enough money on the account',
  invalid_phone_number: 'the number cannot pay by mobile money',
  provider_error: 'the network could not take the payment',
  hold_expired: 'the places were held too long without payment',
};

/** "Paid"; "Payment failed: the payment was declined" for a pending order after a failed try. */
export function orderStatusText(order: { status: string; failureKind?: string | null }): string {
  const why = order.failureKind ? FAILURE_WORDS[order.failureKind as FailureKind] : undefined;
  if (order.status === 'pending' && why) return `Payment failed: ${why}; the buyer may try again`;
  const words = STATUS_WORDS[order.status] ?? order.status;
  return why && order.status !== 'paid' ? `${words} (${why})` : words;
}
