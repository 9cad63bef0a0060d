// The payment step: the network (card shown as not yet available) and the number the prompt goes
// to. The page script guesses the network from the number into the empty note.
import type { PaymentMethod } from '../../../events/fees.ts';
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { METHOD_NAMES } from '../../format.ts';
import { html, type Html } from '../../../platform/html.ts';
import { cardNotYetAvailable, errorNote, methodRadio, textField } from '../fields.ts';

export function paymentStep(values: FormValues, errors: Map<string, string>, ticketSubtotal: number): Html {
  const methodError = errors.get('payment_method');
  const boxId = fieldId('payment_method');
  const radio = (method: PaymentMethod, first: boolean) =>
    methodRadio({
      boxId,
      method,
      first,
      checked: values.payment_method === method,
      error: methodError,
      label: html`${METHOD_NAMES[method]}`,
    });
  return html`${ticketSubtotal === 0 ? html`<p class="hint" data-nojs>Only needed if you add a donation.</p>` : ''}
    <fieldset class="field${methodError ? ' invalid' : ''}" data-field="${boxId}">
      <legend>How would you like to pay?</legend>
      ${errorNote(boxId, methodError)} ${radio('momo', true)} ${radio('airtel', false)}
      ${cardNotYetAvailable(boxId)}
      <p class="hint" data-guess aria-live="polite"></p>
    </fieldset>
    ${textField({
      id: fieldId('payment_phone'),
      name: 'payment_phone',
      label: 'Mobile money number',
      type: 'tel',
      value: values.payment_phone,
      error: errors.get('payment_phone'),
      hint: 'The payment prompt goes to this phone. Leave it empty to use your own number.',
      extra: html` autocomplete="tel" inputmode="tel" data-pay-phone`,
    })}`;
}
