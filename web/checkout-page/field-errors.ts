// A field's error, in the same markup the server renders (views/fields.ts): the note before the
// control, `invalid` on the field box, and the note tied to each control with aria-describedby
// and aria-invalid.
import { t } from './messages.ts';
import { all } from './dom.ts';

export type Control = HTMLInputElement | HTMLSelectElement;

/** Shows `message` on the control's field, or clears it when null. */
export function setError(control: Control, message: string | null): void {
  const box = control.closest('[data-field]') as HTMLElement | null;
  if (!box) return;
  const errorId = 'err-' + box.dataset.field;
  const controls = all<Control>('input,select', box).filter((c) => c.type !== 'hidden');
  let note = document.getElementById(errorId);
  if (message) {
    if (!note) {
      note = document.createElement('p');
      note.className = 'error';
      note.id = errorId;
      let anchor: Element | null = controls[0] || null;
      while (anchor && anchor.parentElement !== box) anchor = anchor.parentElement;
      box.insertBefore(note, anchor);
    }
    note.textContent = t('errorPrefix') + message;
    box.classList.add('invalid');
  } else if (note) {
    note.remove();
    box.classList.remove('invalid');
  }
  controls.forEach((c) => describe(c, errorId, !!message));
}

function describe(control: Control, errorId: string, invalid: boolean): void {
  const ids = (control.getAttribute('aria-describedby') || '').split(' ').filter((t) => t && t !== errorId);
  if (invalid) ids.push(errorId);
  if (ids.length) control.setAttribute('aria-describedby', ids.join(' '));
  else control.removeAttribute('aria-describedby');
  if (invalid) control.setAttribute('aria-invalid', 'true');
  else control.removeAttribute('aria-invalid');
}
