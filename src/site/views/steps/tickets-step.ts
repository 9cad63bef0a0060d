// The tickets list of the first step: each ticket type with its price for the chosen network, what
// is known about it (distance, sale dates, minimum age, how many are left) and a quantity.
import {
  priceByMethod,
  remainingOf,
  type EventWithTickets,
  type TicketTypeRow,
} from '../../../events/index.ts';
import { MAX_TICKETS_PER_ORDER } from '../../../orders/index.ts';
import type { PaymentMethod } from '../../../payments/index.ts';
import { fieldId, formMethod } from '../../checkout-form.ts';
import { offerOf } from '../../offer-words.ts';
import { formatDate, formatMoney, formatTime } from '../../format.ts';
import { localMethodName as methodName } from '../../method-names.ts';
import { attr, html, type Html } from '../../../platform/index.ts';
import { controlAria, errorNote } from '../fields.ts';
import { INTL_LOCALES } from '../../messages/catalog.ts';
import { locale, msg } from '../../messages/current.ts';
import type { FormContent } from '../form-page.ts';

/** At or below this many left, the page says how many remain. */
const LOW_REMAINING = 10;

/** 'held': none left now, but unpaid holds may still lapse and free some. */
type SaleState = 'on_sale' | 'not_yet' | 'ended' | 'sold_out' | 'held';

function saleState(tt: TicketTypeRow, now: Date): SaleState {
  if (now.getTime() < tt.salesStart.getTime()) return 'not_yet';
  if (now.getTime() >= tt.salesEnd.getTime()) return 'ended';
  if (tt.paidCount >= tt.capacity) return 'sold_out';
  if (remainingOf(tt) <= 0) return 'held';
  return 'on_sale';
}

/** Whether any ticket type is taken only by holds: the page then asks when the first one ends. */
export function anyOnlyHeld(found: EventWithTickets, now: Date): boolean {
  return found.ticketTypes.some((tt) => saleState(tt, now) === 'held');
}

export function isOnSale(tt: TicketTypeRow, now: Date): boolean {
  return saleState(tt, now) === 'on_sale';
}

/**
 * Whether the buyer need not choose tickets: the partner chose them (`lineItems` still on sale), or
 * only one type is on sale. The checkout then starts on the details step and counts from there.
 */
export function ticketsKnown(
  found: EventWithTickets,
  now: Date,
  lineItems: readonly { ticket_type_id: string }[],
): boolean {
  const onSale = found.ticketTypes.filter((tt) => isOnSale(tt, now));
  return onSale.length === 1 || lineItems.some((item) => onSale.some((tt) => tt.id === item.ticket_type_id));
}

/** The price a buyer pays on `method`, and the fee it includes, as the page writes them. */
function priceTexts(tt: TicketTypeRow, found: EventWithTickets, method: PaymentMethod) {
  const currency = found.event.currency;
  const p = priceByMethod(tt.priceMinor, currency, found.organization.fees, offerOf(found).methods)[method]!;
  return {
    total: formatMoney(p.total_minor, currency),
    fee: p.laces_fee_minor > 0 ? msg().form.feeIncluded(formatMoney(p.laces_fee_minor, currency)) : '',
  };
}

/** A text that follows the chosen network: the page script swaps in data-<method key> (data-momo). */
function byMethod(found: EventWithTickets, text: (method: PaymentMethod) => string): Html {
  const each = offerOf(found).methods.map((m) => html` data-${m.key}="${text(m.key)}"`);
  return html`data-method-price${each}`;
}

function priceLine(tt: TicketTypeRow, view: FormContent): Html {
  if (tt.priceMinor === 0) return html`<p class="price"><strong>${msg().form.free}</strong></p>`;
  const texts = (method: PaymentMethod) => priceTexts(tt, view.found, method);
  const shownText = texts(shownMethod(view));
  return html`<p class="price">
    <strong ${byMethod(view.found, (method) => texts(method).total)}>${shownText.total}</strong>
    <span class="muted" ${byMethod(view.found, (method) => texts(method).fee)}>${shownText.fee}</span>
  </p>`;
}

/** The method the prices are shown for until the buyer picks one: the form's, else the default. */
function shownMethod(view: Pick<FormContent, 'values' | 'found'>): PaymentMethod {
  const offer = offerOf(view.found);
  return formMethod(offer, view.values.payment_method) ?? offer.first;
}

