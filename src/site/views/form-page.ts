// The checkout form. Without JavaScript it is three pages (tickets; everyone's details and the
// payment choice; review), each a plain POST re-rendered by the server with errors next to
// their fields. With the script the same markup becomes one step at a time (web/checkout-page).
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import type { EventWithTickets } from '../../events/events.ts';
import { MAX_TICKETS_PER_ORDER } from '../../orders/order-rules.ts';
import type { FieldError } from '../../platform/errors.ts';
import type { FormValues } from '../checkout-form.ts';
import { attr, html, type Html } from '../../platform/html.ts';
import { errorSummary } from './fields.ts';
import { layout } from './layout.ts';
import { cancelForm, checkoutPath, collectErrors } from './page-parts.ts';
import { buyerStep } from './steps/buyer-step.ts';
import { donationStep } from './steps/donation-step.ts';
import { participantsStep } from './steps/participants-step.ts';
import { paymentStep } from './steps/payment-step.ts';
import { isOnSale, ticketsNav, ticketsStep } from './steps/tickets-step.ts';
import { waiverStep } from './steps/waiver-step.ts';

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

/** The script's review step (it fills in the order); without the script, a button to the review page. */
const reviewStep = html`<div data-review></div>
  <div class="actions" data-nojs>
    <button type="submit" name="action" value="review" class="primary">Review order</button>
  </div>
  <div class="actions" data-js hidden>
    <button type="button" data-back>Back</button>
    <button type="submit" name="action" value="pay" class="primary" data-pay data-busy="Sending…">Pay</button>
  </div>`;

/** Every step in order; those after the tickets start hidden on the tickets page. */
function steps(view: FormView, errors: Map<string, string>): Html {
  const { found, values } = view;
  const { event, organization } = found;
  const later = view.stage !== 'details';
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const ticketSubtotal = values.items.reduce(
    (sum, it) => sum + (byId.get(it.ticket_type_id)?.priceMinor ?? 0),
    0,
  );
  const typesOnSale = found.ticketTypes.filter((tt) => isOnSale(tt, view.now));
  const payments = organization.paymentsEnabled;
  return html`${stepSection('tickets', 'Tickets', false, ticketsStep(view, errors), ticketsNav(!later))}
  ${stepSection('participants', 'Participants', later, participantsStep(view, errors, typesOnSale), jsNav)}
  ${stepSection('buyer', 'Your details', later, buyerStep(values, errors), jsNav)}
  ${event.waiverRequired ? stepSection('waiver', 'Waiver', later, waiverStep(event, values, errors), jsNav) : ''}
  ${payments ? stepSection('donation', 'Donation', later, donationStep(found, values, errors), jsNav) : ''}
  ${payments ? stepSection('payment', 'Payment', later, paymentStep(values, errors, ticketSubtotal), jsNav) : ''}
  ${stepSection('review', 'Review and pay', later, reviewStep, html``)}`;
}

export function renderFormPage(view: FormView): string {
  const { session, found, stage } = view;
  const { event } = found;
  const { byField, summary } = collectErrors(view.errors, found);
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
      ${steps(view, byField)}
    </form>
    ${cancelForm(session)}`;
  const title = summary.length > 0 ? `Error: Checkout – ${event.name}` : `Checkout – ${event.name}`;
  return layout({ title, main, session, found }).value;
}
