// The fee formula alone (docs/contract.md#fees), free of imports: the organizer app's script
// bundles it through app/views/price-breakdown.ts, so the browser prices as the server does.

/** Fee in minor units for one ticket at `priceMinor`. Free tickets carry no fee. */
export function feeFor(priceMinor: number, fee: { percent_bp: number; fixed_minor: number }): number {
  if (priceMinor <= 0) return 0;
  // Integer round-half-up of price * bp / 10000: exact while price * bp stays below 2^53, that is
  // for any price up to 9 x 10^11 at 100 % (prices stop at MAX_PRICE_MINOR, stored ones at 2^31-1).
  return Math.floor((priceMinor * fee.percent_bp + 5000) / 10000) + fee.fixed_minor;
}
