// GET /checkout/<session_id>: the page for the session's state. The form (with a note when an
// unpaid order of the session holds tickets), the confirmation again once paid, or a dead end.
// The form starts from the session's last unpaid order, so what the buyer typed survives a hold
// that ran out, a cancelled prompt and a restart of the service.
import type { CheckoutSessionRow } from '../../checkout/index.ts';
import type { AppContext } from '../../context.ts';
import { registrationsOf, type OrderRow, type RegistrationRow } from '../../orders/index.ts';
import type { PaymentAttemptRow } from '../../payments/index.ts';
import { readForm, type FormValues } from '../checkout-form.ts';
import { nationalPhone } from '../format.ts';
import { msg } from '../messages/current.ts';
import { html } from '../../platform/index.ts';
import { isOpenAttempt, loadSessionPayment } from '../place-order.ts';
import type { Notice } from '../views/form-page.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { isOnSale, ticketsKnown } from '../views/steps/tickets-step.ts';
import { renderClosedPage, renderExpiredPage } from '../views/end-pages.ts';
import {
  loadSession,
  saleOpen,
  sendConfirmation,
  sendFormPage,
  sendPage,
  type Loaded,
  type PageHandler,
} from './page-replies.ts';

type SessionPayment = Awaited<ReturnType<typeof loadSessionPayment>>;

/** What the form says about the session's last unpaid order, if it has one. */
function unpaidNotice(
  session: CheckoutSessionRow,
  { order, attempt }: SessionPayment,
  now: Date,
): Notice | null {
  const m = msg().form;
  const lapsed = order?.status === 'pending' && (order.holdExpiresAt?.getTime() ?? 0) <= now.getTime();
  if (order?.status === 'expired' || order?.status === 'cancelled' || lapsed) {
    return { kind: 'info', text: m.released };
  }
  if (order?.status !== 'pending') return null;
  const link = html`<a href="${checkoutPath(session.id, '/pay')}">${m.seePaymentStatus}</a>`;
  return isOpenAttempt(attempt ?? undefined)
    ? { kind: 'info', text: html`${m.promptWaiting} ${link}.` }
    : { kind: 'info', text: html`${m.heldUnpaid} ${link}${m.orStartAgain}` };
}

/** The form as the unpaid order had it: tickets still on sale, participants, buyer, payment. */
function orderBody(
  loaded: Loaded,
  order: OrderRow,
  regs: RegistrationRow[],
  attempt: PaymentAttemptRow | null,
): Record<string, string> {
  const onSale = loaded.found.ticketTypes.filter((tt) => isOnSale(tt, loaded.now));
  // In the form's order: ticket type, then ordinal.
  const kept = onSale.flatMap((tt) => regs.filter((r) => r.ticketTypeId === tt.id));
  const body: Record<string, string> = {
    'buyer.name': order.buyerName,
    'buyer.email': order.buyerEmail,
    'buyer.phone': nationalPhone(order.buyerPhone),
    donation_minor: order.donationTotal > 0 ? String(order.donationTotal) : '',
    payment_method: attempt?.method ?? order.paymentMethod ?? '',
    payment_phone: attempt ? nationalPhone(attempt.msisdn) : '',
  };
  if (order.waiverAcceptedAt) body.waiver_accepted = 'yes';
  if (kept[0]?.participantName === order.buyerName) body.runner_is_buyer = 'yes';
  for (const tt of onSale) {
    const n = kept.filter((r) => r.ticketTypeId === tt.id).length;
    if (n > 0) body[`qty.${tt.id}`] = String(n);
  }
  kept.forEach((r, i) => {
    body[`items[${i}].ticket_type_id`] = r.ticketTypeId;
    body[`items[${i}].participant_name`] = r.participantName;
    body[`items[${i}].date_of_birth`] = r.dateOfBirth ?? '';
    for (const [key, value] of Object.entries(r.answers)) body[`items[${i}].answers.${key}`] = value;
  });
  return body;
}

/**
 * The form to start from: the last unpaid order's, else a new one (the session's prefill, and one
 * ticket chosen when only one type is on sale).
 */
async function startValues(ctx: AppContext, loaded: Loaded, payment: SessionPayment): Promise<FormValues> {
  const { session, found, now } = loaded;
  const { order, attempt } = payment;
  let body: Record<string, string>;
  if (order && order.status !== 'paid') {
    const regs = (await registrationsOf(ctx.database.db, [order.id])).get(order.id) ?? [];
    body = orderBody(loaded, order, regs, attempt);
  } else {
    const onSale = found.ticketTypes.filter((tt) => isOnSale(tt, now));
    body = { runner_is_buyer: 'yes' };
    // the partner's choice of tickets, of those still on sale; else the only ticket there is
    const chosen = session.lineItems.filter((item) => onSale.some((tt) => tt.id === item.ticket_type_id));
    for (const item of chosen) body[`qty.${item.ticket_type_id}`] = String(item.quantity);
    if (chosen.length === 0 && onSale.length === 1) body[`qty.${onSale[0]!.id}`] = '1';
  }
  return readForm(body, found.ticketTypes, found.event.additionalQuestions, session);
}

export function showCheckout(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const loaded = await loadSession(ctx, request, reply);
    if (!loaded) return reply;
    const { session, found } = loaded;
    if (loaded.status === 'complete') {
      const { order } = await loadSessionPayment(ctx.database.db, session);
      if (order?.status === 'paid') return sendConfirmation(ctx, reply, { loaded, order, justPaid: false });
    }
    if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
    if (!saleOpen(loaded)) return sendPage(reply, 200, renderClosedPage(session, found));
    const payment = await loadSessionPayment(ctx.database.db, session);
    const values = await startValues(ctx, loaded, payment);
    const notice = unpaidNotice(session, payment, loaded.now);
    // tickets the partner chose, or the only type on sale: the buyer starts (or, with an unpaid
    // order's values, starts again) on their details ("Change tickets" goes back to the quantities)
    const known = values.items.length > 0 && ticketsKnown(found, loaded.now, session.lineItems);
    return sendFormPage(ctx, reply, loaded, { values, stage: known ? 'details' : 'tickets', notice });
  };
}
