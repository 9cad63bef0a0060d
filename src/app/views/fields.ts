// Form controls of the app: a label, an optional hint and the error tied to each input with
// aria-describedby and aria-invalid, and an error summary linking to each field (GOV.UK pattern).
import { attr, html, type Html } from '../../platform/index.ts';
import { formatMoney } from '../../site/index.ts';
import type { FieldErrors } from '../form-body.ts';

export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

export interface InputOptions {
  name: string;
  label: string;
  value?: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'date' | 'tel';
  hint?: string;
  errors: FieldErrors;
  autocomplete?: string;
  /** the browser's own checks are switched off (novalidate); these only help on-screen keyboards */
  required?: boolean;
}

export function input(o: InputOptions): Html {
  const id = fieldId(o.name);
  const error = o.errors[o.name];
  const hintId = o.hint ? `${id}-hint` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">${o.label}</label>
    ${o.hint ? html`<p class="hint" id="${hintId}">${o.hint}</p>` : ''}
    ${error ? html`<p class="error" id="${errorId}">${error}</p>` : ''}
    <input
      type="${o.type ?? 'text'}"
      id="${id}"
      name="${o.name}"
      ${attr('value', o.type === 'password' ? null : (o.value ?? ''))}${attr('autocomplete', o.autocomplete)}${attr('aria-describedby', describedBy || null)}${attr('aria-invalid', error ? 'true' : null)}${attr('required', o.required ?? false)}
    />
  </div>`;
}

/** The list of problems above a form; each links to its field. */
export function errorSummary(errors: FieldErrors, general?: string | null): Html {
  const entries = Object.entries(errors);
  if (entries.length === 0 && !general) return html``;
  return html`<div class="summary" role="alert" aria-labelledby="summary-title" tabindex="-1">
    <h2 id="summary-title">There is a problem</h2>
    <ul>
      ${general ? html`<li>${general}</li>` : ''}
      ${entries.map(([name, message]) => html`<li><a href="#${fieldId(name)}">${message}</a></li>`)}
    </ul>
  </div>`;
}

/** A ticket's price: "UGX\u00a045,000", and "Free" for none, as buyers read it. */
export function formatPrice(minor: number, currency: string): string {
  return minor === 0 ? 'Free' : formatMoney(minor, currency);
}

export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
