// The one definition of a currency's exponent (ISO 4217 minor units: UGX 0), as Intl knows it, and
// the checks of a currency code and a time zone name against what Intl knows.
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

/**
 * The smallest amount a buyer pays in, in minor units: 1, but a whole shilling (100) in KES, since
 * M-Pesa takes no cents (docs/decisions/mpesa-daraja.md). Prices, donations and fees of an event
 * are whole multiples of it.
 */
export function payableUnit(currency: string): number {
  return currency === 'KES' ? 10 ** currencyExponent(currency) : 1;
}

/**
 * The payment methods that take `currency`, in their order: what an event in it offers. A method
 * that needs turning on (cards) counts only when the organization's `optedIn` keys name it.
 */
export function methodsForCurrency<
  M extends { readonly key: string; readonly currencies: readonly string[]; readonly optIn?: boolean },
>(currency: string, methods: readonly M[], optedIn: readonly string[] = []): M[] {
  return methods.filter((m) => m.currencies.includes(currency) && (!m.optIn || optedIn.includes(m.key)));
}

let currencies: ReadonlySet<string> | undefined;

/** An ISO 4217 code Intl lists as a currency (it formats any three letters without a word). */
export function isCurrency(code: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
}

/** An IANA time zone name Intl knows, such as Africa/Kampala. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

const majorFormats = new Map<string, Intl.NumberFormat>();

/** Minor units as major units with thousands separators: 30000 UGX -> "30,000", 30000 USD -> "300.00". */
export function formatMajor(minor: number, currency: string): string {
  let format = majorFormats.get(currency);
  if (!format) {
    const digits = currencyExponent(currency);
    format = new Intl.NumberFormat('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    majorFormats.set(currency, format);
  }
  return format.format(minor / 10 ** currencyExponent(currency));
}
