// The review page of the no-script path: the server's own totals from a dry run of the order,
// and the whole form again as hidden fields behind Pay and Change details.
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import type { EventWithTickets } from '../../events/events.ts';
import type { OrderRow } from '../../orders/order-out.ts';
import type { FormValues, PaymentChoice } from '../checkout-form.ts';
import { formatMoney, METHOD_NAMES, methodName } from '../format.ts';
import { html, type Html } from '../../platform/html.ts';
import { layout } from './layout.ts';
import { cancelForm, checkoutPath } from './page-parts.ts';

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

function orderTable(view: ReviewView): Html {
  const { found, values, order, payment } = view;
  const money = (n: number) => formatMoney(n, order.currency);
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const lines = [...values.quantities].map(([id, n]) => {
    const tt = byId.get(id)!;
    return html`<tr>
      <th scope="row">${n} × ${tt.name}</th>
      <td class="num">${money(n * tt.priceMinor)}</td>
    </tr>`;
  });
  return html`<table class="summary">
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
  </table>`;
}

function orderFacts(view: ReviewView): Html {
  const { found, values, payment } = view;
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  return html`<dl class="facts">
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
  </dl>`;
}

export function renderReviewPage(view: ReviewView): string {
  const { session, found, values, order } = view;
  const main = html`<section aria-labelledby="h-review">
      <h2 id="h-review" tabindex="-1">Review and pay</h2>
      ${orderTable(view)} ${orderFacts(view)}
      <form method="post" action="${checkoutPath(session.id, '/order')}" data-once>
        ${hiddenInputs(values)}
        <div class="actions">
          <button type="submit" name="action" value="pay" class="primary" data-busy="Sending…">
            ${order.total > 0 ? `Pay ${formatMoney(order.total, order.currency)}` : 'Confirm registration'}
          </button>
          <button type="submit" name="action" value="edit">Change details</button>
        </div>
      </form>
    </section>
    ${cancelForm(session)}`;
  return layout({ title: `Review – ${found.event.name}`, main, session, found }).value;
}