function ticketFacts(tt: TicketTypeRow, state: SaleState, zone: string): string {
  const m = msg().form;
  const date = (at: Date) => formatDate(at, zone, INTL_LOCALES[locale()]);
  const facts: string[] = [];
  if (tt.distanceKm > 0) facts.push(m.distance(tt.distanceKm));
  if (state === 'not_yet') facts.push(m.onSaleFrom(date(tt.salesStart)));
  else if (state === 'ended') facts.push(m.salesClosed);
  else facts.push(m.onSaleUntil(date(tt.salesEnd)));
  if (tt.minAge > 0) facts.push(m.minimumAge(tt.minAge));
  return facts.join(' · ');
}

/** The quantity: the data-* attributes carry what the page script needs for live totals. */
function quantitySelect(view: FormContent, tt: TicketTypeRow, id: string, error: string | undefined): Html {
  const max = Math.min(remainingOf(tt), MAX_TICKETS_PER_ORDER);
  const chosen = view.values.quantities.get(tt.id) ?? 0;
  const methods = offerOf(view.found).methods;
  const fees = priceByMethod(tt.priceMinor, view.found.event.currency, view.found.organization.fees, methods);
  return html`<select
    class="qty"
    id="${id}"
    name="qty.${tt.id}"
    data-qty
    data-tt="${tt.id}"
    data-name="${tt.name}"
    data-price="${tt.priceMinor}"
    ${methods.map((m) => html`data-fee-${m.key}="${fees[m.key]!.laces_fee_minor}" `)}
    ${controlAria(fieldId('items'), null, error)}
  >
    ${Array.from({ length: max + 1 }, (_, n) => html`<option value="${n}" ${attr('selected', n === chosen)}>${n}</option>`)}
  </select>`;
}

/** Sold out, held by others for now (with when the first hold may end), or few left. */
function availability(view: FormContent, tt: TicketTypeRow, state: SaleState): Html | '' {
  const remaining = remainingOf(tt);
  const m = msg().form;
  if (state === 'sold_out') return html`<p class="soldout">${m.soldOut}</p>`;
  if (state === 'held') {
    const until = view.heldUntil?.get(tt.id);
    const when = until ? m.mayFreeUpAfter(formatTime(until, view.found.event.timezone)) : '';
    return html`<p class="low">${m.allHeld}${when}</p>`;
  }
  return state === 'on_sale' && remaining <= LOW_REMAINING
    ? html`<p class="low">${m.onlyLeft(remaining)}</p>`
    : '';
}

function ticketRow(
  view: FormContent,
  tt: TicketTypeRow,
  place: { first: boolean; error?: string | undefined },
): Html {
  const { found, now } = view;
  const state = saleState(tt, now);
  const id = place.first ? fieldId('items') : `q-${tt.id}`;
  return html`<div class="ticket">
    <div class="info">
      <p class="name" id="tn-${tt.id}">${tt.name}</p>
      ${tt.description ? html`<p class="muted">${tt.description}</p>` : ''} ${priceLine(tt, view)}
      <p class="muted">${ticketFacts(tt, state, found.event.timezone)}</p>
      ${availability(view, tt, state)}
    </div>
    <div class="qty-box">
      <label for="${id}"
        >${msg().form.quantity}<span class="vh">${msg().form.quantityOf(tt.name)}</span></label
      >
      ${
        state === 'on_sale'
          ? quantitySelect(view, tt, id, place.error)
          : html`<select class="qty" id="${id}" disabled>
              <option>0</option>
            </select>`
      }
    </div>
  </div>`;
}

export function ticketsStep(view: FormContent, byField: Map<string, string>): Html {
  const { found } = view;
  const error = byField.get('items');
  const m = msg().form;
  const anyOnSale = found.ticketTypes.some((tt) => isOnSale(tt, view.now));
  const anyPaid = found.ticketTypes.some((tt) => tt.priceMinor > 0);
  // Which network the fees are for says something only where the event offers more than one.
  const feesVary = anyPaid && offerOf(found).methods.length > 1;
  // The error summary links to the first quantity; with none on sale, to the list itself.
  const listId = anyOnSale ? html`` : html` id="${fieldId('items')}" tabindex="-1"`;
  let firstOnSale = true;
  return html`<fieldset class="field${error ? ' invalid' : ''}" data-field="${fieldId('items')}" ${listId}>
    <legend>${m.chooseTickets(MAX_TICKETS_PER_ORDER)}</legend>
    ${feesVary ? html`<p class="hint" ${byMethod(found, (method) => m.feesShownFor(methodName(method)))}>${m.feesShownFor(methodName(shownMethod(view)))}</p>` : ''}
    ${errorNote(fieldId('items'), error)}
    ${found.ticketTypes.map((tt) => {
      const onSale = isOnSale(tt, view.now);
      const row = ticketRow(view, tt, { first: onSale && firstOnSale, error });
      if (onSale) firstOnSale = false;
      return row;
    })}
  </fieldset>`;
}
