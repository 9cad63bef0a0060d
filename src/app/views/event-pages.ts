// The event pages of the organizer app: the event form (new and edit), the event page with its
// facts, ticket types (an add form and an edit form each, for owners and admins) and status
// actions, and the confirmation page of publishing, closing or cancelling.
import {
  asksEmergencyContact,
  isEmergencyContactKey,
  isUnlimited,
  type EventRow,
  type TicketTypeRow,
} from '../../events/index.ts';
import { attr, currencyExponent, html, type Html } from '../../platform/index.ts';
import type { RaceEvent } from '../../startlists/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { ticketTypeValues, type FormState } from '../routes/event-form.ts';
import { questionRows } from '../routes/event-questions.ts';
import { ACTION_RULES, actionsFrom, STATUS_LABELS, type StatusAction } from '../routes/event-status.ts';
import { errorSummary, fieldId, formatPrice } from './fields.ts';
import { checkbox, field, select, textarea } from './form-controls.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { priceBreakdown, type MethodPricing } from './price-breakdown.ts';
import { runnerExports } from './runner-exports.ts';

// ---------------------------------------------------------------------------------------------
// The event form

function questionGroup(i: number, values: Record<string, string>, errors: FieldErrors): Html {
  const c = (f: string, label: string, hint?: string) => ({
    name: `q${i}_${f}`,
    label,
    values,
    errors,
    hint,
  });
  return html`<fieldset class="group">
    <legend>Question ${i + 1}</legend>
    ${field(c('label', 'Question', 'Leave the question and its key empty to remove it.'))}
    ${field(c('key', 'Key (optional)', "The answer's name in exports, such as tshirt_size. Empty: made from the question."))}
    ${select({
      ...c('type', 'Answer'),
      options: [
        ['text', 'Free text'],
        ['select', 'A choice from a list'],
        ['phone', 'A phone number'],
      ],
    })}
    ${field(c('options', 'Choices', 'For a choice: the choices, separated by commas (S, M, L).'))}
    ${field(c('help', 'Help text'))} ${checkbox(c('required', 'An answer is required'))}
  </fieldset>`;
}

export function renderEventForm(view: { viewer: Viewer; event: EventRow | null; form: FormState }): string {
  const { values, errors } = view.form;
  const c = (name: string, label: string, hint?: string) => ({ name, label, values, errors, hint });
  const editing = view.event !== null;
  const title = editing ? `Edit ${view.event!.name}` : 'New event';
  const action = editing ? `/events/${view.event!.id}` : '/events';
  const rows = questionRows(values);
  const main = html`<p><a href="${editing ? `/events/${view.event!.id}` : '/events'}">Back</a></p>
    <h1>${title}</h1>
    ${errorSummary(errors)}
    <form method="post" action="${action}" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <h2>The event</h2>
      ${field(c('name', 'Name'))}
      ${field(
        c(
          'handle',
          'Web address',
          editing
            ? "The event's name in links, such as kampala-city-10k. Partners' links use it: change it only before they do."
            : "The event's name in links, such as kampala-city-10k. Empty: made from the name.",
        ),
      )}
      ${textarea({ ...c('description', 'Description'), rows: 6 })} ${field(c('venue', 'Venue'))}
      ${field(c('cover', 'Cover image address', 'An https:// address of the image shown at the top of the checkout.'))}
      ${select({
        ...c('visibility', 'Visibility'),
        options: Object.entries(VISIBILITY_LABELS),
      })}
      <h2>Dates</h2>
      ${field(c('timezone', 'Time zone', 'The dates below are in this zone, such as Africa/Kampala.'))}
      ${field({ ...c('starts_at', 'Starts'), type: 'datetime-local' })}
      ${field({ ...c('ends_at', 'Ends'), type: 'datetime-local' })}
      ${field({ ...c('reg_opens_at', 'Registration opens'), type: 'datetime-local' })}
      ${field({ ...c('reg_closes_at', 'Registration closes'), type: 'datetime-local' })}
      ${field({
        ...c(
          'transfer_deadline',
          'Transfers close (optional)',
          'After this, a place can no longer go to another runner; corrections stay open. Empty: no deadline.',
        ),
        type: 'datetime-local',
      })}
      <h2>Payment and contact</h2>
      ${field(c('currency', 'Currency', 'Three letters, such as UGX.'))}
      ${field(c('organizer_name', 'Organizer name'))}
      ${field({ ...c('support_email', 'Support e-mail', 'Where runners write with questions.'), type: 'email' })}
      ${checkbox(c('donations_enabled', 'Offer buyers a donation to your cause at checkout'))}
      ${checkbox(c('phone_required', 'Ask for a phone number on free registrations too'))}
      <h2>Waiver</h2>
      ${checkbox(c('waiver_required', 'Runners must accept the waiver'))}
      ${field(c('waiver_version', 'Waiver version', 'Such as 2026-1: kept with each acceptance.'))}
      ${textarea({ ...c('waiver_text', 'Waiver text'), rows: 6 })}
      <h2>Questions for runners</h2>
      ${checkbox(c('emergency_contact', 'Ask each runner for an emergency contact (a name and a phone number)'))}
      ${Array.from({ length: rows }, (_, i) => questionGroup(i, values, errors))}
      <div class="actions">
        <button type="submit" class="primary">${editing ? 'Save changes' : 'Create event'}</button>
      </div>
    </form>`;
  return page({
    title,
    main,
    viewer: view.viewer,
    section: 'events',
    hasErrors: Object.keys(errors).length > 0,
  });
}

