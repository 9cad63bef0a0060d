// The buyer, first on the details step: who receives the confirmation and the race details.
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { html, type Html } from '../../../platform/html.ts';
import { textField } from '../fields.ts';

export function buyerStep(values: FormValues, errors: Map<string, string>): Html {
  const field = (name: 'name' | 'email' | 'phone') => ({
    id: fieldId(`buyer.${name}`),
    name: `buyer.${name}`,
    value: values.buyer[name],
    error: errors.get(`buyer.${name}`),
  });
  return html`<div data-buyer>
    <p class="hint">We send the confirmation and race details to you.</p>
    ${textField({
      ...field('name'),
      label: 'Your name',
      extra: html` autocomplete="name" data-check="required" data-label="Your name"`,
    })}
    ${textField({
      ...field('email'),
      label: 'E-mail',
      type: 'email',
      extra: html` autocomplete="email" inputmode="email" spellcheck="false" data-check="required"
      data-label="E-mail"`,
    })}
    ${textField({
      ...field('phone'),
      label: 'Phone number',
      type: 'tel',
      hint: 'A Ugandan mobile number, such as 0772 123456',
      extra: html` autocomplete="tel" inputmode="tel" data-check="required" data-label="Phone number"
      data-buyer-phone`,
    })}
  </div>`;
}
