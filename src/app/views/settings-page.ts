// The organization's settings page, for its owners: name, support e-mail, the time zone and
// currency every new event starts with (the app's times are shown in that zone), and the payment
// methods that need turning on (cards).
import { attr, html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, fieldId, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';

/** A payment method the organization may turn on, as the form offers it. */
export interface OptInChoice {
  key: string;
  /** "Card payments" */
  label: string;
  /** what a buyer pays with and through whom: "Visa or Mastercard, on Flutterwave's page" */
  hint: string;
  checked: boolean;
  /** false when this service takes no such payments (its live settings leave the method out) */
  available: boolean;
}

export interface SettingsView {
  viewer: Viewer;
  values: Record<string, string>;
  optIns: readonly OptInChoice[];
  errors: FieldErrors;
  saved: boolean;
}

export function renderSettings(view: SettingsView): string {
  const { values, errors } = view;
  const field = (name: string, label: string, hint?: string, type?: 'email') =>
    input({ name, label, value: values[name] ?? '', errors, ...(hint && { hint }), ...(type && { type }) });
  const main = html`<h1>Organization settings</h1>
    ${view.saved ? html`<p class="notice good" role="status">The settings were saved.</p>` : ''}
    ${errorSummary(errors)}
    <form method="post" action="/settings" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${field('name', 'Name', 'Shown to members, and to buyers in mails and on the checkout.')}
      ${field('support_email', 'Support e-mail', 'Where buyers write when an event names no address of its own.', 'email')}
      ${field('timezone', 'Time zone', "Such as Africa/Kampala: the app's times are shown in it, and new events start in it.")}
      ${field('currency', 'Currency', 'Three letters, such as UGX: new events start in it.')}
      ${view.optIns.length > 0 ? optInFields(view.optIns, errors) : ''}
      <div class="actions"><button type="submit" class="primary">Save settings</button></div>
    </form>`;
  return page({
    title: 'Organization settings',
    main,
    viewer: view.viewer,
    section: 'settings',
    hasErrors: Object.keys(errors).length > 0,
  });
}

/** One checkbox per method to turn on; one the service cannot take is shown disabled, with why. */
function optInFields(choices: readonly OptInChoice[], errors: FieldErrors): Html {
  const name = 'opted_in_methods';
  const error = errors[name];
  return html`<div class="field${error ? ' invalid' : ''}" id="${fieldId(name)}">
    <h2>Payment methods</h2>
    ${error ? html`<p class="error" id="${fieldId(name)}-error">${error}</p>` : ''}
    ${choices.map((c) => {
      const id = fieldId(`${name}-${c.key}`);
      const why = c.available
        ? ''
        : html`<span class="hint"
            >This service is not set up to take them yet, so no event can offer them.</span
          >`;
      return html`<div class="check">
        <input
          type="checkbox"
          id="${id}"
          name="${name}"
          value="${c.key}"
          ${attr('checked', c.checked)}
          ${attr('disabled', !c.available)}
        />
        <label for="${id}">${c.label}<span class="hint">${c.hint}</span>${why}</label>
      </div>`;
    })}
  </div>`;
}
