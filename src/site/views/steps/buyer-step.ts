// The buyer, first on the details step: who receives the confirmation and the race details. The
// phone may be left out of a free registration unless the event asks for it: `phone.optional` says
// whether it may now, `phone.canBe` whether the page script may make it so when the total turns 0.
import type { PhoneCountry } from '../../../orders/index.ts';
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { attr, html, type Html } from '../../../platform/index.ts';
import { textField } from '../fields.ts';
import { msg } from '../../messages/current.ts';

export function buyerStep(
  values: FormValues,
  errors: Map<string, string>,
  phone: { optional: boolean; canBe: boolean; country: PhoneCountry },
): Html {
  const field = (name: 'name' | 'email' | 'phone') => ({
    id: fieldId(`buyer.${name}`),
    name: `buyer.${name}`,
    value: values.buyer[name],
    error: errors.get(`buyer.${name}`),
  });
  const m = msg().form;
  return html`<div data-buyer>
    <p class="hint">${m.buyerHint}</p>
    ${textField({
      ...field('name'),
      label: m.yourName,
      extra: html` autocomplete="name" data-check="required" data-label="${m.yourName}"`,
    })}
    ${textField({
      ...field('email'),
      label: m.email,
      type: 'email',
      extra: html` autocomplete="email" inputmode="email" spellcheck="false" data-check="required"
      data-label="${m.email}"`,
    })}
    ${textField({
      ...field('phone'),
      label: html`${m.phoneNumber}${
        phone.canBe
          ? html` <span class="optional-mark" data-optional-mark ${attr('hidden', !phone.optional)}
              >${m.optionalMark}</span
            >`
          : ''
      }`,
      type: 'tel',
      hint: msg().countries[phone.country].hint,
      extra: html` autocomplete="tel" inputmode="tel" data-check="${phone.optional ? 'optional' : 'required'}"
      data-label="${m.phoneNumber}" data-buyer-phone ${attr('data-optional-when-free', phone.canBe)}`,
    })}
  </div>`;
}
