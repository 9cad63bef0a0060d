// GET /checkout/<session_id>/pay: the wait screen, its outcomes with the retry form, or the
// confirmation once paid. Read-only: a reload creates nothing and sends nothing.
import type { AppContext } from '../../context.ts';
import { loadSessionPayment } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { startErrorText } from '../views/outcomes.ts';
import { renderWaitPage } from '../views/status-pages.ts';
import { renderExpiredPage } from '../views/end-pages.ts';
import { loadSession, seeOther, sendConfirmation, sendPage, type PageHandler } from './page-replies.ts';
import { waitView } from './wait-replies.ts';

export function showPayment(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const loaded = await loadSession(ctx, request, reply);
    if (!loaded) return reply;
    const { session, found } = loaded;
    const { order, attempt } = await loadSessionPayment(ctx.database.db, session);
    // ?tab=1: the tab an embedded checkout's card page opened, back from it (payment-return.ts)
    const tab = session.uiMode === 'embedded' && (request.query as { tab?: unknown }).tab === '1';
    if (order?.status === 'paid') return sendConfirmation(ctx, reply, { loaded, order, justPaid: true, tab });
    if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
    if (!order) return seeOther(reply, checkoutPath(session.id));
    const code = (request.query as { error?: unknown }).error;
    const startError = startErrorText(typeof code === 'string' ? code.slice(0, 40) : undefined);
    // ?resent=1: the resend's redirect, so the wait screen confirms the new prompt and its time
    const resent = (request.query as { resent?: unknown }).resent === '1';
    // ?card=1: a card payment just started (card-page.ts): on to the card page
    const toCardPage = (request.query as { card?: unknown }).card === '1';
    const view = await waitView(ctx, { loaded, order, attempt, startError, resent, toCardPage, tab });
    return sendPage(reply, 200, renderWaitPage(view));
  };
}
