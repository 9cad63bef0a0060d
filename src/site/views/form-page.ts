// The checkout form in three steps: tickets; the buyer, the participants, waiver and donation; and
// payment (only when there is something to pay). When the tickets are known (the partner's, or the
// only type on sale) the buyer starts on the details step, counted as step 1: the tickets step is
// then reached only by "Change tickets" and carries no number (docs/decisions/checkout-step-count.md).
// Without JavaScript each step is its own page, a plain POST re-rendered by the server with errors
// next to their fields; the other steps' fields are in the page too, hidden, so what was typed
// travels with the form. With the script the same markup becomes one step at a time without a
// round trip (web/checkout-page).
import type { EventWithTickets } from '../../events/index.ts';
import { MAX_TICKETS_PER_ORDER } from '../../orders/index.ts';
import { attr, html, type FieldError, type Html } from '../../platform/index.ts';
import { phoneOptional, type FormValues, type Stage } from '../checkout-form.ts';
import { formatMoney } from '../format.ts';
import { errorSummary } from './fields.ts';
import { layout } from './layout.ts';
import { msg } from '../messages/current.ts';
import { offerOf } from '../offer-words.ts';
import { cancelForm, checkoutPath, collectErrors, type PageSession } from './page-parts.ts';
import { buyerStep } from './steps/buyer-step.ts';
import { donationStep } from './steps/donation-step.ts';
import { participantsStep } from './steps/participants-step.ts';
import { orderTotals, paymentMethod, paymentStep } from './steps/payment-step.ts';
import { isOnSale, ticketsKnown, ticketsStep } from './steps/tickets-step.ts';
import { waiverStep } from './steps/waiver-step.ts';

export interface Notice {
  text: string | Html;
  kind: 'info' | 'bad';
}

/** What the form shows, with or without a session (the organizer app's preview has none). */
export interface FormContent {
  found: EventWithTickets;
  /** the partner's choice of tickets (a session's line items); none in the preview */
  lineItems?: readonly { ticket_type_id: string }[];
  now: Date;
  stage: Stage;
  values: FormValues;
  errors: FieldError[];
  notice?: Notice | null;
  status?: number;
  /** the refusal's error_code, on the error summary */
  errorCode?: string;
  /** the values are the buyer's, sent back (a language switch): closing an embedded checkout asks */
  typed?: boolean;
  /** per ticket type held in full by unpaid orders, when the first of those holds ends */
  heldUntil?: Map<string, Date>;
}

/** The checkout's form: the session's. */
export interface FormView extends FormContent {
  session: PageSession;
}

interface Bar {
  stage: Stage;
  total: string;
  /** prompt: the button may send a payment prompt (the script's words when its answer is lost) */
  primary: { action: string; label: string; busy?: string; prompt?: boolean };
  back?: { stage: Stage; label: string };
}

/**
 * The step's sticky footer: the order's total and the main button, always in reach on a small
 * screen. Back comes after the main button in the form, so Enter in a field moves forward.
 */
function bar({ stage, total, primary, back }: Bar): Html {
  const m = msg().form;
  // data-to-fill: the page script says there how many required fields of the step are still empty
  return html`<div class="bar">
    <p class="bar-total">
      <span><span class="muted">${m.total}</span> <strong data-total>${total}</strong></span>
      <span class="to-fill" id="to-fill-${stage}" data-to-fill hidden></span>
    </p>
    <div class="bar-buttons">
      <button
        type="submit"
        name="action"
        value="${primary.action}"
        class="primary"
        data-primary
        ${attr('data-prompt', primary.prompt)}${attr('data-busy', primary.busy)}
      >
        ${primary.label}
      </button>
      ${back ? html`<button type="submit" name="action" value="${back.stage}" class="back" data-back>${back.label}</button>` : ''}
    </div>
  </div>`;
}

function stepSection(
  view: FormContent,
  stage: Stage,
  place: { position: number | null; count: number; title: string },
  content: Html,
): Html {
  // A step without a number (tickets chosen for the buyer) has no count for the script to fill;
  // the only step of an order says none ("Step 1 of 1" tells nothing), though the script may.
  const count =
    place.position === null
      ? ''
      : html`<span class="step-count" data-step-count
          >${place.count > 1 ? msg().form.stepCount(place.position, place.count) : ''}</span
        >`;
  return html`<section
    class="step"
    data-step="${stage}"
    aria-labelledby="h-${stage}"
    ${attr('hidden', view.stage !== stage)}
  >
    <h2 id="h-${stage}" data-title="${place.title}" tabindex="-1">${count}${place.title}</h2>
    ${content}
  </section>`;
}

/** The total shown in the bar: the chosen network's (or the number's, or the default method's) fees included. */
function totalText(view: FormContent): { text: string; amount: number } {
  const { values, found } = view;
  const offer = offerOf(found);
  const t = orderTotals(values, found, paymentMethod(values, offer) ?? offer.first);
  const m = msg().form;
  if (t.count === 0) return { text: m.noTicketsYet, amount: 0 };
  return { text: t.total > 0 ? formatMoney(t.total, found.event.currency) : m.free, amount: t.total };
}

