// Fee arithmetic (docs/contract.md#fees): fee = round_half_up(price * percent) + fixed, per method.
import type { FeeSchedule, MethodFee } from '../organizations/organizations.ts';
import type { MethodPriceOut } from './event-out.ts';

export const PAYMENT_METHODS = ['momo', 'airtel'] as const;

/**
 * The highest ticket price, in minor units (docs/decisions/amount-ceilings.md). With a fee of at
 * most 100 % plus MAX_FIXED_FEE_MINOR, a ticket's total stays far inside PostgreSQL's integer.
 */
export const MAX_PRICE_MINOR = 100_000_000;
/** The highest fixed part of a fee a schedule should hold: a ticket's total stays below 3 x 10^8. */
export const MAX_FIXED_FEE_MINOR = 100_000_000;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Fee in minor units for one ticket at `priceMinor`. Free tickets carry no fee. */
export function feeFor(priceMinor: number, fee: MethodFee): number {
  if (priceMinor <= 0) return 0;
  // Integer round-half-up of price * bp / 10000: exact while price * bp stays below 2^53, that is
  // for any price up to 9 x 10^11 at 100 % (prices stop at MAX_PRICE_MINOR, stored ones at 2^31-1).
  return Math.floor((priceMinor * fee.percent_bp + 5000) / 10000) + fee.fixed_minor;
}

/** A price for one payment method, as on the wire. */
export type MethodPrice = MethodPriceOut;

export function priceFor(priceMinor: number, fee: MethodFee): MethodPrice {
  const laces_fee_minor = feeFor(priceMinor, fee);
  return { laces_fee_minor, total_minor: priceMinor + laces_fee_minor };
}

export function priceByMethod(priceMinor: number, fees: FeeSchedule): Record<PaymentMethod, MethodPrice> {
  return { momo: priceFor(priceMinor, fees.momo), airtel: priceFor(priceMinor, fees.airtel) };
}
