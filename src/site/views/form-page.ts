// The checkout form. Without JavaScript it is three pages (tickets; everyone's details and the
// payment choice; review), each a plain POST re-rendered by the server with errors next to
// their fields. With the script the same markup becomes one step at a time.
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import { remainingOf, type EventWithTickets, type TicketTypeRow } from '../../events/events.ts';
import { priceByMethod, type PaymentMethod } from '../../events/fees.ts';
import { localDate, MAX_TICKETS_PER_ORDER } from '../../orders/create-order.ts';
import type { OrderRow } from '../../orders/order-out.ts';
import type { FieldError } from '../../platform/errors.ts';
import {
  errorAnchor,
  fieldId,
  friendlyMessage,
  isPaymentMethod,
  type FormValues,
  type ItemValues,
  type PaymentChoice,
} from '../checkout-form.ts';
import { formatDate, formatMoney, METHOD_NAMES, methodName } from '../format.ts';
import { attr, html, type Html } from '../html.ts';
import { controlAria, errorNote, errorSummary, selectField, textField } from './fields.ts';
import { layout } from './layout.ts';

/** At or below this many left, the page says how many remain. */
export const LOW_REMAINING = 10;

export interface Notice {
  text: string | Html;
  kind: 'info' | 'bad';
}

export interface FormView {
  session: CheckoutSessionRow;
  found: EventWithTickets;
  now: Date;
  stage: 'tickets' | 'details';
  values: FormValues;
  errors: FieldError[];
  notice?: Notice | null;
  status?: number;
  /** the refusal's error_code, on the error summary */
  errorCode?: string;
}

export function checkoutPath(sessionId: string, rest = ''): string {
  return `/checkout/${sessionId}${rest}`;
}

/** Friendly message per anchor field (first wins) and the summary's list, in order. */
export function collectErrors(errors: FieldError[], found: EventWithTickets) {
  const byField = new Map<string, string>();
  const summary: { href: string; message: string }[] = [];
  for (const e of errors) {
    const anchor = errorAnchor(e.field);
    const message = friendlyMessage(e.field, e.message, found);
    if (byField.has(anchor)) continue;
    byField.set(anchor, message);
    const item = /^items\[(\d+)\]\./.exec(e.field);
    summary.push({
      href: fieldId(anchor),
      message: item && anchor !== 'items' ? `Participant ${Number(item[1]) + 1}: ${message}` : message,
    });
  }
  return { byField, summary };
}

function available(tt: TicketTypeRow, now: Date): 'on_sale' | 'not_yet' | 'ended' | 'sold_out' {
  if (now.getTime() < tt.salesStart.getTime()) return 'not_yet';
  if (now.getTime() >= tt.salesEnd.getTime()) return 'ended';
  if (remainingOf(tt) <= 0) return 'sold_out';
  return 'on_sale';
}

function priceText(tt: TicketTypeRow, found: EventWithTickets, method: PaymentMethod): string {
  const currency = found.event.currency;
  if (tt.priceMinor === 0) return 'Free';
  const p = priceByMethod(tt.priceMinor, found.organization.fees)[method];
  return `${formatMoney(tt.priceMinor, currency)} + ${formatMoney(p.laces_fee_minor, currency)} fee = ${formatMoney(p.total_minor, currency)}`;
}

