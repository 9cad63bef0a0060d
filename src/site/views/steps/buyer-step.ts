// The buyer, first on the details step: who receives the confirmation and the race details.
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { html, type Html } from '../../../platform/index.ts';
import { textField } from '../fields.ts';
import { msg } from '../../messages/current.ts';

export function buyerStep(values: FormValues, errors: Map<string, string>): Html {
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
      label: m.phoneNumber,
      type: 'tel',
      hint: m.phoneHint,
      extra: html` autocomplete="tel" inputmode="tel" data-check="required" data-label="${m.phoneNumber}"
      data-buyer-phone`,
    })}
  </div>`;
}
