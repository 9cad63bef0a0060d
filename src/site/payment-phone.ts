// The payment number's rules as the buyer reads them, shared by the server's form checks
// (checkout-form.ts) and the page script (web/checkout-page), so both say the same thing. Imports
// only modules the browser bundle may hold: pure functions, no server code.
import { networkOf } from '../orders/contact.ts';
import { METHOD_NAMES } from './format.ts';

export const PHONE_MESSAGE = 'Enter a Ugandan mobile number such as 0772 123456';

/** The problem with paying `method` from a normalised number of the other network; else null. */
export function wrongNetworkMessage(msisdn: string, method: string): string | null {
  const network = networkOf(msisdn);
  if (network === null || network === method) return null;
  const name = METHOD_NAMES[network]!;
  return `This is an ${name} number: choose ${name} or enter another number`;
}
