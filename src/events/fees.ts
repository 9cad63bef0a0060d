// Fee arithmetic (docs/contract.md#fees): fee = round_half_up(price * percent) + fixed, per method.
// The methods themselves are the payments registry's (payments/methods/registry.ts); events/ and
// orders/ sit below payments/, so the composition root puts each service's methods on its context
// (ctx.paymentMethods) and pricing never names one.
import type { PricedMethod } from '../context.ts';
import type { FeeSchedule, MethodFee } from '../organizations/index.ts';
import { payableUnit } from '../platform/index.ts';
import type { MethodPriceOut } from './event-out.ts';
import { feeFor } from './fee-formula.ts';

export type { PricedMethod };

/**
 * The highest ticket price, in minor units (docs/decisions/amount-ceilings.md). With a fee of at
 * most 100 % plus MAX_FIXED_FEE_MINOR, a ticket's total stays far inside PostgreSQL's integer.
 */
export const MAX_PRICE_MINOR = 100_000_000;
/** The highest fixed part of a fee a schedule should hold: a ticket's total stays below 3 x 10^8. */
export const MAX_FIXED_FEE_MINOR = 100_000_000;

/** The organization's fee for a method: its schedule's, else the method's default. */
export function methodFee(fees: FeeSchedule, method: PricedMethod): MethodFee {
  return (Object.hasOwn(fees, method.key) ? fees[method.key] : undefined) ?? method.defaultFee;
}

export { feeFor };

/** A price for one payment method, as on the wire. */
export type MethodPrice = MethodPriceOut;

export function priceFor(priceMinor: number, fee: MethodFee, currency: string): MethodPrice {
  const laces_fee_minor = feeFor(priceMinor, fee, payableUnit(currency));
  return { laces_fee_minor, total_minor: priceMinor + laces_fee_minor };
}

/** The price on each method, by key. */
export function priceByMethod(
  priceMinor: number,
  currency: string,
  fees: FeeSchedule,
  methods: readonly PricedMethod[],
): Record<string, MethodPrice | undefined> {
  return Object.fromEntries(methods.map((m) => [m.key, priceFor(priceMinor, methodFee(fees, m), currency)]));
}
