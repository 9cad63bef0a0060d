// The payment step of the checkout form: the number starts as the buyer's own and follows it while
// the buyer leaves it as it was; the network follows the number's prefix until the buyer picks one
// (a note says so); prices follow the network.
import { one } from './dom.ts';
import type { FormParts } from './form-parts.ts';
import { t } from './messages.ts';
import { methodNameOf } from './page-methods.ts';
import { guessNetwork, hideNumberForCard } from './phone-field.ts';

/** Wires the step (`refresh` redraws the totals); returns what to run when it shows. */
export function paymentStep(parts: FormParts, refresh: () => void): () => void {
  const { form, payPhone, buyerPhone, methodRadios } = parts;
  if (!payPhone) return () => {};
  const note = one<HTMLElement>('[data-guess]', form);
  // The server's record of what it prefilled: a number left equal to it follows the buyer's.
  const prefill = one<HTMLInputElement>('input[name=payment_phone_prefill]', form);
  hideNumberForCard(form, payPhone, methodRadios);
  const guess = guessNetwork(payPhone, methodRadios, {
    chosen: methodRadios.some((r) => r.checked),
    onChoose() {
      if (note) note.textContent = '';
      refresh();
    },
    onGuess(network) {
      refresh();
      if (note) note.textContent = t('guessedNetwork', { network: methodNameOf(network) });
    },
  });
  return () => {
    if (!buyerPhone) return;
    const untouched = payPhone.value === '' || (prefill !== null && payPhone.value === prefill.value);
    if (!untouched) return;
    payPhone.value = buyerPhone.value;
    if (prefill) prefill.value = buyerPhone.value;
    guess();
  };
}