// ---------------------------------------------------------------------------------------------
// The event page

/** A ticket type form that came back with errors: the new one (null) or a stored one. */
export interface TicketTypeForm extends FormState {
  ticketTypeId: string | null;
}

const NOTICES: Record<string, string> = {
  created: 'The event was created as a draft. Add its ticket types, then publish it.',
  updated: 'The event was saved.',
  ticket_type_added: 'The ticket type was added.',
  ticket_type_updated: 'The ticket type was saved.',
  publish: 'The event is published: runners can register while its sales are open.',
  close: 'The event is closed: no new registrations are taken.',
  cancel: 'The event is cancelled.',
};

const VISIBILITY_LABELS: Record<string, string> = {
  public: 'Public: in the list of events on sale',
  unlisted: 'Unlisted: on sale, but left out of the list',
  private: 'Private: not on sale',
};

function when(date: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(
    date,
  );
}

/** What buyers pay and the organizer receives at `priceMinor`, for the event's currency. */
function breakdownOf(priceMinor: number, view: EventPageView): string {
  const { currency } = view.race.event;
  return priceBreakdown(priceMinor, view.pricing, currency, currencyExponent(currency));
}

function ticketTypeFields(
  view: EventPageView,
  prefix: string,
  values: Record<string, string>,
  errors: FieldErrors,
  priceMinor: number | null,
): Html {
  const { currency } = view.race.event;
  const output = fieldId(`${prefix}price-breakdown`);
  const price = {
    inputmode: 'decimal',
    extra: html` data-breakdown="${output}" data-pricing="${JSON.stringify(view.pricing)}"
    data-currency="${currency}" data-exponent="${currencyExponent(currency)}"`,
    after: html`<p class="hint" id="${output}" aria-live="polite">
      ${priceMinor === null ? '' : breakdownOf(priceMinor, view)}
    </p>`,
  };
  const c = (f: string, label: string, hint?: string) => ({
    name: `${prefix}${f}`,
    valueKey: f,
    label,
    values,
    errors,
    hint,
  });
  return html`${field(c('name', 'Name', 'Such as 10 km run.'))}
  ${field({ ...c('price', `Price (${currency})`), ...price })}
  ${field({ ...c('capacity', 'Places', 'Empty: no limit.'), inputmode: 'numeric' })}
  ${field({ ...c('distance_km', 'Distance in km', '0 when it is not a race distance.'), inputmode: 'decimal' })}
  ${field({ ...c('min_age', 'Minimum age', 'On race day; 0 for none.'), inputmode: 'numeric' })}
  ${field({ ...c('sales_start', 'Sales start', 'Empty: when registration opens.'), type: 'datetime-local' })}
  ${field({ ...c('sales_end', 'Sales end', 'Empty: when registration closes.'), type: 'datetime-local' })}
  ${textarea({ ...c('description', 'Description'), rows: 2 })}`;
}

