// The one definition of a currency's exponent (ISO 4217 minor units: UGX 0), as Intl knows it.
// Free of imports: the checkout page script bundles it through site/format.ts.

const exponents = new Map<string, number>();

/** Minor units = major units x 10^exponent; UGX has 0. A currency Intl does not know throws RangeError. */
export function currencyExponent(currency: string): number {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    exponent =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      0;
    exponents.set(currency, exponent);
  }
  return exponent;
}
