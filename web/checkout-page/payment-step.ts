// The payment step of the checkout form: the network follows the number's prefix until the buyer
// picks one (a note says so), prices follow the network, and the number starts as the buyer's.
import { METHOD_NAMES } from '../../src/site/format.ts';
import { one } from './dom.ts';
import { refreshPrices, type FormParts } from './form-parts.ts';
import { guessNetwork } from './phone-field.ts';

/** Wires the step; returns what to run when it shows. */
export function paymentStep(parts: FormParts): () => void {
  const { form, payPhone, buyerPhone, methodRadios } = parts;
  if (!payPhone) return () => {};
  const note = one<HTMLElement>('[data-guess]', form);
  const guess = guessNetwork(payPhone, methodRadios, {
    chosen: methodRadios.some((r) => r.checked),
    onChoose() {
      if (note) note.textContent = '';
      refreshPrices(parts);
    },
    onGuess(network) {
      refreshPrices(parts);
      if (note)
        note.textContent =
          'We chose ' + METHOD_NAMES[network] + ' from the number; change it if it is wrong.';
    },
  });
  return () => {
    if (payPhone.value || !buyerPhone) return;
    payPhone.value = buyerPhone.value;
    guess();
  };
}
