// The hosted checkout on the SITE host: GET /checkout/<session_id> and the form, payment, status,
// embed origin and cancel routes under it, the page's static assets under /assets (and
// /favicon.ico), and runners' tickets under /tickets. HTML pages only (errors too), urlencoded
// forms only, per-IP rate limit, no cookies, security headers on all.
// One handler per file in routes/; this file only wires them.
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import { SITE_ICON } from './assets.ts';
import { parseUrlEncoded } from './checkout-form.ts';
import { confirmCancel } from './routes/confirm-cancel.ts';
import { leaveCheckout } from './routes/leave-checkout.ts';
import { pageScope } from './routes/page-scope.ts';
import { readStatus } from './routes/read-status.ts';
import { resendPrompt } from './routes/resend-prompt.ts';
import { retryPayment } from './routes/retry-payment.ts';
import { serveAsset } from './routes/serve-asset.ts';
import { serveEmbedOrigin } from './routes/serve-embed-origin.ts';
import { showCheckout } from './routes/show-checkout.ts';
import { showPayment } from './routes/show-payment.ts';
import { returnFromPayment } from './routes/payment-return.ts';
import { serveTicketWorker, showTicket, TICKET_PAGE_PARTS } from './routes/show-ticket.ts';
import { submitOrder } from './routes/submit-order.ts';
import { switchPayment } from './routes/switch-payment.ts';
import { renderErrorPage, renderNotFoundPage } from './views/end-pages.ts';
import { renderTicketNotFound } from './views/ticket-page.ts';

/** Pages are not part of the API's OpenAPI document. */
const HIDDEN = { schema: { hide: true } };

export async function registerSiteRoutes(app: Host, ctx: AppContext): Promise<void> {
  await app.register(
    async (scope) => {
      pageScope(scope, ctx, () => renderErrorPage({ status: 404, requestId: '' }));
      scope.get('/:file', HIDDEN, serveAsset);
    },
    { prefix: '/assets' },
  );
  // Browsers ask for /favicon.ico on pages that name no icon (a ticket saved offline, an error
  // page): they get the hashed icon the checkout pages link to.
  app.get('/favicon.ico', HIDDEN, (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=86400').redirect(SITE_ICON.path, 301),
  );

  await app.register(
    async (scope) => {
      pageScope(scope, ctx, renderNotFoundPage);
      // Forms only: a JSON or other body is 415 (an error page).
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string' },
        (_request, body, done) => done(null, parseUrlEncoded(body as string)),
      );
      scope.get('/return/:reference', HIDDEN, returnFromPayment(ctx));
      scope.get('/:sessionId', HIDDEN, showCheckout(ctx));
      scope.post('/:sessionId/order', HIDDEN, submitOrder(ctx));
      scope.get('/:sessionId/pay', HIDDEN, showPayment(ctx));
      scope.get('/:sessionId/status.json', HIDDEN, readStatus(ctx));
      scope.get('/:sessionId/embed.js', HIDDEN, serveEmbedOrigin(ctx));
      scope.post('/:sessionId/retry', HIDDEN, retryPayment(ctx));
      scope.post('/:sessionId/resend', HIDDEN, resendPrompt(ctx));
      scope.post('/:sessionId/switch', HIDDEN, switchPayment(ctx));
      scope.get('/:sessionId/cancel', HIDDEN, confirmCancel(ctx));
      scope.post('/:sessionId/cancel', HIDDEN, leaveCheckout(ctx));
    },
    { prefix: '/checkout' },
  );

  // A runner's ticket, and the service worker that keeps it for offline use (scope /tickets/).
  await app.register(
    async (scope) => {
      pageScope(scope, ctx, renderTicketNotFound, TICKET_PAGE_PARTS);
      scope.get('/sw.js', HIDDEN, serveTicketWorker);
      scope.get('/:token', HIDDEN, showTicket(ctx));
    },
    { prefix: '/tickets' },
  );
}
