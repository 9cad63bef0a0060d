// What the browser may know of a payment method: its key, its words in each checkout language, its
// country and currencies, the phone prefixes of its network and its default fee. Plain data: the
// hosted checkout's page script (web/checkout-page) bundles it. The server's part (adapter, callbacks, refunds,
// simulator) is registry.ts's.

import type { PhoneCountry } from '../../orders/contact.ts';

/** The languages the hosted checkout speaks (site/messages/catalog.ts). */
export type CheckoutLanguage = 'en' | 'sw';

interface MethodLabels {
  /** the method as a buyer names it: "MTN Mobile Money" */
  name: string;
  /** the network alone, as in "an MTN or Airtel number" */
  network: string;
  /** the mark on the method's tile, drawn in its brand colours */
  badge: string;
  /** where a buyer finds prompts waiting: "MTN *165#" */
  menu: string;
}

/** fee = round_half_up(price * percent_bp / 10000) + fixed_minor (organizations.schema.ts MethodFee). */
interface DefaultFee {
  percent_bp: number;
  fixed_minor: number;
}

export interface PaymentMethodInfo<K extends string = string> {
  /** the public key: payment_method, payment_methods, fee schedules, callback paths */
  readonly key: K;
  readonly labels: Readonly<Record<CheckoutLanguage, MethodLabels>>;
  /**
   * the country whose numbers the network's wallets are (orders/contact.ts); null for a method
   * paid on the provider's page (cards), which asks no phone number
   */
  readonly country: PhoneCountry | null;
  /** the currencies it takes: an event is offered the methods of its currency, in registry order */
  readonly currencies: readonly string[];
  /** how the network's mobile money numbers begin after the calling code: "77" for 25677… */
  readonly prefixes: readonly string[];
  /** the fee when an organization's schedule names none for this method */
  readonly defaultFee: DefaultFee;
  /** the provider as the audit log and the sales figures name it: "MTN MoMo" */
  readonly provider: string;
  /** the tile's badge colours */
  readonly brand: { readonly background: string; readonly text: string };
  /**
   * the buyer pays on the provider's own page (the card is typed there): the payment answers with
   * an address to send the buyer to, rather than a prompt on a phone
   */
  readonly hostedPage?: boolean;
  /** offered only by organizations that turned it on (organizations.opted_in_methods) */
  readonly optIn?: boolean;
}