function ticketRow(view: FormView, tt: TicketTypeRow, first: boolean, error: string | undefined): Html {
  const { found, now } = view;
  const zone = found.event.timezone;
  const state = available(tt, now);
  const max = Math.min(remainingOf(tt), MAX_TICKETS_PER_ORDER);
  const chosen = view.values.quantities.get(tt.id) ?? 0;
  const id = first ? fieldId('items') : `q-${tt.id}`;
  const fees = priceByMethod(tt.priceMinor, found.organization.fees);
  const facts: string[] = [];
  if (tt.distanceKm > 0) facts.push(`${tt.distanceKm} km`);
  if (state === 'not_yet') facts.push(`On sale from ${formatDate(tt.salesStart, zone)}`);
  else if (state === 'ended') facts.push('Sales have closed');
  else facts.push(`On sale until ${formatDate(tt.salesEnd, zone)}`);
  if (tt.minAge > 0) facts.push(`Minimum age ${tt.minAge} on race day`);
  const remaining = remainingOf(tt);
  const method = isPaymentMethod(view.values.payment_method) ? view.values.payment_method : 'momo';
  return html`<div class="ticket">
    <div class="info">
      <p class="name" id="tn-${tt.id}">${tt.name}</p>
      ${tt.description ? html`<p class="muted">${tt.description}</p>` : ''}
      <p
        class="price"
        ${tt.priceMinor > 0 ? html`${attr('data-method-price', true)}${attr('data-momo', priceText(tt, found, 'momo'))}${attr('data-airtel', priceText(tt, found, 'airtel'))}` : ''}
      >
        ${priceText(tt, found, method)}
      </p>
      <p class="muted">${facts.join(' · ')}</p>
      ${state === 'sold_out' ? html`<p class="soldout">Sold out</p>` : state === 'on_sale' && remaining <= LOW_REMAINING ? html`<p class="low">Only ${remaining} left</p>` : ''}
    </div>
    <div class="qty-box">
      <label for="${id}">Quantity<span class="vh"> of ${tt.name}</span></label>
      ${
        state === 'on_sale'
          ? html`<select
              class="qty"
              id="${id}"
              name="qty.${tt.id}"
              data-qty
              data-tt="${tt.id}"
              data-name="${tt.name}"
              data-price="${tt.priceMinor}"
              data-fee-momo="${fees.momo.laces_fee_minor}"
              data-fee-airtel="${fees.airtel.laces_fee_minor}"
              ${controlAria(fieldId('items'), null, error)}
            >
              ${Array.from({ length: max + 1 }, (_, n) => html`<option value="${n}" ${attr('selected', n === chosen)}>${n}</option>`)}
            </select>`
          : html`<select class="qty" id="${id}" disabled>
              <option>0</option>
            </select>`
      }
    </div>
  </div>`;
}

function participantFieldset(
  view: FormView,
  tt: TicketTypeRow,
  slot: { index: string; number: string; key: string },
  item: ItemValues | null,
  errors: Map<string, string>,
): Html {
  const { found } = view;
  const path = (name: string) => `items[${slot.index}].${name}`;
  const err = (name: string) => (item ? errors.get(`items[${slot.index}].${name}`) : undefined);
  const raceDay = localDate(found.event.startsAt, found.event.timezone);
  const today = localDate(view.now, found.event.timezone);
  return html`<fieldset class="participant" data-item data-key="${slot.key}" data-label="${tt.name}">
    <legend>Participant ${slot.number}: ${tt.name}</legend>
    <input type="hidden" name="${path('ticket_type_id')}" value="${tt.id}" />
    ${textField({
      id: fieldId(path('participant_name')),
      name: path('participant_name'),
      label: 'Full name',
      value: item?.participant_name ?? '',
      error: err('participant_name'),
      hint: 'As it should appear on the results list',
      extra: html` autocomplete="off" data-check="required" data-label="Full name" data-name`,
    })}
    ${found.event.additionalQuestions.map((q) => {
      const name = path(`answers.${q.key}`);
      const label = q.required ? q.label : `${q.label} (optional)`;
      const extra = q.required ? html` data-check="required" data-label="${q.label}"` : html``;
      const value = item?.answers[q.key] ?? '';
      const error = err(`answers.${q.key}`);
      return q.type === 'select'
        ? selectField({
            id: fieldId(name),
            name,
            label,
            value,
            options: q.options,
            error,
            ...(q.help && { hint: q.help }),
            extra,
          })
        : textField({ id: fieldId(name), name, label, value, error, ...(q.help && { hint: q.help }), extra });
    })}
    ${
      tt.minAge > 0
        ? textField({
            id: fieldId(path('date_of_birth')),
            name: path('date_of_birth'),
            label: 'Date of birth',
            type: 'date',
            value: item?.date_of_birth ?? '',
            error: err('date_of_birth'),
            hint: `The participant must be at least ${tt.minAge} on race day, ${formatDate(found.event.startsAt, found.event.timezone)}.`,
            extra: html` min="1900-01-01" max="${today}" autocomplete="off" data-check="dob"
            data-min-age="${tt.minAge}" data-race-day="${raceDay}"`,
          })
        : ''
    }
  </fieldset>`;
}

function stepSection(name: string, title: string, hidden: boolean, content: Html, nav: Html): Html {
  return html`<section class="step" data-step="${name}" aria-labelledby="h-${name}" ${attr('hidden', hidden)}>
    <h2 id="h-${name}" data-title="${title}"><span class="step-count" data-step-count></span>${title}</h2>
    ${content} ${nav}
  </section>`;
}

