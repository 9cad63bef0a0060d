// Form field markup shared by the checkout pages: label, hint and error tied to the control with
// aria-describedby and aria-invalid, in the order a screen reader should meet them.
import { catalogueEntry, type PaymentMethod } from '../../payments/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import { localMethodName } from '../method-names.ts';
import { locale, msg } from '../messages/current.ts';

function errorId(id: string): string {
  return `err-${id}`;
}

/** id, aria-describedby and aria-invalid for a control of field box `boxId`. */
export function controlAria(boxId: string, hintId: string | null, error: string | undefined): Html {
  const describedBy = [hintId, error ? errorId(boxId) : null].filter(Boolean).join(' ');
  return html`${attr('aria-describedby', describedBy || null)}${attr('aria-invalid', error ? 'true' : null)}`;
}

export function errorNote(boxId: string, error: string | undefined): Html {
  return error
    ? html`<p class="error" id="${errorId(boxId)}">${msg().common.errorPrefix}${error}</p>`
    : html``;
}

export interface TextFieldOptions {
  id: string;
  name: string;
  label: string | Html;
  value: string;
  error?: string | undefined;
  hint?: string | Html;
  type?: 'text' | 'email' | 'tel' | 'date' | 'number';
  /** extra attributes for the input (autocomplete, inputmode, data-*) */
  extra?: Html;
}

export function textField(o: TextFieldOptions): Html {
  const hintId = o.hint ? `hint-${o.id}` : null;
  return html`<div class="field${o.error ? ' invalid' : ''}" data-field="${o.id}">
    <label for="${o.id}">${o.label}</label>
    ${o.hint ? html`<p class="hint" id="${hintId}">${o.hint}</p>` : ''} ${errorNote(o.id, o.error)}
    <input
      type="${o.type ?? 'text'}"
      id="${o.id}"
      name="${o.name}"
      value="${o.value}"
      ${controlAria(o.id, hintId, o.error)}${o.extra ?? ''}
    />
  </div>`;
}

export interface SelectFieldOptions {
  id: string;
  name: string;
  label: string;
  value: string;
  options: string[];
  error?: string | undefined;
  hint?: string;
  extra?: Html;
}

export function selectField(o: SelectFieldOptions): Html {
  const hintId = o.hint ? `hint-${o.id}` : null;
  return html`<div class="field${o.error ? ' invalid' : ''}" data-field="${o.id}">
    <label for="${o.id}">${o.label}</label>
    ${o.hint ? html`<p class="hint" id="${hintId}">${o.hint}</p>` : ''} ${errorNote(o.id, o.error)}
    <select id="${o.id}" name="${o.name}" ${controlAria(o.id, hintId, o.error)}${o.extra ?? ''}>
      <option value="">${msg().common.choose}</option>
      ${o.options.map((option) => html`<option value="${option}" ${attr('selected', option === o.value)}>${option}</option>`)}
    </select>
  </div>`;
}

export interface ErrorSummaryItem {
  href: string;
  message: string;
}

/** `code`: the refusal's error_code, when the page answers one (hold_limit_reached). */
export function errorSummary(items: ErrorSummaryItem[], code?: string): Html {
  if (items.length === 0) return html``;
  return html`<div
    class="error-summary"
    role="alert"
    tabindex="-1"
    aria-labelledby="error-summary-title"
    ${attr('data-error-code', code)}
  >
    <h2 id="error-summary-title">${msg().common.thereIsAProblem}</h2>
    <ul>
      ${items.map((item) => html`<li><a href="#${item.href}">${item.message}</a></li>`)}
    </ul>
  </div>`;
}

/** One payment method's radio in the method fieldset `boxId`; the first one carries the box's id. */
function methodRadio(options: {
  boxId: string;
  method: PaymentMethod;
  first: boolean;
  checked: boolean;
  error: string | undefined;
  label: Html | string;
}): Html {
  const { boxId, method, first, checked, error, label } = options;
  const id = first ? boxId : `${boxId}-${method}`;
  return html`<div class="check">
    <input
      type="radio"
      id="${id}"
      name="payment_method"
      value="${method}"
      ${attr('checked', checked)}${controlAria(boxId, null, error)}
    />
    <label for="${id}">${label}</label>
  </div>`;
}

/**
 * A payment method as a tile (the payment step's and the retry form's): its brand badge and name,
 * then `detail` (the order's total on that network, where the screen shows it).
 */
export function methodTile(options: {
  boxId: string;
  method: PaymentMethod;
  first: boolean;
  checked: boolean;
  error: string | undefined;
  detail?: string;
}): Html {
  const { method, detail } = options;
  return methodRadio({
    ...options,
    label: html`<span class="brand brand-${method}" aria-hidden="true"
        >${catalogueEntry(method).labels[locale()].badge}</span
      >
      <span>${localMethodName(method)}${detail ? html` <span class="detail">${detail}</span>` : ''}</span>`,
  });
}

/**
 * The one method of an event that offers one (M-Pesa on a KES event): nothing to choose, so it is
 * shown as chosen and sent as a hidden field, with `detail` as on a tile.
 */
export function onlyMethod(options: {
  boxId: string;
  method: PaymentMethod;
  legend: string;
  detail?: string;
  /** a method of another event's currency sent (a stale page): said here */
  error?: string | undefined;
}): Html {
  const { boxId, method, legend, detail, error } = options;
  return html`<div class="field tiles${error ? ' invalid' : ''}" data-field="${boxId}">
    <p class="legend" id="${boxId}">${legend}</p>
    ${errorNote(boxId, error)}
    <div class="check chosen" data-only-method>
      <input type="hidden" name="payment_method" value="${method}" />
      <span class="brand brand-${method}" aria-hidden="true"
        >${catalogueEntry(method).labels[locale()].badge}</span
      >
      <span>${localMethodName(method)}${detail ? html` <span class="detail">${detail}</span>` : ''}</span>
    </div>
  </div>`;
}

/** Where the page script says which network it chose from the number ("We chose …"). */
export const GUESS_NOTE = html`<p class="hint" data-guess aria-live="polite"></p>`;
