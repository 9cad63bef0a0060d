// GET /checkout/<session_id>: the page for the session's state. The form (with a note when an
// unpaid order of the session holds tickets), the confirmation again once paid, or a dead end.
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import type { AppContext } from '../../context.ts';
import { readForm, type FormValues } from '../checkout-form.ts';
import { html } from '../../platform/html.ts';
import { isOpenAttempt, loadSessionPayment } from '../place-order.ts';
import type { Notice } from '../views/form-page.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { isOnSale } from '../views/steps/tickets-step.ts';
import { renderClosedPage, renderExpiredPage } from '../views/status-pages.ts';
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

/** What the form says about the session's pending order, if it has one. */
function pendingNotice(session: CheckoutSessionRow, { order, attempt }: SessionPayment): Notice | null {
  if (order?.status !== 'pending') return null;
  const link = html`<a href="${checkoutPath(session.id, '/pay')}">See the payment status</a>`;
  return isOpenAttempt(attempt ?? undefined)
    ? { kind: 'info', text: html`A payment prompt is waiting on your phone. ${link}.` }
    : { kind: 'info', text: html`Your tickets are held for an unpaid order. ${link}, or start again below.` };
}

/** A new form: the session's prefill, and one ticket chosen when only one type is on sale. */
function startValues({ session, found, now }: Loaded): FormValues {
  const onSale = found.ticketTypes.filter((tt) => isOnSale(tt, now));
  const body: Record<string, string> = { runner_is_buyer: 'yes' };
  if (onSale.length === 1) body[`qty.${onSale[0]!.id}`] = '1';
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
    const notice = pendingNotice(session, await loadSessionPayment(ctx.database.db, session));
    return sendFormPage(ctx, reply, loaded, { values: startValues(loaded), stage: 'tickets', notice });
  };
}