const jsNav = html`<div class="actions" data-js hidden>
  <button type="button" data-back>Back</button>
  <button type="submit" name="action" value="next" class="primary">Continue</button>
</div>`;

function paymentFields(view: FormView, errors: Map<string, string>, ticketSubtotal: number): Html {
  const { values } = view;
  const methodError = errors.get('payment_method');
  const boxId = fieldId('payment_method');
  const radio = (method: PaymentMethod, first: boolean) => {
    const id = first ? boxId : `${boxId}-${method}`;
    return html`<div class="check">
      <input
        type="radio"
        id="${id}"
        name="payment_method"
        value="${method}"
        ${attr('checked', values.payment_method === method)}${controlAria(boxId, null, methodError)}
      />
      <label for="${id}">${METHOD_NAMES[method]}</label>
    </div>`;
  };
  return html`${ticketSubtotal === 0 ? html`<p class="hint" data-nojs>Only needed if you add a donation.</p>` : ''}
    <fieldset class="field${methodError ? ' invalid' : ''}" data-field="${boxId}">
      <legend>How would you like to pay?</legend>
      ${errorNote(boxId, methodError)} ${radio('momo', true)} ${radio('airtel', false)}
      <div class="check disabled">
        <input
          type="radio"
          id="${boxId}-card"
          name="payment_method"
          value="card"
          disabled
          aria-describedby="card-note"
        />
        <label for="${boxId}-card">Card <span id="card-note">(not yet available)</span></label>
      </div>
      <p class="hint" data-guess aria-live="polite"></p>
    </fieldset>
    ${textField({
      id: fieldId('payment_phone'),
      name: 'payment_phone',
      label: 'Mobile money number',
      type: 'tel',
      value: values.payment_phone,
      error: errors.get('payment_phone'),
      hint: 'The payment prompt goes to this phone. Leave it empty to use your own number.',
      extra: html` autocomplete="tel" inputmode="tel" data-pay-phone`,
    })}`;
}

