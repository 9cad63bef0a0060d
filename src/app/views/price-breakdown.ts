// What a ticket's price means to each side: what buyers pay with each payment method (the
// service fee on top) and what the organizer receives. Shown on the event page and, as the price
// is typed, by the app's script (web/app/price-breakdown.ts), which bundles this file: it imports
// nothing but the fee formula (events/fee-formula.ts), so both say the same.
import { feeFor } from '../../events/fee-formula.ts';

/** A payment method as the breakdown names and prices it. */
export interface MethodPricing {
  /** as organizers know it: "MTN MoMo" */
  name: string;
  percent_bp: number;
  fixed_minor: number;
}

function amount(minor: number, currency: string, exponent: number): string {
  const major = new Intl.NumberFormat('en-GB', {
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  });
  return `${currency} ${major.format(minor / 10 ** exponent)}`;
}

/**
 * "Buyers pay UGX 51,750 with MTN MoMo or Airtel Money (UGX 1,750 service fee); you receive
 * UGX 50,000." Methods with different totals are listed one by one.
 */
export function priceBreakdown(
  priceMinor: number,
  methods: readonly MethodPricing[],
  currency: string,
  exponent: number,
): string {
  if (priceMinor === 0) return 'Free: buyers pay nothing and no service fee is taken.';
  const money = (minor: number) => amount(minor, currency, exponent);
  const fees = methods.map((m) => feeFor(priceMinor, m));
  const receive = `you receive ${money(priceMinor)}.`;
  if (fees.length > 0 && fees.every((f) => f === fees[0])) {
    const names = new Intl.ListFormat('en', { type: 'disjunction' }).format(methods.map((m) => m.name));
    return `Buyers pay ${money(priceMinor + fees[0]!)} with ${names} (${money(fees[0]!)} service fee); ${receive}`;
  }
  const each = methods.map((m, i) => `${money(priceMinor + fees[i]!)} with ${m.name}`).join(', ');
  return `Buyers pay ${each} (service fee included); ${receive}`;
}
