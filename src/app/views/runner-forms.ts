// The forms of one runner: correcting their details, and transferring their place to another
// person (new name, contact, date of birth and answers). Plain forms that work without scripts,
// each problem next to its field and in the summary above (GOV.UK pattern).
import type { AdditionalQuestion, EventRow } from '../../events/index.ts';
import type { OrderRow, RegistrationRow } from '../../orders/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, fieldId, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { eventLocalTime } from './order-runners.ts';

export type RunnerFormKind = 'correct' | 'transfer';

export interface RunnerFormView {
  viewer: Viewer;
  kind: RunnerFormKind;
  order: OrderRow;
  registration: RegistrationRow;
  event: EventRow;
  /** the minimum age of the place's ticket type (0: none) */
  minAge: number;
  values: Record<string, string>;
  errors: FieldErrors;
  /** a refusal that names no field (the transfer deadline passed, the place was refunded) */
  problem: string | null;
}

/** A question's answer control: a list of its choices, or a line of text. */
function answerField(q: AdditionalQuestion, values: Record<string, string>, errors: FieldErrors): Html {
  const name = `answers.${q.key}`;
  const label = q.required ? q.label : `${q.label} (optional)`;
  if (q.type !== 'select') {
    return input({ name, label, value: values[name] ?? '', errors, ...(q.help && { hint: q.help }) });
  }
  const id = fieldId(name);
  const error = errors[name];
  const current = values[name] ?? '';
  const hintId = q.help ? `${id}-hint` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  // A stored answer no longer among the choices is kept visible, so that saving asks to change it.
  const options = current && !q.options.includes(current) ? [...q.options, current] : q.options;
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">${label}</label>
    ${q.help ? html`<p class="hint" id="${hintId}">${q.help}</p>` : ''}
    ${error ? html`<p class="error" id="${errorId}">${error}</p>` : ''}
    <select
      id="${id}"
      name="${name}"
      ${attr('aria-describedby', describedBy || null)}${attr('aria-invalid', error ? 'true' : null)}
    >
      <option value="">Choose…</option>
      ${options.map((o) => html`<option value="${o}" ${attr('selected', o === current)}>${o}</option>`)}
    </select>
  </div>`;
}

export function renderRunnerForm(view: RunnerFormView): string {
  const { order, registration: reg, event, values, errors } = view;
  const transfer = view.kind === 'transfer';
  const title = transfer ? `Transfer ${reg.participantName}'s place` : `Correct ${reg.participantName}`;
  const dobHint =
    view.minAge > 0
      ? `Required: ${reg.ticketLabel} has a minimum age of ${view.minAge} on race day.`
      : 'Leave it empty if not known.';
  const deadline = event.transferDeadline;
  const main = html`<p>
      <a href="/orders/${order.id}">Order <code>${order.orderCode}</code></a>
    </p>
    <h1>${title}</h1>
    ${errorSummary(errors, view.problem)}
    ${
      transfer
        ? html`<p>
              The place (${reg.ticketLabel}) goes to another person. The current ticket stops working and a
              new ticket with a new code is issued; the bib stays with the place. The buyer is told the place
              was transferred, and the new runner gets their ticket by email.
            </p>
            ${deadline ? html`<p class="hint">Transfers close ${eventLocalTime(deadline, event.timezone)}.</p>` : ''}`
        : html`<p>Fix a mistake in the runner's details. The ticket stays the same.</p>`
    }
    ${transfer ? html`<h2>The new runner</h2>` : ''}
    <form method="post" action="/orders/${order.id}/runners/${reg.id}/${view.kind}" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${input({
        name: 'participant_name',
        label: 'Full name',
        value: values.participant_name ?? '',
        errors,
        autocomplete: 'off',
      })}
      ${
        transfer
          ? html`${input({
              name: 'email',
              label: 'Email',
              type: 'email',
              value: values.email ?? '',
              errors,
              hint: 'Their ticket is sent here.',
              autocomplete: 'off',
            })}
            ${input({
              name: 'phone',
              label: 'Mobile number (optional)',
              type: 'tel',
              value: values.phone ?? '',
              errors,
              hint: 'A Ugandan mobile number such as 0772 123456.',
              autocomplete: 'off',
            })}`
          : ''
      }
      ${input({
        name: 'date_of_birth',
        label: view.minAge > 0 ? 'Date of birth' : 'Date of birth (optional)',
        type: 'date',
        value: values.date_of_birth ?? '',
        errors,
        hint: dobHint,
      })}
      ${event.additionalQuestions.map((q) => answerField(q, values, errors))}
      <div class="actions">
        <button type="submit" class="primary">${transfer ? 'Transfer the place' : 'Save changes'}</button>
        <a href="/orders/${order.id}">Cancel</a>
      </div>
    </form>`;
  return page({
    title,
    main,
    viewer: view.viewer,
    section: 'orders',
    hasErrors: Object.keys(errors).length > 0 || view.problem !== null,
  });
}