function steps(view: FormContent, errors: Map<string, string>): Html {
  const { found, values } = view;
  const { event, organization } = found;
  const typesOnSale = found.ticketTypes.filter((tt) => isOnSale(tt, view.now));
  const total = totalText(view);
  // The payment step shows when the order costs something, or while the tickets are not chosen.
  const paying = organization.paymentsEnabled && (total.amount > 0 || values.items.length === 0);
  const known = ticketsKnown(found, view.now, view.lineItems ?? []);
  const skipped = known ? 1 : 0;
  const count = (paying ? 3 : 2) - skipped;
  const m = msg().form;
  const payLabel = m.pay(total.text);
  const details = html`${buyerStep(values, errors, {
    optional: phoneOptional(values, found),
    canBe: !event.phoneRequired,
    country: offerOf(found).country,
  })}
  ${participantsStep(view, errors, typesOnSale)}
  ${event.waiverRequired ? waiverStep(event, values, errors) : ''}
  ${organization.paymentsEnabled && event.donationsEnabled ? donationStep(found, values, errors) : ''}`;
  const sections: [Stage, Html][] = [
    [
      'tickets',
      stepSection(
        view,
        'tickets',
        { position: known ? null : 1, count, title: m.tickets },
        html`${ticketsStep(view, errors)}
        ${bar({ stage: 'tickets', total: total.text, primary: { action: 'details', label: m.continue } })}`,
      ),
    ],
    [
      'details',
      stepSection(
        view,
        'details',
        { position: 2 - skipped, count, title: m.yourDetails },
        html`${details}
        ${bar({
          stage: 'details',
          total: total.text,
          primary: paying
            ? { action: 'payment', label: m.continue }
            : { action: 'pay', label: m.confirmRegistration, busy: m.confirming },
          back: { stage: 'tickets', label: known ? m.changeTickets : m.back },
        })}`,
      ),
    ],
  ];
  if (organization.paymentsEnabled) {
    sections.push([
      'payment',
      stepSection(
        view,
        'payment',
        { position: 3 - skipped, count: 3 - skipped, title: m.payment },
        html`${paymentStep(values, found, errors)}
        ${bar({
          stage: 'payment',
          total: total.text,
          primary: { action: 'pay', label: payLabel, busy: m.sendingPrompt, prompt: true },
          back: { stage: 'details', label: m.back },
        })}`,
      ),
    ]);
  }
  // The step shown comes first, so that Enter in one of its fields presses its main button (the
  // first submit button of the form) when the page runs without the script.
  const shown = sections.filter(([stage]) => stage === view.stage);
  const rest = sections.filter(([stage]) => stage !== view.stage);
  return html`<input type="hidden" name="from" value="${view.stage}" data-from />
    ${[...shown, ...rest].map(([, section]) => section)}`;
}

/** Where the form goes: the session's order route, or the preview's own page (a GET: it sells nothing). */
interface FormTarget {
  method: 'get' | 'post';
  action: string;
  /** fields the target needs beside the form's own (the preview's language) */
  hidden?: Record<string, string>;
}

/** The form's id: the language switch at the top of the page submits it (layout.ts). */
const FORM_ID = 'checkout';

function checkoutForm(view: FormContent, target: FormTarget): { form: Html; title: string } {
  const { found, stage } = view;
  const { event } = found;
  const { byField, summary } = collectErrors(view.errors, found);
  const form = html`<form
    id="${FORM_ID}"
    method="${target.method}"
    action="${target.action}"
    novalidate
    data-checkout
    data-stage="${stage}"
    data-currency="${event.currency}"
    data-max-tickets="${MAX_TICKETS_PER_ORDER}"
    ${attr('data-tickets-known', ticketsKnown(found, view.now, view.lineItems ?? []))}${attr('data-typed', view.typed)}
  >
    ${Object.entries(target.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    ${errorSummary(summary, view.errorCode)}
    ${view.notice ? html`<p class="notice${view.notice.kind === 'bad' ? ' bad' : ''}">${view.notice.text}</p>` : ''}
    ${steps(view, byField)}
  </form>`;
  const m = msg().form;
  return { form, title: summary.length > 0 ? m.errorTitle(event.name) : m.pageTitle(event.name) };
}

export function renderFormPage(view: FormView): string {
  const { session, found, stage } = view;
  const { form, title } = checkoutForm(
    { lineItems: session.lineItems, ...view },
    { method: 'post', action: checkoutPath(session.id, '/order') },
  );
  const main = html`${form} ${cancelForm(session)}`;
  return layout({
    title,
    main,
    session,
    found,
    compact: stage !== 'tickets',
    languageForm: FORM_ID,
    form: true,
  }).value;
}

/**
 * The form as a buyer sees it, for the organizer app's preview: no session (so no cancel form
 * and no language links of a session), `banner` above the event, and every button a GET of
 * `action` that only shows the next step.
 */
export function renderFormPreview(
  view: FormContent & { action: string; hidden: Record<string, string>; banner: Html; titlePrefix: string },
): string {
  const { form, title } = checkoutForm(view, { method: 'get', action: view.action, hidden: view.hidden });
  return layout({
    title: `${view.titlePrefix}${title}`,
    main: form,
    found: view.found,
    banner: view.banner,
    compact: view.stage !== 'tickets',
    form: true,
  }).value;
}
