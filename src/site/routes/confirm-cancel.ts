// GET /checkout/<session_id>/cancel: the cancel step while a payment prompt is on the buyer's
// phone (the wait screen's Cancel, without the script). Read-only; with no prompt out there is
// nothing to warn about, so it goes back to the page the buyer came from.
import type { AppContext } from '../../context.ts';
import { loadSessionPayment } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { isOpen, renderCancelConfirmPage } from '../views/status-pages.ts';
import { renderExpiredPage } from '../views/end-pages.ts';
import { loadSession, seeOther, sendPage, type PageHandler } from './page-replies.ts';
import { waitView } from './wait-replies.ts';

export function confirmCancel(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const loaded = await loadSession(ctx, request, reply);
    if (!loaded) return reply;
    const { session, found } = loaded;
    const { order, attempt } = await loadSessionPayment(ctx.database.db, session);
    if (order?.status !== 'paid' && loaded.status !== 'open') {
      return sendPage(reply, 410, renderExpiredPage(session, found));
    }
    if (order?.status !== 'pending' || !attempt || !isOpen(attempt)) {
      return seeOther(reply, checkoutPath(session.id, order ? '/pay' : ''));
    }
    return sendPage(
      reply,
      200,
      renderCancelConfirmPage(await waitView(ctx, { loaded, order, attempt }), attempt),
    );
  };
}
