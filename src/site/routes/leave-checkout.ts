// POST /checkout/<session_id>/cancel: release the hold (unless a prompt is out) and leave, to the
// session's on_cancel_url as given, else to a page that says so.
import type { AppContext } from '../../context.ts';
import { cancelCheckout } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { renderCancelledPage } from '../views/status-pages.ts';
import { loadSession, seeOther, sendPage, type PageHandler } from './page-replies.ts';

export function leaveCheckout(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const loaded = await loadSession(ctx, request, reply);
    if (!loaded) return reply;
    const { session, found } = loaded;
    if (loaded.status === 'complete') return seeOther(reply, checkoutPath(session.id));
    if (loaded.status === 'open') await cancelCheckout(ctx, session);
    if (session.uiMode === 'redirect' && session.cancelUrl && /^https?:\/\//i.test(session.cancelUrl)) {
      return seeOther(reply, session.cancelUrl);
    }
    return sendPage(reply, 200, renderCancelledPage(session, found));
  };
}