function ticketTypeEntry(view: EventPageView, tt: TicketTypeRow): Html {
  const { event } = view.race;
  const form = view.form?.ticketTypeId === tt.id ? view.form : null;
  const values = form?.values ?? ticketTypeValues(tt, event);
  const facts = html`<p>
    ${formatPrice(tt.priceMinor, event.currency)} ·
    ${isUnlimited(tt.capacity) ? 'No limit of places' : `${tt.capacity.toLocaleString('en-GB')} places`}
    (${tt.paidCount} paid, ${tt.heldCount} held)
    ${tt.distanceKm ? html` · ${tt.distanceKm} km` : ''}${tt.minAge ? html` · from age ${tt.minAge}` : ''}
    <br />${breakdownOf(tt.priceMinor, view)} <br /><span class="muted"
      >On sale ${when(tt.salesStart, event.timezone)} to ${when(tt.salesEnd, event.timezone)}</span
    >
  </p>`;
  if (!view.canManage)
    return html`<li class="panel">
      <h3>${tt.name}</h3>
      ${facts}
    </li>`;
  return html`<li class="panel">
    <h3>${tt.name}</h3>
    ${facts}
    <details ${attr('open', form !== null)}>
      <summary>Edit ${tt.name}</summary>
      ${form ? errorSummary(form.errors) : ''}
      <form method="post" action="/events/${event.id}/ticket-types/${tt.id}" novalidate>
        ${csrfInput(view.viewer.current.session.csrfToken)}
        ${ticketTypeFields(view, `${tt.id}_`, values, form?.errors ?? {}, tt.priceMinor)}
        <button type="submit" class="primary">Save ${tt.name}</button>
      </form>
    </details>
  </li>`;
}

export interface EventPageView {
  viewer: Viewer;
  race: RaceEvent;
  canManage: boolean;
  done: string | null;
  form: TicketTypeForm | null;
  /** the organization's fee for each payment method the service takes */
  pricing: readonly MethodPricing[];
}

