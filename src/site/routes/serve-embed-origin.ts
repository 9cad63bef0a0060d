// GET /checkout/<session_id>/embed.js: the origin an embedded session may be shown on, for
// checkout.js on the partner's page, so that a page on another origin hears
// embed_origin_mismatch at once instead of waiting out the load time-out. A script, not JSON: a
// page's Content-Security-Policy must allow scripts from this host for checkout.js itself, but
// need not allow connections to it (docs/decisions/embed-origin-mismatch.md). It writes the origin
// on its own <script> element and nothing else; it says nothing the checkout page's own
// frame-ancestors header does not: nothing for a redirect session, a 404 for no session.
import type { AppContext } from '../../context.ts';
import { findCheckoutSessionById } from '../../checkout/index.ts';
import { notFound, sendError } from '../../platform/index.ts';
import { framePolicyFor, NO_FRAMING, setPageHeaders } from '../security-headers.ts';
import type { PageHandler, SessionParams } from './page-replies.ts';

export function serveEmbedOrigin(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const { sessionId } = request.params as SessionParams;
    const session = await findCheckoutSessionById(ctx.database.db, sessionId);
    setPageHeaders(reply, NO_FRAMING);
    if (!session) return sendError(request, reply, notFound('checkout session'));
    // The origin frame-ancestors names, normalized (URL.origin) as browsers compare it with the
    // page's; as a JSON string, which is a JavaScript string literal.
    const origin = framePolicyFor(session).embedOrigin;
    return reply
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .type('application/javascript; charset=utf-8')
      .send(origin ? `document.currentScript.dataset.embedOrigin=${JSON.stringify(origin)};` : '');
  };
}
