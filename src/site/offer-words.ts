// The event's offer as the service takes it (its own methods of the event's currency, cards only
// where the organization turned them on), and the words its methods put into the checkout's
// messages, in the request's language: {networks} ("MTN or Airtel", "Safaricom"), its article {a},
// the menus {menus}, the country's {mobile}, {example} and {abroad}, and the event's {currency}.
// The server fills its own messages and the page script's (views/layout.ts) with the same values.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PricedMethod } from '../context.ts';
import type { EventWithTickets } from '../events/index.ts';
import {
  catalogueEntry,
  isPaymentMethod,
  PAYMENT_METHOD_CATALOGUE,
  type PaymentMethod,
} from '../payments/index.ts';
import { methodsForCurrency } from '../platform/index.ts';
import { eventMethods, phoneMethods, type EventMethods, type MethodInfo } from './event-methods.ts';
import { locale, msg } from './messages/current.ts';
import { localMethodName } from './method-names.ts';
import { phoneWordsOf, type PhoneWords } from './payment-phone.ts';

/** The service's methods for the request being answered (site routes/page-scope.ts). */
const serviceMethods = new AsyncLocalStorage<readonly PricedMethod[]>();

export function runWithMethods(methods: readonly PricedMethod[], next: () => void): void {
  serviceMethods.run(methods, next);
}

/**
 * The methods the event's checkout offers: as createOrder and startPayment take them
 * (methodsForCurrency over the service's methods and the organization's opt-ins), with the
 * catalogue's words. Outside a checkout request, the catalogue stands for the service's methods.
 * A currency no method takes keeps the mobile money methods, so that its page still renders (its
 * order is refused later).
 */
export function offerOf(found: {
  event: Pick<EventWithTickets['event'], 'currency'>;
  organization: Pick<EventWithTickets['organization'], 'optedInMethods'>;
}): EventMethods {
  const service = serviceMethods.getStore() ?? PAYMENT_METHOD_CATALOGUE;
  const currency = found.event.currency;
  const methods: MethodInfo[] = methodsForCurrency(currency, service, found.organization.optedInMethods)
    .filter((m) => isPaymentMethod(m.key))
    .map((m) => ({ ...catalogueEntry(m.key as PaymentMethod), defaultFee: m.defaultFee }));
  return eventMethods(currency, methods.length > 0 ? methods : defaultMethods());
}

/** The catalogue's methods that need no opt-in, for a page of no event (or of no method). */
function defaultMethods(): MethodInfo[] {
  return (PAYMENT_METHOD_CATALOGUE as readonly MethodInfo[]).filter((m) => !m.optIn && m.country !== null);
}

/** Uganda's offer, for a page of no event: its words stand in. */
export function noEventOffer(): EventMethods {
  return eventMethods('UGX', methodsForCurrency('UGX', defaultMethods()));
}

/** The offered mobile money networks as a sentence names them: "MTN or Airtel", "Safaricom". */
function offeredNetworks(offer: EventMethods, language = locale()): string {
  const names = phoneMethods(offer).map((m) => m.labels[language].network);
  return new Intl.ListFormat(language, { type: 'disjunction' }).format(names);
}

/** Where buyers of the offered networks find prompts waiting: "MTN *165#, Airtel *185#". */
function offeredMenus(offer: EventMethods, language = locale()): string {
  return phoneMethods(offer)
    .map((m) => m.labels[language].menu)
    .join(', ');
}

// A type, not an interface: fill() takes it as a record of names.
export type OfferFills = {
  currency: string;
  networks: string;
  a: string;
  menus: string;
  mobile: string;
  example: string;
  abroad: string;
};

export function offerFills(offer: EventMethods): OfferFills {
  const m = msg();
  const networks = offeredNetworks(offer);
  const country = m.countries[offer.country];
  return {
    currency: offer.currency,
    networks,
    a: m.phone.article(networks),
    menus: offeredMenus(offer),
    mobile: country.mobile,
    example: country.example,
    abroad: country.abroad,
  };
}

/** The payment number's messages for the event's methods and country. */
export function offerPhoneWords(offer: EventMethods): PhoneWords {
  return phoneWordsOf(msg().phone, offerFills(offer), localMethodName);
}

/** The event's methods as the page script needs them, in the request's language (views/layout.ts). */
export function pageOffer(offer: EventMethods): object {
  return {
    currency: offer.currency,
    methods: offer.methods.map((m) => ({
      key: m.key,
      name: m.labels[locale()].name,
      country: m.country,
      prefixes: m.prefixes,
      ...(m.hostedPage && { hostedPage: true }),
    })),
  };
}
