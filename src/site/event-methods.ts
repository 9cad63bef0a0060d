// The payment methods an event's checkout offers, and what follows from them: the country its
// buyers' numbers are read as, the networks and menus the pages name, the smallest payable amount.
// The server's views and the page script (web/checkout-page) share it, so it imports only plain
// data and pure functions: the browser learns the currency and method keys from the page's body.
import { phoneCountryOf, type PhoneCountry } from '../orders/contact.ts';
import { networkOf, PAYMENT_METHOD_CATALOGUE, type PaymentMethod } from '../payments/methods/catalogue.ts';
import type { CheckoutLanguage, PaymentMethodInfo } from '../payments/methods/payment-method.ts';
import { methodsForCurrency, payableUnit } from '../platform/currency.ts';

type MethodInfo = PaymentMethodInfo<PaymentMethod>;

export interface EventMethods {
  currency: string;
  /** whose numbers buyers pay from: KES events are Kenya's, others Uganda's */
  country: PhoneCountry;
  /** the methods offered, in catalogue order; never empty */
  methods: readonly MethodInfo[];
  /** the first of them: priced and shown before the buyer picks one */
  first: PaymentMethod;
  /** the smallest amount a buyer pays in, in minor units (100 for KES) */
  unit: number;
}

const CATALOGUE = PAYMENT_METHOD_CATALOGUE as readonly MethodInfo[];

/**
 * The methods of an event in `currency`. A currency no method takes keeps the whole catalogue, as
 * before methods had currencies, so that such a page still renders (its order is refused later).
 */
export function eventMethods(currency: string, keys?: readonly string[]): EventMethods {
  const offered = methodsForCurrency(currency, CATALOGUE).filter((m) => !keys || keys.includes(m.key));
  const methods = offered.length > 0 ? offered : CATALOGUE;
  return {
    currency,
    country: phoneCountryOf(currency),
    methods,
    first: methods[0]!.key,
    unit: payableUnit(currency),
  };
}

/** True when `value` is the key of a method the event offers. */
export function offersMethod(offer: EventMethods, value: unknown): value is PaymentMethod {
  return offer.methods.some((m) => m.key === value);
}

/** The offered method a normalised number is on; null when none takes it. */
export function offeredNetworkOf(offer: EventMethods, msisdn: string): PaymentMethod | null {
  return networkOf(msisdn, offer.methods);
}

/** The offered networks as a sentence names them: "MTN or Airtel", "Safaricom". */
export function offeredNetworks(offer: EventMethods, language: CheckoutLanguage): string {
  const names = offer.methods.map((m) => m.labels[language].network);
  return new Intl.ListFormat(language, { type: 'disjunction' }).format(names);
}

/** Where buyers of the offered methods find prompts waiting: "MTN *165#, Airtel *185#". */
export function offeredMenus(offer: EventMethods, language: CheckoutLanguage): string {
  return offer.methods.map((m) => m.labels[language].menu).join(', ');
}
