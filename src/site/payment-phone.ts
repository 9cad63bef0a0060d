// The payment number's rules as the buyer reads them, shared by the server's form checks
// (checkout-form.ts) and the page script (web/checkout-page), so both say the same thing. Imports
// only modules the browser bundle may hold: pure functions, no server code.
import { networkOf } from '../orders/contact.ts';
import { METHOD_NAMES } from './format.ts';

export const PHONE_MESSAGE = 'Enter a Ugandan mobile number such as 0772 123456';

/** A Ugandan number that cannot take mobile money: a landline, or a network we do not take. */
export const NOT_MOBILE_MONEY_MESSAGE =
  'This number cannot receive mobile money: enter an MTN or Airtel number such as 0772 123456';

/** The same, when the payment number was left empty and the buyer's own phone number is used. */
export const OWN_NUMBER_NOT_MOBILE_MONEY_MESSAGE =
  'Your phone number cannot receive mobile money: enter an MTN or Airtel number to pay from';

/** The problem with paying `method` from a normalised number of the other network; else null. */
export function wrongNetworkMessage(msisdn: string, method: string): string | null {
  const network = networkOf(msisdn);
  if (network === null || network === method) return null;
  const name = METHOD_NAMES[network]!;
  return `This is an ${name} number: choose ${name} or enter another number`;
}

/**
 * Why a normalised number cannot receive the prompt for `method` (null: no method chosen yet),
 * or null when it can: it must be MTN or Airtel, and of the chosen method's network.
 */
export function paymentNumberProblem(msisdn: string, method: string | null): string | null {
  if (networkOf(msisdn) === null) return NOT_MOBILE_MONEY_MESSAGE;
  return method === null ? null : wrongNetworkMessage(msisdn, method);
}
