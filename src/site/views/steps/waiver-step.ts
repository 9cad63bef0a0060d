// The waiver, on the details step: the event's waiver text (folded away: it can be long) and one
// checkbox that accepts it for every participant.
import type { EventWithTickets } from '../../../events/index.ts';
import { fieldId, type FormValues } from '../../checkout-form.ts';
import { attr, html, type Html } from '../../../platform/index.ts';
import { controlAria, errorNote } from '../fields.ts';
import { msg } from '../../messages/current.ts';

/** Plain text as paragraphs: blank lines part paragraphs, single line breaks stay. */
function paragraphs(text: string): Html[] {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => html`<p>${p.split(/\r?\n/).map((line, i) => html`${i > 0 ? html`<br />` : ''}${line}`)}</p>`);
}

export function waiverStep(
  event: EventWithTickets['event'],
  values: FormValues,
  errors: Map<string, string>,
): Html {
  const error = errors.get('waiver_accepted');
  const id = fieldId('waiver_accepted');
  const m = msg().form;
  return html`<div class="field${error ? ' invalid' : ''}" data-field="${id}">
    ${
      event.waiverText
        ? html`<details class="waiver">
            <summary>${m.readWaiver(event.waiverVersion)}</summary>
            <div class="waiver-text">${paragraphs(event.waiverText)}</div>
          </details>`
        : ''
    }
    ${errorNote(id, error)}
    <div class="check">
      <input
        type="checkbox"
        id="${id}"
        name="waiver_accepted"
        value="yes"
        ${attr('checked', values.waiver_accepted)}${controlAria(id, null, error)}
      />
      <label for="${id}">${m.acceptWaiver(event.waiverVersion)}</label>
    </div>
  </div>`;
}
