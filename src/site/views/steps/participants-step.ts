// The participants, on the details step under the buyer: one fieldset per ticket (full name, the
// event's questions, date of birth when the ticket has a minimum age), plus a <template> per ticket
// type on sale from which the page script builds the fieldsets when the quantities change. "I am
// the runner" hides the first participant's name by CSS alone (the buyer's name above is used), so
// it works without the script too.
import { EMERGENCY_CONTACT_NAME, type TicketTypeRow } from '../../../events/index.ts';
import { localDate } from '../../../orders/index.ts';
import { fieldId, questionLabel, type ItemValues } from '../../checkout-form.ts';
import { formatDate } from '../../format.ts';
import { attr, html, type Html } from '../../../platform/index.ts';
import { selectField, textField } from '../fields.ts';
import { INTL_LOCALES } from '../../messages/catalog.ts';
import { locale, msg } from '../../messages/current.ts';
import type { FormContent } from '../form-page.ts';

/** Where a fieldset sits: its index and number, or the template's placeholders for them. */
interface Slot {
  index: string;
  number: string;
  key: string;
}

interface Fieldset {
  tt: TicketTypeRow;
  slot: Slot;
  /** what was typed; null for a template */
  item: ItemValues | null;
  errors: Map<string, string>;
}

function questionFields(view: FormContent, { slot, item, errors }: Fieldset): Html[] {
  const path = (name: string) => `items[${slot.index}].${name}`;
  return view.found.event.additionalQuestions.map((q) => {
    const name = path(`answers.${q.key}`);
    const own = questionLabel(q);
    const label = q.required ? own : msg().form.optional(own);
    const required = q.required ? html` data-check="required" data-label="${own}"` : html``;
    const value = item?.answers[q.key] ?? '';
    const error = item ? errors.get(name) : undefined;
    const help = q.key === EMERGENCY_CONTACT_NAME ? msg().form.emergencyContactHint : q.help;
    const hint = help ? { hint: help } : {};
    if (q.type === 'select')
      return selectField({
        id: fieldId(name),
        name,
        label,
        value,
        options: q.options,
        error,
        ...hint,
        extra: required,
      });
    if (q.type === 'phone') {
      // someone else's number: the browser's own number would be the wrong one to fill in
      const check = q.required ? required : html` data-check="phone"`;
      const extra = html`${check} inputmode="tel" autocomplete="off"`;
      return textField({ id: fieldId(name), name, label, value, error, type: 'tel', ...hint, extra });
    }
    return textField({ id: fieldId(name), name, label, value, error, ...hint, extra: required });
  });
}

function dateOfBirthField(view: FormContent, { tt, slot, item, errors }: Fieldset): Html | '' {
  if (tt.minAge <= 0) return '';
  const { event } = view.found;
  const name = `items[${slot.index}].date_of_birth`;
  const m = msg().form;
  return textField({
    id: fieldId(name),
    name,
    label: m.dateOfBirth,
    type: 'date',
    value: item?.date_of_birth ?? '',
    error: item ? errors.get(name) : undefined,
    hint: m.dateOfBirthHint(tt.minAge, formatDate(event.startsAt, event.timezone, INTL_LOCALES[locale()])),
    extra: html` min="1900-01-01" max="${localDate(view.now, event.timezone)}" autocomplete="off"
    data-check="dob" data-min-age="${tt.minAge}" data-race-day="${localDate(event.startsAt, event.timezone)}"`,
  });
}

function participantFieldset(view: FormContent, fieldset: Fieldset): Html {
  const { tt, slot, item, errors } = fieldset;
  const path = (name: string) => `items[${slot.index}].${name}`;
  const m = msg().form;
  return html`<fieldset class="participant" data-item data-key="${slot.key}" data-label="${tt.name}">
    <legend>${m.participant(slot.number, tt.name)}</legend>
    <input type="hidden" name="${path('ticket_type_id')}" value="${tt.id}" />
    <div class="name-field">
      ${textField({
        id: fieldId(path('participant_name')),
        name: path('participant_name'),
        label: m.fullName,
        value: item?.participant_name ?? '',
        error: item ? errors.get(path('participant_name')) : undefined,
        hint: m.fullNameHint,
        extra: html` autocomplete="off" data-check="required" data-label="${m.fullName}" data-name`,
      })}
    </div>
    ${questionFields(view, fieldset)} ${dateOfBirthField(view, fieldset)}
  </fieldset>`;
}

export function participantsStep(
  view: FormContent,
  errors: Map<string, string>,
  typesOnSale: TicketTypeRow[],
): Html {
  const byId = new Map(view.found.ticketTypes.map((tt) => [tt.id, tt]));
  const template: Slot = { index: '__I__', number: '__N__', key: '__K__' };
  const none = view.values.items.length === 0;
  const id = fieldId('runner_is_buyer');
  const m = msg().form;
  return html`<input
      type="checkbox"
      class="self-toggle"
      id="${id}"
      name="runner_is_buyer"
      value="yes"
      aria-describedby="hint-${id}"
      data-runner
      ${attr('checked', view.values.runnerIsBuyer)}${attr('hidden', none)}
    />
    <label for="${id}" class="self-label" data-runner ${attr('hidden', none)}>${m.iAmTheRunner}</label>
    <p class="hint self-hint" id="hint-${id}" data-runner ${attr('hidden', none)}>${m.runnerIsYou}</p>
    <div data-participants>
      ${view.values.items.map((item, i) =>
        participantFieldset(view, {
          tt: byId.get(item.ticket_type_id)!,
          slot: { index: String(i), number: String(i + 1), key: item.key },
          item,
          errors,
        }),
      )}
    </div>
    ${typesOnSale.map(
      (tt) =>
        html`<template data-participant-template="${tt.id}"
          >${participantFieldset(view, { tt, slot: template, item: null, errors })}</template
        >`,
    )}`;
}