export function renderFormPage(view: FormView): string {
  const { session, found, values, stage } = view;
  const { event, organization } = found;
  const { byField, summary } = collectErrors(view.errors, found);
  const inDetails = stage === 'details';
  const typesOnSale = found.ticketTypes.filter((tt) => available(tt, view.now) === 'on_sale');
  const ticketsError = byField.get('items');
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const ticketSubtotal = values.items.reduce(
    (sum, it) => sum + (byId.get(it.ticket_type_id)?.priceMinor ?? 0),
    0,
  );
  const anyPaid = found.ticketTypes.some((tt) => tt.priceMinor > 0);

  let firstOnSale = true;
  // The error summary links to the first quantity; with none on sale, to the list itself.
  const listId = typesOnSale.length === 0 ? html` id="${fieldId('items')}" tabindex="-1"` : html``;
  const tickets = html`<fieldset
    class="field${ticketsError ? ' invalid' : ''}"
    data-field="${fieldId('items')}"
    ${listId}
  >
    <legend>Choose tickets (at most ${MAX_TICKETS_PER_ORDER} per order)</legend>
    ${anyPaid ? html`<p class="hint" data-method-price data-momo="Fees shown are for MTN Mobile Money." data-airtel="Fees shown are for Airtel Money.">Fees shown are for ${methodName(isPaymentMethod(values.payment_method) ? values.payment_method : 'momo')}.</p>` : ''}
    ${errorNote(fieldId('items'), ticketsError)}
    ${found.ticketTypes.map((tt) => {
      const onSale = available(tt, view.now) === 'on_sale';
      const row = ticketRow(view, tt, onSale && firstOnSale, ticketsError);
      if (onSale) firstOnSale = false;
      return row;
    })}
    <p class="muted" data-live-total aria-live="polite"></p>
  </fieldset>`;

  const ticketsNav = inDetails
    ? html`<div class="actions">
        <button type="submit" name="action" value="tickets" data-nojs>Update tickets</button>
        <button type="submit" name="action" value="tickets" class="primary" data-js hidden>Continue</button>
      </div>`
    : html`<div class="actions">
        <button type="submit" name="action" value="tickets" class="primary">Continue</button>
      </div>`;

  const participants = html`<div data-participants>
      ${values.items.map((item, i) =>
        participantFieldset(
          view,
          byId.get(item.ticket_type_id)!,
          { index: String(i), number: String(i + 1), key: item.key },
          item,
          byField,
        ),
      )}
    </div>
    ${typesOnSale.map(
      (tt) =>
        html`<template data-participant-template="${tt.id}"
          >${participantFieldset(view, tt, { index: '__I__', number: '__N__', key: '__K__' }, null, byField)}</template
        >`,
    )}`;

  const buyer = html`<p class="hint">We send the confirmation and race details to you.</p>
    ${textField({ id: fieldId('buyer.name'), name: 'buyer.name', label: 'Your name', value: values.buyer.name, error: byField.get('buyer.name'), extra: html` autocomplete="name" data-check="required" data-label="Your name"` })}
    ${textField({ id: fieldId('buyer.email'), name: 'buyer.email', label: 'E-mail', type: 'email', value: values.buyer.email, error: byField.get('buyer.email'), extra: html` autocomplete="email" inputmode="email" spellcheck="false" data-check="required" data-label="E-mail"` })}
    ${textField({ id: fieldId('buyer.phone'), name: 'buyer.phone', label: 'Phone number', type: 'tel', value: values.buyer.phone, error: byField.get('buyer.phone'), hint: 'A Ugandan mobile number, such as 0772 123456', extra: html` autocomplete="tel" inputmode="tel" data-check="required" data-label="Phone number" data-buyer-phone` })}`;

  const waiverError = byField.get('waiver_accepted');
  const waiverId = fieldId('waiver_accepted');
  const waiver = html`<p>Version ${event.waiverVersion}</p>
    ${event.waiverText ? html`<div class="waiver-text">${paragraphs(event.waiverText)}</div>` : ''}
    <div class="field${waiverError ? ' invalid' : ''}" data-field="${waiverId}">
      ${errorNote(waiverId, waiverError)}
      <div class="check">
        <input
          type="checkbox"
          id="${waiverId}"
          name="waiver_accepted"
          value="yes"
          ${attr('checked', values.waiver_accepted)}${controlAria(waiverId, null, waiverError)}
        />
        <label for="${waiverId}"
          >I accept the waiver (version ${event.waiverVersion}) for every participant in this order</label
        >
      </div>
    </div>`;

  const donation = textField({
    id: fieldId('donation_minor'),
    name: 'donation_minor',
    label: `Donation in ${event.currency} (optional)`,
    value: values.donation,
    error: byField.get('donation_minor'),
    hint: `Add a gift to ${event.organizerName || organization.name}, or leave it empty.`,
    extra: html` inputmode="numeric" autocomplete="off" data-donation`,
  });

  const review = html`<div data-review></div>
    <div class="actions" data-nojs>
      <button type="submit" name="action" value="review" class="primary">Review order</button>
    </div>
    <div class="actions" data-js hidden>
      <button type="button" data-back>Back</button>
      <button type="submit" name="action" value="pay" class="primary" data-pay data-busy="Sending…">
        Pay
      </button>
    </div>`;

  const later = !inDetails;
  const main = html`<form
      method="post"
      action="${checkoutPath(session.id, '/order')}"
      novalidate
      data-checkout
      data-stage="${stage}"
      data-currency="${event.currency}"
      data-max-tickets="${MAX_TICKETS_PER_ORDER}"
    >
      ${errorSummary(summary, view.errorCode)}
      ${view.notice ? html`<p class="notice${view.notice.kind === 'bad' ? ' bad' : ''}">${view.notice.text}</p>` : ''}
      ${stepSection('tickets', 'Tickets', false, tickets, ticketsNav)}
      ${stepSection('participants', 'Participants', later, participants, jsNav)}
      ${stepSection('buyer', 'Your details', later, buyer, jsNav)}
      ${event.waiverRequired ? stepSection('waiver', 'Waiver', later, waiver, jsNav) : ''}
      ${organization.paymentsEnabled ? stepSection('donation', 'Donation', later, donation, jsNav) : ''}
      ${organization.paymentsEnabled ? stepSection('payment', 'Payment', later, paymentFields(view, byField, ticketSubtotal), jsNav) : ''}
      ${stepSection('review', 'Review and pay', later, review, html``)}
    </form>
    ${cancelForm(session)}`;

  const title = summary.length > 0 ? `Error: Checkout – ${event.name}` : `Checkout – ${event.name}`;
  return layout({ title, main, session, found }).value;
}

/** Plain text as paragraphs: blank lines part paragraphs, single line breaks stay. */
export function paragraphs(text: string): Html[] {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => html`<p>${p.split(/\r?\n/).map((line, i) => html`${i > 0 ? html`<br />` : ''}${line}`)}</p>`);
}

