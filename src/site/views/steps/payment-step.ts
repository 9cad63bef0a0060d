// The payment step: the order's summary (folded), a tile for each method the event offers (its
// currency's: MTN and Airtel for UGX, M-Pesa alone for KES, shown as chosen when alone; and card
// where the organization offers it), and the number the prompt goes to, which starts as the
// buyer's own. The network starts as the one the number belongs to; the page script keeps it
// following the number, and hides the number while card is chosen (card asks for none).
import { feeFor, methodFee, type EventWithTickets } from '../../../events/index.ts';
import { normalizePhone } from '../../../orders/index.ts';
import type { PaymentMethod } from '../../../payments/index.ts';
import { fieldId, formMethod, parseDonation, participantName, type FormValues } from '../../checkout-form.ts';
import { offeredNetworkOf, paidOnPage, type EventMethods } from '../../event-methods.ts';
import { formatMoney } from '../../format.ts';
import { localMethodName } from '../../method-names.ts';
import { html, type Html } from '../../../platform/index.ts';
import { errorNote, GUESS_NOTE, methodTile, onlyMethod, textField } from '../fields.ts';
import { msg } from '../../messages/current.ts';
import { offerFills, offerOf } from '../../offer-words.ts';

/** The number the prompt goes to: as typed, else the buyer's. */
function paymentPhone(values: FormValues): string {
  return values.payment_phone.trim() !== '' ? values.payment_phone : values.buyer.phone;
}

/** The chosen network (the only one, when alone), else the one the payment number is on, else none. */
export function paymentMethod(values: FormValues, offer: EventMethods): PaymentMethod | null {
  const chosen = formMethod(offer, values.payment_method);
  if (chosen) return chosen;
  const msisdn = normalizePhone(paymentPhone(values), offer.country);
  return msisdn ? offeredNetworkOf(offer, msisdn) : null;
}

export interface OrderTotals {
  count: number;
  fee: number;
  donation: number;
  total: number;
}

/** What the order comes to on `method`, as the server will compute it (fees per ticket). */
export function orderTotals(values: FormValues, found: EventWithTickets, method: PaymentMethod): OrderTotals {
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const offer = offerOf(found);
  const priced = offer.methods.find((m) => m.key === method) ?? offer.methods[0]!;
  let fee = 0;
  let subtotal = 0;
  for (const item of values.items) {
    const price = byId.get(item.ticket_type_id)?.priceMinor ?? 0;
    subtotal += price;
    fee += feeFor(price, methodFee(found.organization.fees, priced), offer.unit);
  }
  const donation = parseDonation(values.donation, found.event.currency) ?? 0;
  return { count: values.items.length, fee, donation, total: subtotal + fee + donation };
}

/** The folded summary: each ticket, the fee, the donation and the total; who runs and who pays. */
function orderSummary(values: FormValues, found: EventWithTickets, method: PaymentMethod): Html {
  const currency = found.event.currency;
  const money = (n: number) => formatMoney(n, currency);
  const t = orderTotals(values, found, method);
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const line = (label: string, amount: number) =>
    html`<tr>
      <th scope="row">${label}</th>
      <td class="num">${money(amount)}</td>
    </tr>`;
  const names = values.items.map(
    (item, i) => `${participantName(values, i).trim()} (${byId.get(item.ticket_type_id)?.name ?? ''})`,
  );
  const m = msg().form;
  return html`<details class="order-summary" data-summary>
    <summary>${m.orderSummary} (<span data-summary-count>${m.ticketCount(t.count)}</span>)</summary>
    <table class="summary" data-summary-table>
      ${values.items.map((item) => line(byId.get(item.ticket_type_id)?.name ?? '', byId.get(item.ticket_type_id)?.priceMinor ?? 0))}
      ${t.fee ? line(m.serviceFee(localMethodName(method)), t.fee) : ''}
      ${t.donation ? line(m.donation, t.donation) : ''}
      <tr class="total">
        <th scope="row">${m.total}</th>
        <td class="num">${money(t.total)}</td>
      </tr>
    </table>
    <dl class="facts" data-summary-facts>
      <dt>${names.length === 1 ? m.participantOne : m.participantMany}</dt>
      <dd>${names.join(', ')}</dd>
      <dt>${m.buyer}</dt>
      <dd>
        ${[values.buyer.name, values.buyer.email, values.buyer.phone]
          .map((v) => v.trim())
          .filter(Boolean)
          .join(', ')}
      </dd>
    </dl>
  </details>`;
}

export function paymentStep(values: FormValues, found: EventWithTickets, errors: Map<string, string>): Html {
  const methodError = errors.get('payment_method');
  const boxId = fieldId('payment_method');
  const offer = offerOf(found);
  const chosen = paymentMethod(values, offer);
  const m = msg().form;
  const tile = (method: PaymentMethod, first: boolean) =>
    methodTile({
      boxId,
      method,
      first,
      checked: chosen === method,
      error: methodError,
      ...(paidOnPage(offer, method) && { detail: m.cardPage }),
    });
  const card = offer.methods.some((pm) => paidOnPage(offer, pm.key));
  const methods =
    offer.methods.length === 1
      ? onlyMethod({ boxId, method: offer.first, legend: m.payWith, error: methodError })
      : html`<fieldset class="field tiles${methodError ? ' invalid' : ''}" data-field="${boxId}">
          <legend>${m.payWith}</legend>
          ${errorNote(boxId, methodError)} ${offer.methods.map((pm, i) => tile(pm.key, i === 0))}
          ${GUESS_NOTE}
        </fieldset>`;
  return html`${orderSummary(values, found, chosen ?? offer.first)} ${methods}
  ${values.payment_phone.trim() === '' ? html`<input type="hidden" name="payment_phone_prefill" value="${values.buyer.phone}" />` : ''}
  ${textField({
    id: fieldId('payment_phone'),
    name: 'payment_phone',
    label: m.mobileMoneyNumber,
    type: 'tel',
    value: paymentPhone(values),
    error: errors.get('payment_phone'),
    hint: card ? `${m.promptGoesTo} ${m.notForCard}` : m.promptGoesTo,
    extra: html` autocomplete="tel" inputmode="tel" placeholder="${offerFills(offer).example}" data-pay-phone`,
  })}`;
}
