// One participant fieldset per chosen ticket, from the server's <template> per ticket type.
// Rebuilt as soon as the quantities change; what was typed stays with its ticket (the
// fieldset's key is the ticket type and its ordinal within the type).
import { all } from './dom.ts';
import type { Control } from './field-errors.ts';
import type { FormParts } from './form-parts.ts';

type Values = Record<string, string>;

/** 'items[3].answers.club' -> 'answers.club': a field's name within its participant. */
function localName(control: Control): string {
  return control.name.replace(/^items\[\d+\]\./, '');
}

function fields(fieldset: HTMLElement): Control[] {
  return all<Control>('input,select', fieldset).filter((c) => c.type !== 'hidden');
}

function saveValues(box: HTMLElement): Record<string, Values> {
  const saved: Record<string, Values> = {};
  all<HTMLElement>('fieldset[data-item]', box).forEach((fs) => {
    const values: Values = {};
    fields(fs).forEach((c) => (values[localName(c)] = c.value));
    saved[fs.dataset.key || ''] = values;
  });
  return saved;
}

function restoreValues(box: HTMLElement, saved: Record<string, Values>): void {
  all<HTMLElement>('fieldset[data-item]', box).forEach((fs) => {
    const values = saved[fs.dataset.key || ''];
    if (!values) return;
    fields(fs).forEach((c) => {
      const value = values[localName(c)];
      if (value !== undefined) c.value = value;
    });
  });
}

function markup(parts: FormParts): string {
  const templates: Record<string, string> = {};
  all<HTMLTemplateElement>('template[data-participant-template]', parts.form).forEach(
    (t) => (templates[t.dataset.participantTemplate || ''] = t.innerHTML),
  );
  let index = 0;
  let out = '';
  parts.selects.forEach((s) => {
    const tt = s.dataset.tt || '';
    for (let k = 0; k < (Number(s.value) || 0); k++, index++) {
      out += (templates[tt] || '')
        .replace(/__I__/g, String(index))
        .replace(/__N__/g, String(index + 1))
        .replace(/__K__/g, tt + '-' + k);
    }
  });
  return out;
}

/** The quantities chosen, as ticket type:quantity pairs. */
function quantities(parts: FormParts): string {
  return parts.selects.map((s) => s.dataset.tt + ':' + s.value).join(',');
}

/** Returns the rebuild, to run when a quantity changes; "I am the runner" shows with a participant. */
export function participantsBuilder(parts: FormParts, box: HTMLElement | null): () => void {
  let builtFor = quantities(parts);
  return () => {
    if (!box || quantities(parts) === builtFor) return;
    const saved = saveValues(box);
    box.innerHTML = markup(parts);
    restoreValues(box, saved);
    builtFor = quantities(parts);
    const none = box.children.length === 0;
    all<HTMLElement>('[data-runner]', parts.form).forEach((e) => (e.hidden = none));
  };
}

/** The first participant's name field: hidden while the buyer is the runner. */
export function runnerName(form: HTMLFormElement): HTMLInputElement | null {
  return form.querySelector<HTMLInputElement>('[data-participants] fieldset[data-item] input[data-name]');
}

/** A field to fill now (revealed by a choice, or the first problem): in view clear of the bar, focused. */
export function reveal(control: HTMLElement): void {
  control.focus({ preventScroll: true });
  control.scrollIntoView({ block: 'center' });
}