export function cancelForm(session: CheckoutSessionRow): Html {
  const host = session.cancelUrl ? hostOf(session.cancelUrl) : null;
  const label = session.uiMode === 'embedded' || !host ? 'Cancel' : `Cancel and return to ${host}`;
  return html`<form
    method="post"
    action="${checkoutPath(session.id, '/cancel')}"
    class="cancel-form"
    data-cancel
  >
    <button type="submit" class="link">${label}</button>
  </form>`;
}

export function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Review (the no-script path): the server's own totals from a dry run of the order.

export interface ReviewView {
  session: CheckoutSessionRow;
  found: EventWithTickets;
  values: FormValues;
  order: OrderRow;
  payment: PaymentChoice | null;
}

function hiddenInputs(values: FormValues): Html {
  const fields: [string, string][] = [];
  for (const [id, n] of values.quantities) fields.push([`qty.${id}`, String(n)]);
  values.items.forEach((item, i) => {
    fields.push([`items[${i}].ticket_type_id`, item.ticket_type_id]);
    fields.push([`items[${i}].participant_name`, item.participant_name]);
    for (const [key, value] of Object.entries(item.answers))
      fields.push([`items[${i}].answers.${key}`, value]);
    fields.push([`items[${i}].date_of_birth`, item.date_of_birth]);
  });
  fields.push(
    ['buyer.name', values.buyer.name],
    ['buyer.email', values.buyer.email],
    ['buyer.phone', values.buyer.phone],
  );
  if (values.waiver_accepted) fields.push(['waiver_accepted', 'yes']);
  fields.push(['donation_minor', values.donation], ['payment_method', values.payment_method]);
  fields.push(['payment_phone', values.payment_phone]);
  return html`${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}`;
}

export function renderReviewPage(view: ReviewView): string {
  const { session, found, values, order, payment } = view;
  const currency = order.currency;
  const money = (n: number) => formatMoney(n, currency);
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const lines = [...values.quantities].map(([id, n]) => {
    const tt = byId.get(id)!;
    return html`<tr>
      <th scope="row">${n} × ${tt.name}</th>
      <td class="num">${money(n * tt.priceMinor)}</td>
    </tr>`;
  });
  const main = html`<section aria-labelledby="h-review">
      <h2 id="h-review" tabindex="-1">Review and pay</h2>
      <table class="summary">
        <caption class="muted">
          Your order
        </caption>
        ${lines}
        ${
          order.lacesFee > 0
            ? html`<tr>
                <th scope="row">Service fee (${methodName(payment?.method)})</th>
                <td class="num">${money(order.lacesFee)}</td>
              </tr>`
            : ''
        }
        ${
          order.donationTotal > 0
            ? html`<tr>
                <th scope="row">Donation</th>
                <td class="num">${money(order.donationTotal)}</td>
              </tr>`
            : ''
        }
        <tr class="total">
          <th scope="row">Total</th>
          <td class="num">${money(order.total)}</td>
        </tr>
      </table>
      <dl class="facts">
        <dt>${values.items.length === 1 ? 'Participant' : 'Participants'}</dt>
        <dd>
          ${values.items.map((it, i) => html`${i > 0 ? ', ' : ''}${it.participant_name.trim()} (${byId.get(it.ticket_type_id)?.name ?? ''})`)}
        </dd>
        <dt>Buyer</dt>
        <dd>${values.buyer.name.trim()}, ${values.buyer.email.trim()}, ${values.buyer.phone.trim()}</dd>
        ${
          found.event.waiverRequired
            ? html`<dt>Waiver</dt>
                <dd>Accepted (version ${found.event.waiverVersion})</dd>`
            : ''
        }
        ${
          payment
            ? html`<dt>Payment</dt>
                <dd>${METHOD_NAMES[payment.method]}, ${payment.phone.trim()}</dd>`
            : ''
        }
      </dl>
      <form method="post" action="${checkoutPath(session.id, '/order')}" data-once>
        ${hiddenInputs(values)}
        <div class="actions">
          <button type="submit" name="action" value="pay" class="primary" data-busy="Sending…">
            ${order.total > 0 ? `Pay ${money(order.total)}` : 'Confirm registration'}
          </button>
          <button type="submit" name="action" value="edit">Change details</button>
        </div>
      </form>
    </section>
    ${cancelForm(session)}`;
  return layout({ title: `Review – ${found.event.name}`, main, session, found }).value;
}
