// The fee formula alone (docs/contract.md#fees), free of imports: the organizer app's script
// bundles it through app/views/price-breakdown.ts, so the browser prices as the server does.

/**
 * Fee in minor units for one ticket at `priceMinor`. Free tickets carry no fee. The percentage
 * rounds half up to `unit` minor units: the currency's payable unit (platform/currency.ts
 * payableUnit), 1 but for KES, whose buyers pay whole shillings.
 */
export function feeFor(
  priceMinor: number,
  fee: { percent_bp: number; fixed_minor: number },
  unit = 1,
): number {
  if (priceMinor <= 0) return 0;
  // Integer round-half-up of price * bp / (10000 * unit): exact while price * bp stays below 2^53,
  // that is for any price up to 9 x 10^11 at 100 % (prices stop at MAX_PRICE_MINOR).
  const step = 10000 * unit;
  return Math.floor((priceMinor * fee.percent_bp + step / 2) / step) * unit + fee.fixed_minor;
}
