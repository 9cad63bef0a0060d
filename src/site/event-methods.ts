// The payment methods an event's checkout offers, and what follows from them: the country its
// buyers' numbers are read as, the network a number is on, the smallest payable amount. The
// server's views (offer-words.ts builds the offer) and the page script (web/checkout-page) share it,
// so it imports only pure functions: the browser reads the event's methods from the page's data.
import { isOnNetwork, phoneCountryOf, type PhoneCountry } from '../orders/contact.ts';
import type { PaymentMethod } from '../payments/methods/catalogue.ts';
import type { PaymentMethodInfo } from '../payments/methods/payment-method.ts';
import { payableUnit } from '../platform/currency.ts';

/** What the offer needs of a method; the page script's copy carries only these and a name. */
export interface OfferedMethod {
  readonly key: string;
  /** whose numbers its wallets are; null for a method paid on the provider's page (cards) */
  readonly country: PhoneCountry | null;
  readonly prefixes: readonly string[];
  /** paid on the provider's own page: no phone number is asked */
  readonly hostedPage?: boolean;
}

/** A method as the server's views know it: the catalogue's entry. */
export type MethodInfo = PaymentMethodInfo<PaymentMethod>;

export interface EventMethods<M extends OfferedMethod = MethodInfo> {
  currency: string;
  /** whose numbers buyers pay from: KES events are Kenya's, others Uganda's */
  country: PhoneCountry;
  /** the methods offered, in the service's order; never empty */
  methods: readonly M[];
  /** the first of them: priced and shown before the buyer picks one */
  first: M['key'];
  /** the smallest amount a buyer pays in, in minor units (100 for KES) */
  unit: number;
}

/** The offer of an event in `currency` of `methods` (the caller's choice; at least one). */
export function eventMethods<M extends OfferedMethod>(
  currency: string,
  methods: readonly M[],
): EventMethods<M> {
  return {
    currency,
    country: phoneCountryOf(currency),
    methods,
    first: methods[0]!.key,
    unit: payableUnit(currency),
  };
}

/** True when `value` is the key of a method the event offers. */
export function offersMethod<M extends OfferedMethod>(
  offer: EventMethods<M>,
  value: unknown,
): value is M['key'] {
  return offer.methods.some((m) => m.key === value);
}

/** True when `key` is an offered method paid on the provider's page (no number asked). */
export function paidOnPage(offer: EventMethods<OfferedMethod>, key: string | null | undefined): boolean {
  return offer.methods.some((m) => m.key === key && m.hostedPage === true);
}

/** The offered methods that take a phone number (mobile money): those the number's checks name. */
export function phoneMethods<M extends OfferedMethod>(offer: EventMethods<M>): M[] {
  return offer.methods.filter((m) => m.country !== null);
}

/** The offered method a normalised number is on, by calling code and prefix; null when none takes it. */
export function offeredNetworkOf<M extends OfferedMethod>(
  offer: EventMethods<M>,
  msisdn: string,
): M['key'] | null {
  const takes = (m: M) => m.country !== null && isOnNetwork(msisdn, m.country, m.prefixes);
  return offer.methods.find(takes)?.key ?? null;
}
