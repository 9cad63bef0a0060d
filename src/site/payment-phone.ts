// The payment number's rules as the buyer reads them, shared by the server's form checks
// (checkout-form.ts) and the page script (web/checkout-page), so both say the same thing in the
// buyer's language: the words come from the catalog (the server's msg().phone, the script's t()).
// Imports only modules the browser bundle may hold: pure functions, no server code, no catalog.
import { networkOf } from '../payments/methods/catalogue.ts';
import { METHOD_NAMES } from './format.ts';
import { fill } from './messages/fill.ts';

export interface PhoneWords {
  invalid: string;
  /** a Ugandan number that cannot take mobile money: a landline, or a network we do not take */
  notMobileMoney: string;
  /** the same, when the payment number was left empty and the buyer's own phone is used */
  ownNotMobileMoney: string;
  wrongNetwork: (name: string) => string;
}

/** The catalog's phone words with the networks we take filled in ({networks}: "MTN or Airtel"). */
export function phoneWordsOf(words: PhoneWords, networks: string): PhoneWords {
  return {
    ...words,
    notMobileMoney: fill(words.notMobileMoney, { networks }),
    ownNotMobileMoney: fill(words.ownNotMobileMoney, { networks }),
  };
}

/** The problem with paying `method` from a normalised number of the other network; else null. */
export function wrongNetworkMessage(msisdn: string, method: string, words: PhoneWords): string | null {
  const network = networkOf(msisdn);
  if (network === null || network === method) return null;
  return words.wrongNetwork(METHOD_NAMES[network]!);
}

/**
 * Why a normalised number cannot receive the prompt for `method` (null: no method chosen yet),
 * or null when it can: it must be of a network we take, and of the chosen method's.
 */
export function paymentNumberProblem(
  msisdn: string,
  method: string | null,
  words: PhoneWords,
): string | null {
  if (networkOf(msisdn) === null) return words.notMobileMoney;
  return method === null ? null : wrongNetworkMessage(msisdn, method, words);
}
