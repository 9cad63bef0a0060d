// The payment number's rules as the buyer reads them, shared by the server's form checks
// (checkout-form.ts) and the page script (web/checkout-page), so both say the same thing in the
// buyer's language: the words come from the catalog (the server's msg().phone, the script's t()).
// Imports only modules the browser bundle may hold: pure functions, no server code, no catalog.
import { offeredNetworkOf, type EventMethods, type OfferedMethod } from './event-methods.ts';
import { fill } from './messages/fill.ts';

export interface PhoneWords {
  invalid: string;
  /** a number of the country that cannot take mobile money: a landline, or a network not offered */
  notMobileMoney: string;
  /** the same, when the payment number was left empty and the buyer's own phone is used */
  ownNotMobileMoney: string;
  wrongNetwork: (name: string) => string;
  /** a method's name as the buyer reads it, in the page's language */
  nameOf: (key: string) => string;
}

/**
 * The catalog's phone words with the event's networks and country filled in ({networks}: "MTN or
 * Airtel", {mobile}: "a Ugandan mobile number", {example}: "0772 123456"; site/offer-words.ts).
 */
export function phoneWordsOf(
  words: Omit<PhoneWords, 'nameOf'>,
  fills: Readonly<Record<string, string>>,
  nameOf: (key: string) => string,
): PhoneWords {
  return {
    invalid: fill(words.invalid, fills),
    notMobileMoney: fill(words.notMobileMoney, fills),
    ownNotMobileMoney: fill(words.ownNotMobileMoney, fills),
    wrongNetwork: words.wrongNetwork,
    nameOf,
  };
}

/** The problem with paying `method` from a normalised number of another offered network; else null. */
export function wrongNetworkMessage(
  offer: EventMethods<OfferedMethod>,
  msisdn: string,
  method: string,
  words: PhoneWords,
): string | null {
  const network = offeredNetworkOf(offer, msisdn);
  if (network === null || network === method) return null;
  return words.wrongNetwork(words.nameOf(network));
}

/**
 * Why a normalised number cannot receive the prompt for `method` (null: no method chosen yet),
 * or null when it can: it must be of a network the event offers, and of the chosen method's.
 */
export function paymentNumberProblem(
  offer: EventMethods<OfferedMethod>,
  msisdn: string,
  method: string | null,
  words: PhoneWords,
): string | null {
  if (offeredNetworkOf(offer, msisdn) === null) return words.notMobileMoney;
  return method === null ? null : wrongNetworkMessage(offer, msisdn, method, words);
}
