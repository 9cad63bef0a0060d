// The checkout form's parts the script works with, found once, and its live totals: what the
// chosen tickets, fees and donation come to for the chosen network, from the data-* attributes
// the server rendered on each quantity (price and fee per network in minor units).
import { currencyExponent } from '../../src/platform/currency.ts';
import { formatMoney } from '../../src/site/format.ts';
import { all, one } from './dom.ts';
import { t as say } from './messages.ts';
import { chosenMethodOf, pageMethods } from './page-methods.ts';

export interface FormParts {
  form: HTMLFormElement;
  currency: string;
  steps: HTMLElement[];
  /** one quantity per ticket type on sale */
  selects: HTMLSelectElement[];
  methodRadios: HTMLInputElement[];
  payPhone: HTMLInputElement | null;
  buyerPhone: HTMLInputElement | null;
  donation: HTMLInputElement | null;
}

export function findFormParts(form: HTMLFormElement): FormParts {
  return {
    form,
    currency: form.dataset.currency || 'UGX',
    steps: all<HTMLElement>('[data-step]', form),
    selects: all<HTMLSelectElement>('select[data-qty]', form),
    methodRadios: all<HTMLInputElement>('input[type="radio"][name="payment_method"]:not([disabled])', form),
    payPhone: one<HTMLInputElement>('[data-pay-phone]', form),
    buyerPhone: one<HTMLInputElement>('[data-buyer-phone]', form),
    donation: one<HTMLInputElement>('[data-donation]', form),
  };
}

/** The chosen network, else the event's first method (the prices the page shows before a choice). */
export function chosenMethod(parts: FormParts): string {
  return chosenMethodOf(parts.form) || pageMethods().first;
}

export interface Totals {
  count: number;
  subtotal: number;
  fee: number;
  donation: number;
  total: number;
}

/** The donation field (whole units of the currency) as minor units; anything but digits is 0. */
function donationMinor(parts: FormParts): number {
  const raw = parts.donation ? parts.donation.value.replace(/[\s,]/g, '') : '';
  return /^\d+$/.test(raw) ? Number(raw) * 10 ** currencyExponent(parts.currency) : 0;
}

export function orderTotals(parts: FormParts): Totals {
  let count = 0;
  let subtotal = 0;
  let fee = 0;
  // Each quantity carries every method's fee per ticket as data-fee-<method key>.
  const feeAttribute = `data-fee-${chosenMethod(parts)}`;
  parts.selects.forEach((s) => {
    const n = Number(s.value) || 0;
    count += n;
    subtotal += n * Number(s.dataset.price);
    fee += n * (Number(s.getAttribute(feeAttribute)) || 0);
  });
  const donation = donationMinor(parts);
  return { count, subtotal, fee, donation, total: subtotal + fee + donation };
}

export function money(parts: FormParts, minor: number): string {
  return formatMoney(minor, parts.currency);
}

/** Prices for the chosen network, the total in every step's bar, and the Pay button's amount. */
export function refreshPrices(parts: FormParts): void {
  const priceAttribute = `data-${chosenMethod(parts)}`;
  all<HTMLElement>('[data-method-price]', parts.form).forEach((e) => {
    const text = e.getAttribute(priceAttribute);
    if (text !== null) e.textContent = text;
  });
  const t = orderTotals(parts);
  const total = t.count === 0 ? say('noTicketsYet') : t.total > 0 ? money(parts, t.total) : say('free');
  all<HTMLElement>('[data-total]', parts.form).forEach((e) => (e.textContent = total));
  const pay = one<HTMLButtonElement>('[data-step="payment"] [data-primary]', parts.form);
  if (pay) pay.textContent = say('pay', { total });
}
