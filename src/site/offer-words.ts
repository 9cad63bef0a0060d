// The words an event's payment methods put into the checkout's messages, in the request's
// language: {networks} ("MTN or Airtel", "Safaricom"), its article {a}, the menus {menus}, the
// country's {mobile}, {example} and {abroad}, and the event's {currency}. The server fills its own messages and the page
// script's (views/layout.ts) with the same values, so both name the event's networks only.
import type { EventWithTickets } from '../events/index.ts';
import { eventMethods, offeredMenus, offeredNetworks, type EventMethods } from './event-methods.ts';
import { locale, msg } from './messages/current.ts';
import { phoneWordsOf, type PhoneWords } from './payment-phone.ts';

/** The methods the event's checkout offers (its currency's). */
export function offerOf(found: Pick<EventWithTickets, 'event'>): EventMethods {
  return eventMethods(found.event.currency);
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
  const language = locale();
  const m = msg();
  const networks = offeredNetworks(offer, language);
  const country = m.countries[offer.country];
  return {
    currency: offer.currency,
    networks,
    a: m.phone.article(networks),
    menus: offeredMenus(offer, language),
    mobile: country.mobile,
    example: country.example,
    abroad: country.abroad,
  };
}

/** The payment number's messages for the event's methods and country. */
export function offerPhoneWords(offer: EventMethods): PhoneWords {
  return phoneWordsOf(msg().phone, offerFills(offer));
}
