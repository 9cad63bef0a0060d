// Form controls of the app: a label, an optional hint and the error tied to each input with
// aria-describedby and aria-invalid, and an error summary linking to each field (GOV.UK pattern).
import { attr, html, type Html } from '../../platform/index.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { formatMoney, zoneName } from '../../site/index.ts';
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

/** A price or an order's total: "UGX\u00a045,000", and "Free" for none, as buyers read it. */
export function formatPrice(minor: number, currency: string): string {
  return minor === 0 ? 'Free' : formatMoney(minor, currency);
}

// The organization's time zone while a page is rendered: each app route's handler runs inside it
// (app.routes.ts), as the checkout's pages run inside their language.
const renderZone = new AsyncLocalStorage<string>();

/** Runs `render` with the app's times shown in `zone` (an IANA name). */
export function inTimeZone<T>(zone: string, render: () => T): T {
  return renderZone.run(zone, render);
}

const stampFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * "2026-11-30 10:27 EAT": the instant in the organization's time zone (UTC outside a page), with
 * the zone's abbreviation; `seconds` adds them, for logs.
 */
export function formatTime(date: Date, options: { seconds?: boolean } = {}): string {
  const zone = renderZone.getStore() ?? 'UTC';
  const key = `${zone} ${options.seconds === true}`;
  let format = stampFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      ...(options.seconds && { second: '2-digit' }),
      hourCycle: 'h23',
    });
    stampFormats.set(key, format);
  }
  const p = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  const time = `${p.hour}:${p.minute}${options.seconds ? `:${p.second}` : ''}`;
  return `${p.year}-${p.month}-${p.day} ${time} ${zoneName(zone, date) ?? zone}`;
}
