// The labelled form controls of the event pages' forms: each with its hint and its error next to
// it, tied to the control by aria-describedby, and its value from the form's values.
import { attr, html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { fieldId } from './fields.ts';

export interface Control {
  name: string;
  label: string;
  values: Record<string, string>;
  errors: FieldErrors;
  hint?: string;
  /** the key in `values` when it differs from the field's name (prefixed ticket type forms) */
  valueKey?: string;
}

function describe(c: Control): { id: string; error: string | undefined; top: Html; aria: Html } {
  const id = fieldId(c.name);
  const error = c.errors[c.name];
  const hintId = c.hint ? `${id}-hint` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return {
    id,
    error,
    top: html`<label for="${id}">${c.label}</label>
      ${c.hint ? html`<p class="hint" id="${hintId}">${c.hint}</p>` : ''}
      ${error ? html`<p class="error" id="${errorId}">${error}</p>` : ''}`,
    aria: html`${attr('aria-describedby', describedBy || null)}${attr('aria-invalid', error ? 'true' : null)}`,
  };
}

function valueOf(c: Control): string {
  return c.values[c.valueKey ?? c.name] ?? '';
}

export function field(c: Control & { type?: string; inputmode?: string; extra?: Html; after?: Html }): Html {
  const d = describe(c);
  return html`<div class="field${d.error ? ' invalid' : ''}">
    ${d.top}
    <input
      type="${c.type ?? 'text'}"
      id="${d.id}"
      name="${c.name}"
      ${attr('value', valueOf(c))}${attr('inputmode', c.inputmode)}${d.aria}${c.extra ?? ''}
    />
    ${c.after ?? ''}
  </div>`;
}

export function textarea(c: Control & { rows?: number }): Html {
  const d = describe(c);
  return html`<div class="field${d.error ? ' invalid' : ''}">
    ${d.top}
    <textarea id="${d.id}" name="${c.name}" rows="${c.rows ?? 4}" ${d.aria}>${valueOf(c)}</textarea>
  </div>`;
}

export function select(c: Control & { options: [string, string][] }): Html {
  const d = describe(c);
  const current = valueOf(c);
  return html`<div class="field${d.error ? ' invalid' : ''}">
    ${d.top}
    <select id="${d.id}" name="${c.name}" ${d.aria}>
      ${c.options.map(([v, label]) => html`<option value="${v}" ${attr('selected', v === current)}>${label}</option>`)}
    </select>
  </div>`;
}

export function checkbox(c: Control): Html {
  const id = fieldId(c.name);
  return html`<div class="check">
    <input type="checkbox" id="${id}" name="${c.name}" value="yes" ${attr('checked', valueOf(c) === 'yes')} />
    <label for="${id}">${c.label}</label>
  </div>`;
}
