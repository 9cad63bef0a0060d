// The mobile money number and its network, by the server's own rules (orders/contact.ts, the
// event's methods as the page states them, site/payment-phone.ts): the check before the buyer moves on, and the network guessed from the
// prefix until the buyer picks one.
import { normalizePhone } from '../../src/orders/contact.ts';
import { offeredNetworkOf, type EventMethods, type OfferedMethod } from '../../src/site/event-methods.ts';
import { paymentNumberProblem, type PhoneWords } from '../../src/site/payment-phone.ts';
import { t } from './messages.ts';
import { chosenMethodOf, methodNameOf, onPage, pageMethods } from './page-methods.ts';

/** The number's messages in the page's language. */
export function phoneWords(): PhoneWords {
  return {
    invalid: t('phoneInvalid'),
    notMobileMoney: t('phoneNotMobileMoney'),
    ownNotMobileMoney: t('phoneOwnNotMobileMoney'),
    wrongNetwork: (name) => t('phoneWrongNetwork', { name }),
    nameOf: methodNameOf,
  };
}

/** The network of a typed number; null unless it is a mobile money number of a method offered. */
function networkOfInput(value: string): string | null {
  const offer = pageMethods();
  const msisdn = normalizePhone(value, offer.country);
  return msisdn ? offeredNetworkOf(offer, msisdn) : null;
}

/**
 * What is wrong with paying `method` (null: none chosen yet) from the typed number, as the server
 * says it (checkout-form.ts checkPayment). With `ownPhone`, an empty number means the buyer's own
 * phone, whose problems (it takes no mobile money) are told as such; a bad own phone is the
 * buyer field's error, not this one's.
 */
export function paymentPhoneProblem(
  value: string,
  method: string | null,
  ownPhone?: string,
  words: PhoneWords = phoneWords(),
  offer: EventMethods<OfferedMethod> = pageMethods(),
): string | null {
  if (value.trim() === '' && ownPhone !== undefined) {
    const own = normalizePhone(ownPhone, offer.country);
    if (!own) return null;
    const problem = paymentNumberProblem(offer, own, method, words);
    return offeredNetworkOf(offer, own) === null ? words.ownNotMobileMoney : problem;
  }
  const msisdn = normalizePhone(value, offer.country);
  if (!msisdn) return words.invalid;
  return paymentNumberProblem(offer, msisdn, method, words);
}

export interface NetworkGuess {
  /** a radio is already checked by the buyer's earlier choice */
  chosen: boolean;
  /** after the radios were set from the number */
  onGuess?: (network: string) => void;
  /** after the buyer picked a radio */
  onChoose?: () => void;
}

/**
 * Checks the radio of the number's network as the buyer types, until the buyer picks a radio
 * themselves. Returns the guess, for when the page fills the number in.
 */
export function guessNetwork(
  phone: HTMLInputElement,
  radios: HTMLInputElement[],
  options: NetworkGuess,
): () => void {
  let chosen = options.chosen;
  radios.forEach((r) =>
    r.addEventListener('change', () => {
      chosen = true;
      if (options.onChoose) options.onChoose();
    }),
  );
  const guess = () => {
    const network = networkOfInput(phone.value);
    if (chosen || !network) return;
    radios.forEach((r) => (r.checked = r.value === network));
    if (options.onGuess) options.onGuess(network);
  };
  phone.addEventListener('input', guess);
  return guess;
}

/**
 * Card asks for no number: the number's field is hidden while card is chosen in `form`, and shows
 * again with a mobile money method. Runs now and on each choice; `changed` after each.
 */
export function hideNumberForCard(
  form: ParentNode,
  phone: HTMLInputElement,
  radios: HTMLInputElement[],
): void {
  const box = phone.closest<HTMLElement>('[data-field]');
  if (!box) return;
  const follow = () => (box.hidden = onPage(chosenMethodOf(form)));
  radios.forEach((r) => r.addEventListener('change', follow));
  follow();
}

/**
 * The buyer's phone may be left out of a free registration when the event allows it (the server
 * marks it data-optional-when-free): it follows the total, and its label says "(optional)".
 */
export function followFreeOrder(
  phone: HTMLInputElement | null,
  totals: { count: number; total: number },
): void {
  if (!phone || !phone.hasAttribute('data-optional-when-free')) return;
  const optional = totals.count > 0 && totals.total === 0;
  phone.dataset.check = optional ? 'optional' : 'required';
  const box = phone.closest('[data-field]');
  const mark = box && box.querySelector<HTMLElement>('[data-optional-mark]');
  if (mark) mark.hidden = !optional;
}
