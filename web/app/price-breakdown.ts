// The price breakdown under a ticket type's price field, said again as the price is typed: the
// field names its output (data-breakdown) and carries the methods' fees (data-pricing).
import { priceBreakdown, type MethodPricing } from '../../src/app/views/price-breakdown.ts';

/** "50,000" or "12.50" in major units to minor units; null when it is not a price. */
function toMinor(typed: string, exponent: number): number | null {
  const text = typed.replace(/[\s,]/g, '');
  if (!/^\d{1,9}(\.\d+)?$/.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > exponent) return null;
  return Number(whole) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || 0);
}

export function setUpPriceBreakdowns(): void {
  for (const input of document.querySelectorAll<HTMLInputElement>('input[data-breakdown]')) {
    const output = document.getElementById(input.dataset.breakdown ?? '');
    if (!output) continue;
    const methods = JSON.parse(input.dataset.pricing ?? '[]') as MethodPricing[];
    const currency = input.dataset.currency ?? '';
    const exponent = Number(input.dataset.exponent ?? 0);
    input.addEventListener('input', () => {
      const minor = toMinor(input.value, exponent);
      // a price being typed that is not one yet: the server's message comes with the form
      if (minor !== null) output.textContent = priceBreakdown(minor, methods, currency, exponent);
    });
  }
}
