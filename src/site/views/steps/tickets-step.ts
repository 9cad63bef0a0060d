// The tickets step: each ticket type with its price for the chosen network, what is known about
// it (distance, sale dates, minimum age, how many are left) and a quantity.
import { remainingOf, type EventWithTickets, type TicketTypeRow } from '../../../events/events.ts';
import { priceByMethod, type PaymentMethod } from '../../../events/fees.ts';
import { MAX_TICKETS_PER_ORDER } from '../../../orders/order-rules.ts';
import { fieldId, isPaymentMethod } from '../../checkout-form.ts';
import { formatDate, formatMoney, methodName } from '../../format.ts';
import { attr, html, type Html } from '../../../platform/html.ts';
import { controlAria, errorNote } from '../fields.ts';
import type { FormView } from '../form-page.ts';

/** At or below this many left, the page says how many remain. */
export const LOW_REMAINING = 10;

type SaleState = 'on_sale' | 'not_yet' | 'ended' | 'sold_out';

function saleState(tt: TicketTypeRow, now: Date): SaleState {
  if (now.getTime() < tt.salesStart.getTime()) return 'not_yet';
  if (now.getTime() >= tt.salesEnd.getTime()) return 'ended';
  if (remainingOf(tt) <= 0) return 'sold_out';
  return 'on_sale';
}

export function isOnSale(tt: TicketTypeRow, now: Date): boolean {
  return saleState(tt, now) === 'on_sale';
}

function priceText(tt: TicketTypeRow, found: EventWithTickets, method: PaymentMethod): string {
  const currency = found.event.currency;
  if (tt.priceMinor === 0) return 'Free';
  const p = priceByMethod(tt.priceMinor, found.organization.fees)[method];
  return `${formatMoney(tt.priceMinor, currency)} + ${formatMoney(p.laces_fee_minor, currency)} fee = ${formatMoney(p.total_minor, currency)}`;
}

/** The method the prices are shown for until the buyer picks one: the form's, else MTN. */
function shownMethod(view: FormView): PaymentMethod {
  return isPaymentMethod(view.values.payment_method) ? view.values.payment_method : 'momo';
}

function ticketFacts(tt: TicketTypeRow, state: SaleState, zone: string): string {
  const facts: string[] = [];
  if (tt.distanceKm > 0) facts.push(`${tt.distanceKm} km`);
  if (state === 'not_yet') facts.push(`On sale from ${formatDate(tt.salesStart, zone)}`);
  else if (state === 'ended') facts.push('Sales have closed');
  else facts.push(`On sale until ${formatDate(tt.salesEnd, zone)}`);
  if (tt.minAge > 0) facts.push(`Minimum age ${tt.minAge} on race day`);
  return facts.join(' · ');
}

/** The quantity: the data-* attributes carry what the page script needs for live totals. */
function quantitySelect(view: FormView, tt: TicketTypeRow, id: string, error: string | undefined): Html {
  const max = Math.min(remainingOf(tt), MAX_TICKETS_PER_ORDER);
  const chosen = view.values.quantities.get(tt.id) ?? 0;
  const fees = priceByMethod(tt.priceMinor, view.found.organization.fees);
  return html`<select
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
  </select>`;
}

function ticketRow(
  view: FormView,
  tt: TicketTypeRow,
  place: { first: boolean; error?: string | undefined },
): Html {
  const { found, now } = view;
  const state = saleState(tt, now);
  const id = place.first ? fieldId('items') : `q-${tt.id}`;
  const remaining = remainingOf(tt);
  return html`<div class="ticket">
    <div class="info">
      <p class="name" id="tn-${tt.id}">${tt.name}</p>
      ${tt.description ? html`<p class="muted">${tt.description}</p>` : ''}
      <p
        class="price"
        ${tt.priceMinor > 0 ? html`${attr('data-method-price', true)}${attr('data-momo', priceText(tt, found, 'momo'))}${attr('data-airtel', priceText(tt, found, 'airtel'))}` : ''}
      >
        ${priceText(tt, found, shownMethod(view))}
      </p>
      <p class="muted">${ticketFacts(tt, state, found.event.timezone)}</p>
      ${state === 'sold_out' ? html`<p class="soldout">Sold out</p>` : state === 'on_sale' && remaining <= LOW_REMAINING ? html`<p class="low">Only ${remaining} left</p>` : ''}
    </div>
    <div class="qty-box">
      <label for="${id}">Quantity<span class="vh"> of ${tt.name}</span></label>
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

export function ticketsStep(view: FormView, byField: Map<string, string>): Html {
  const { found } = view;
  const error = byField.get('items');
  const anyOnSale = found.ticketTypes.some((tt) => isOnSale(tt, view.now));
  const anyPaid = found.ticketTypes.some((tt) => tt.priceMinor > 0);
  // The error summary links to the first quantity; with none on sale, to the list itself.
  const listId = anyOnSale ? html`` : html` id="${fieldId('items')}" tabindex="-1"`;
  let firstOnSale = true;
  return html`<fieldset class="field${error ? ' invalid' : ''}" data-field="${fieldId('items')}" ${listId}>
    <legend>Choose tickets (at most ${MAX_TICKETS_PER_ORDER} per order)</legend>
    ${anyPaid ? html`<p class="hint" data-method-price data-momo="Fees shown are for MTN Mobile Money." data-airtel="Fees shown are for Airtel Money.">Fees shown are for ${methodName(shownMethod(view))}.</p>` : ''}
    ${errorNote(fieldId('items'), error)}
    ${found.ticketTypes.map((tt) => {
      const onSale = isOnSale(tt, view.now);
      const row = ticketRow(view, tt, { first: onSale && firstOnSale, error });
      if (onSale) firstOnSale = false;
      return row;
    })}
    <p class="muted" data-live-total aria-live="polite"></p>
  </fieldset>`;
}

/** Without the script the tickets are their own page: in the details stage they can be updated. */
export function ticketsNav(inDetails: boolean): Html {
  return inDetails
    ? html`<div class="actions">
        <button type="submit" name="action" value="tickets" data-nojs>Update tickets</button>
        <button type="submit" name="action" value="tickets" class="primary" data-js hidden>Continue</button>
      </div>`
    : html`<div class="actions">
        <button type="submit" name="action" value="tickets" class="primary">Continue</button>
      </div>`;
}