export function renderEventPage(view: EventPageView): string {
  const { event, ticketTypes } = view.race;
  const zone = event.timezone;
  const notice = NOTICES[view.done ?? ''];
  const newForm = view.form?.ticketTypeId === null ? view.form : null;
  const facts: [string, Html | string][] = [
    ['Status', STATUS_LABELS[event.status] ?? event.status],
    ['Dates', `${when(event.startsAt, zone)} to ${when(event.endsAt, zone)} (${zone})`],
    ['Registration', `${when(event.regOpensAt, zone)} to ${when(event.regClosesAt, zone)}`],
    ['Transfers', event.transferDeadline ? `Until ${when(event.transferDeadline, zone)}` : 'No deadline'],
    ['Venue', event.venue || '—'],
    ['Visibility', VISIBILITY_LABELS[event.visibility] ?? event.visibility],
    ['Currency', event.currency],
    ['Organizer', event.organizerName || '—'],
    ['Support e-mail', event.supportEmail || '—'],
    ['Donations', event.donationsEnabled ? 'Offered at checkout' : 'Not offered'],
    ['Phone on free registrations', event.phoneRequired ? 'Required' : 'Optional'],
    ['Waiver', event.waiverRequired ? `Required (version ${event.waiverVersion})` : 'Not required'],
    [
      'Questions',
      event.additionalQuestions
        .filter((q) => !isEmergencyContactKey(q.key))
        .map((q) => q.label)
        .join(', ') || 'None',
    ],
    [
      'Emergency contact',
      asksEmergencyContact(event.additionalQuestions) ? 'Asked of each runner' : 'Not asked',
    ],
  ];
  const actions = view.canManage ? actionsFrom(event.status) : [];
  const main = html`<p><a href="/events">All events</a></p>
    <h1>${event.name}</h1>
    ${notice ? html`<p class="notice good" role="status">${notice}</p>` : ''}
    <dl class="facts">
      ${facts.map(
        ([k, v]) =>
          html`<div>
            <dt>${k}</dt>
            <dd>${v}</dd>
          </div>`,
      )}
    </dl>
    <p class="actions">
      ${view.canManage ? html`<a href="/events/${event.id}/edit">Edit event</a>` : ''}
      <a href="/events/${event.id}/start-list">Start list</a>
      <a href="/events/${event.id}/money">Money</a>
      <a href="/events/${event.id}/preview">Preview checkout</a>
      ${actions.map(
        (a) =>
          html`<a href="/events/${event.id}/${a}" class="button${a === 'cancel' ? ' danger' : ''}"
            >${ACTION_RULES[a].verb} event</a
          >`,
      )}
    </p>
    ${runnerExports(view.viewer, event.id)}
    <h2>Ticket types</h2>
    ${
      ticketTypes.length === 0
        ? html`<p>No ticket types yet: runners need at least one to register.</p>`
        : html`<ul class="plain">
            ${ticketTypes.map((tt) => ticketTypeEntry(view, tt))}
          </ul>`
    }
    ${
      view.canManage
        ? html`<h2 id="add-ticket-type">Add a ticket type</h2>
            ${newForm ? errorSummary(newForm.errors) : ''}
            <form method="post" action="/events/${event.id}/ticket-types" novalidate class="panel">
              ${csrfInput(view.viewer.current.session.csrfToken)}
              ${ticketTypeFields(view, 'new_', newForm?.values ?? {}, newForm?.errors ?? {}, null)}
              <button type="submit" class="primary">Add ticket type</button>
            </form>`
        : ''
    }`;
  return page({
    title: event.name,
    main,
    viewer: view.viewer,
    section: 'events',
    hasErrors: view.form !== null,
    // the price breakdown said again as a price is typed
    script: view.canManage,
  });
}

// ---------------------------------------------------------------------------------------------
// Publish, close, cancel

/** The status as the confirmation page says it: "It is a draft now." */
const NOW: Record<string, string> = {
  draft: 'a draft',
  open: 'open',
  closed: 'closed',
  cancelled: 'cancelled',
};

export function renderStatusPage(view: {
  viewer: Viewer;
  event: EventRow;
  action: StatusAction;
  refusal: string | null;
}): string {
  const { event, action } = view;
  const rule = ACTION_RULES[action];
  const title = `${rule.verb} ${event.name}`;
  const main = html`<p><a href="/events/${event.id}">Back to the event</a></p>
    <h1>${rule.verb} ${event.name}?</h1>
    ${
      view.refusal
        ? html`<div class="notice bad" role="alert"><p>${view.refusal} Nothing was changed.</p></div>`
        : html`<p>It is ${NOW[event.status] ?? event.status} now. ${rule.effect}</p>
            <form method="post" action="/events/${event.id}/${action}" class="actions">
              ${csrfInput(view.viewer.current.session.csrfToken)}
              <button type="submit" class="primary${action === 'cancel' ? ' danger' : ''}">
                ${rule.verb} event
              </button>
              <a href="/events/${event.id}">Keep it as it is</a>
            </form>`
    }`;
  return page({ title, main, viewer: view.viewer, section: 'events' });
}
