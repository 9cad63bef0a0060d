// The hosted checkout on the SITE host: GET /checkout/<session_id> and the form, payment, status
// and cancel routes under it, plus the page's two static assets under /assets. HTML pages only
// (errors too), urlencoded forms only, per-IP rate limit, no cookies, security headers on all.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { findCheckoutSessionById, sessionStatus, type CheckoutSessionRow } from '../checkout/sessions.ts';
import type { AppContext } from '../context.ts';
import { findEvent, isRegistrationOpen, type EventWithTickets } from '../events/events.ts';
import { feeFor, PAYMENT_METHODS, type PaymentMethod } from '../events/fees.ts';
import { loadOrderOut, registrationsOf, type OrderRow } from '../orders/order-out.ts';
import { startPayment } from '../payments/collect.ts';
import { ERROR_STATUS, notFound, type FieldError } from '../platform/errors.ts';
import { logRequestError, sendError, toApiError, type Host } from '../platform/http.ts';
import { enforceRateLimit } from '../platform/rate-limit.ts';
import { ASSETS, chooseEncoding } from './assets.ts';
import {
  checkPayment,
  emptyValues,
  itemsMatch,
  parseUrlEncoded,
  readForm,
  type FormBody,
  type FormValues,
} from './checkout-form.ts';
import { normalizePhone } from '../orders/contact.ts';
import { claimPromptSlot, holdLimitMessage, promptLimitMessage, type PromptSlot } from './buyer-limits.ts';
import { nationalPhone } from './format.ts';
import { cancelCheckout, isDeadlock, isOpenAttempt, loadSessionPayment, placeOrder } from './place-order.ts';
import { framePolicyFor, NO_FRAMING, setPageHeaders } from './security-headers.ts';
import {
  checkoutPath,
  renderFormPage,
  renderReviewPage,
  type FormView,
  type Notice,
} from './views/form-page.ts';
import { html } from './html.ts';
import {
  renderCancelledPage,
  renderClosedPage,
  renderConfirmationPage,
  renderErrorPage,
  renderExpiredPage,
  renderNotFoundPage,
  renderWaitPage,
  secondsLeft,
  startErrorText,
  type WaitView,
} from './views/status-pages.ts';

const HTML = 'text/html; charset=utf-8';
/** Pages smaller than this go out uncompressed: the encoding would cost more than it saves. */
const COMPRESS_FROM_BYTES = 1024;

interface Loaded {
  session: CheckoutSessionRow;
  found: EventWithTickets;
  status: string;
  now: Date;
}

interface SessionParams {
  sessionId: string;
}

function sendPage(reply: FastifyReply, status: number, page: string) {
  return reply.code(status).type(HTML).send(page);
}

function seeOther(reply: FastifyReply, location: string) {
  return reply.redirect(location, 303);
}

/** HTML error pages, the per-IP limit and compression for every route of a scope. */
function pageScope(scope: Host, ctx: AppContext, notFoundPage: () => string): void {
  scope.addHook('onRequest', (request, reply) =>
    enforceRateLimit(ctx.limiter, reply, {
      name: 'site',
      key: `site:${request.ip}`,
      setting: ctx.config.rateLimits.sitePages,
    }),
  );

  scope.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || reply.hasHeader('content-encoding')) return payload;
    reply.header('Vary', 'Accept-Encoding');
    if (Buffer.byteLength(payload) < COMPRESS_FROM_BYTES) return payload;
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    if (!encoding) return payload;
    reply.header('Content-Encoding', encoding);
    reply.removeHeader('content-length');
    return encoding === 'br'
      ? brotliCompressSync(payload, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
      : gzipSync(payload, { level: 6 });
  });

  scope.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    logRequestError(ctx, request, error, apiError, 'checkout page failed');
    for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
    setPageHeaders(reply, NO_FRAMING);
    const page =
      apiError.status === 404
        ? notFoundPage()
        : renderErrorPage({
            status: apiError.status,
            requestId: request.id,
            ...(apiError.headers['Retry-After'] !== undefined && {
              retryAfter: apiError.headers['Retry-After'],
            }),
          });
    return sendPage(reply, apiError.status, page);
  });

  scope.setNotFoundHandler((_request, reply) => {
    setPageHeaders(reply, NO_FRAMING);
    return sendPage(reply, 404, notFoundPage());
  });
}

export async function registerSiteRoutes(app: Host, ctx: AppContext): Promise<void> {
  const db = ctx.database.db;

  await app.register(
    async (scope) => {
      pageScope(scope, ctx, () => renderErrorPage({ status: 404, requestId: '' }));
      scope.get('/:file', { schema: { hide: true } }, async (request, reply) => {
        const asset = ASSETS.get(`/assets/${(request.params as { file: string }).file}`);
        if (!asset) throw notFound('asset');
        const encoding = chooseEncoding(request.headers['accept-encoding']);
        reply
          .type(asset.contentType)
          .header('Cache-Control', 'public, max-age=31536000, immutable')
          .header('X-Content-Type-Options', 'nosniff')
          .header('Vary', 'Accept-Encoding');
        if (encoding) reply.header('Content-Encoding', encoding);
        return reply.send(encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : asset.body);
      });
    },
    { prefix: '/assets' },
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

      /** The session and its event, or a 404 page already sent. Sets the page headers. */
      async function load(request: FastifyRequest, reply: FastifyReply): Promise<Loaded | null> {
        const { sessionId } = request.params as SessionParams;
        const session = await findCheckoutSessionById(db, sessionId);
        const found = session ? await findEvent(db, session.eventId) : undefined;
        if (!session || !found) {
          setPageHeaders(reply, NO_FRAMING);
          await sendPage(reply, 404, renderNotFoundPage());
          return null;
        }
        setPageHeaders(reply, framePolicyFor(session));
        const now = ctx.clock.now();
        return { session, found, status: sessionStatus(session, now), now };
      }

      async function sendConfirmation(
        reply: FastifyReply,
        loaded: Loaded,
        order: OrderRow,
        justPaid: boolean,
      ) {
        const out = await loadOrderOut(db, order);
        return sendPage(
          reply,
          200,
          renderConfirmationPage({ session: loaded.session, found: loaded.found, order: out, justPaid }),
        );
      }

      function saleOpen(loaded: Loaded): boolean {
        const { event } = loaded.found;
        return (
          event.status === 'open' &&
          event.endsAt.getTime() > loaded.now.getTime() &&
          event.visibility !== 'private' &&
          isRegistrationOpen(event, loaded.now)
        );
      }

      function formPage(
        reply: FastifyReply,
        loaded: Loaded,
        view: Partial<FormView> & Pick<FormView, 'values'>,
      ) {
        return sendPage(
          reply,
          view.status ?? 200,
          renderFormPage({
            session: loaded.session,
            found: loaded.found,
            now: loaded.now,
            stage: view.values.items.length > 0 ? 'details' : 'tickets',
            errors: [],
            ...view,
          }),
        );
      }

      // GET /checkout/:sessionId: the page for the session's state.
      scope.get('/:sessionId', { schema: { hide: true } }, async (request, reply) => {
        const loaded = await load(request, reply);
        if (!loaded) return reply;
        const { session, found } = loaded;
        if (loaded.status === 'complete') {
          const { order } = await loadSessionPayment(db, session);
          if (order?.status === 'paid') return sendConfirmation(reply, loaded, order, false);
        }
        if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
        if (!saleOpen(loaded)) return sendPage(reply, 200, renderClosedPage(session, found));
        const { order, attempt } = await loadSessionPayment(db, session);
        let notice: Notice | null = null;
        if (order?.status === 'pending') {
          const link = html`<a href="${checkoutPath(session.id, '/pay')}">See the payment status</a>`;
          notice = isOpenAttempt(attempt ?? undefined)
            ? { kind: 'info', text: html`A payment prompt is waiting on your phone. ${link}.` }
            : {
                kind: 'info',
                text: html`Your tickets are held for an unpaid order. ${link}, or start again below.`,
              };
        }
        return formPage(reply, loaded, { values: emptyValues(session), stage: 'tickets', notice });
      });

      // POST /checkout/:sessionId/order: next stage (no script), review (dry run), or pay.
      scope.post('/:sessionId/order', { schema: { hide: true } }, async (request, reply) => {
        const loaded = await load(request, reply);
        if (!loaded) return reply;
        const { session, found } = loaded;
        if (loaded.status === 'complete') return seeOther(reply, checkoutPath(session.id));
        if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
        if (!saleOpen(loaded)) return sendPage(reply, 409, renderClosedPage(session, found));
        const body = (request.body ?? {}) as FormBody;
        const values = readForm(body, found.ticketTypes, found.event.additionalQuestions, session);
        const action = body.action ?? 'review';
        if (values.items.length === 0) {
          const errors: FieldError[] =
            action === 'edit' ? [] : [{ field: 'items', message: 'Choose at least one ticket' }];
          return formPage(reply, loaded, {
            values,
            stage: 'tickets',
            errors,
            status: errors.length ? 400 : 200,
          });
        }
        if (action === 'tickets' || action === 'edit') return formPage(reply, loaded, { values });
        if (!itemsMatch(body, values)) {
          return formPage(reply, loaded, {
            values,
            notice: { kind: 'info', text: 'Your tickets changed: check the participant details below.' },
          });
        }
        const outcome = await placeOrder(ctx, {
          session,
          found,
          values,
          dryRun: action !== 'pay',
          clientIp: request.ip,
        });
        switch (outcome.kind) {
          case 'invalid':
            return formPage(reply, loaded, { values, errors: outcome.errors, status: 400 });
          case 'refused':
            return formPage(reply, loaded, {
              values,
              status: ERROR_STATUS[outcome.code],
              ...(outcome.code === 'sold_out'
                ? { errors: [{ field: 'items', message: outcome.message }] }
                : { notice: { kind: 'bad', text: outcome.message } }),
            });
          case 'session_closed':
            return seeOther(reply, checkoutPath(session.id));
          case 'payment_in_progress':
            return seeOther(reply, checkoutPath(session.id, '/pay'));
          case 'hold_limit_reached': {
            const message = holdLimitMessage({
              held: outcome.held,
              limit: ctx.config.holdLimitTicketsPerIp,
              retryAfterSeconds: outcome.retryAfterSeconds,
            });
            refuse(request, reply, outcome.kind, outcome.retryAfterSeconds, message);
            return formPage(reply, loaded, {
              values,
              status: 429,
              errors: [{ field: 'items', message }],
              errorCode: outcome.kind,
            });
          }
          case 'checked':
            return sendPage(
              reply,
              200,
              renderReviewPage({ session, found, values, order: outcome.order, payment: paymentOf(values) }),
            );
          case 'created': {
            const { order, payment } = outcome;
            if (order.status === 'paid' || !payment) return seeOther(reply, checkoutPath(session.id, '/pay'));
            // The order stays held: the wait page lets the buyer send the prompt to another number.
            const slot = await claimPromptSlot(ctx, normalizePhone(payment.phone)!);
            if (!slot.allowed) return promptRefused(request, reply, loaded, order, slot, payment);
            const code = await tryStartPayment(order, payment.method, payment.phone);
            return seeOther(reply, checkoutPath(session.id, code ? `/pay?error=${code}` : '/pay'));
          }
        }
      });

      /** A 429 for a buyer limit: Retry-After, and the log line the error handler would write. */
      function refuse(
        request: FastifyRequest,
        reply: FastifyReply,
        code: 'hold_limit_reached' | 'prompt_limit_reached',
        retryAfterSeconds: number,
        message: string,
      ) {
        reply.header('Retry-After', String(retryAfterSeconds));
        request.log.info({ error_code: code }, message);
      }

      /** The wait page, answering 429 prompt_limit_reached, with the number's field in error. */
      async function promptRefused(
        request: FastifyRequest,
        reply: FastifyReply,
        loaded: Loaded,
        order: OrderRow,
        slot: Extract<PromptSlot, { allowed: false }>,
        retry: { method: string; phone: string },
      ) {
        const message = promptLimitMessage(slot.retryAfterSeconds);
        refuse(request, reply, 'prompt_limit_reached', slot.retryAfterSeconds, message);
        const view = await waitView(loaded, order, {
          errors: [{ field: 'payment_phone', message }],
          retry,
          errorCode: 'prompt_limit_reached',
        });
        return sendPage(reply, 429, renderWaitPage(view));
      }

      function paymentOf(values: FormValues) {
        const { choice } = checkPayment(values.payment_method, values.payment_phone, values.buyer.phone);
        return choice;
      }

      /** Sends the prompt; returns the error code when it could not be started. */
      async function tryStartPayment(
        order: OrderRow,
        method: PaymentMethod,
        phone: string,
      ): Promise<string | null> {
        try {
          await startPayment(ctx, { organizationId: order.organizationId, orderId: order.id, method, phone });
          return null;
        } catch (error) {
          // A simultaneous submission of the same form replaced this order (order_not_payable), or
          // was replacing it at that moment (PostgreSQL broke the lock cycle by aborting us): the
          // wait screen shows the session's current order either way.
          if (isDeadlock(error)) return null;
          const apiError = toApiError(error);
          if (apiError.code === 'order_not_payable') return null;
          if (apiError.status >= 500)
            ctx.log.error({ err: error, order_id: order.id }, 'payment could not start');
          return apiError.code;
        }
      }

      async function waitView(
        loaded: Loaded,
        order: OrderRow,
        extra: Partial<WaitView> = {},
      ): Promise<WaitView> {
        const regs = (await registrationsOf(db, [order.id])).get(order.id) ?? [];
        const fees = loaded.found.organization.fees;
        const base = order.subtotal - order.discountTotal + order.donationTotal;
        const totals = Object.fromEntries(
          PAYMENT_METHODS.map((m) => [
            m,
            base + regs.reduce((sum, r) => sum + feeFor(r.priceMinor, fees[m]), 0),
          ]),
        ) as Record<PaymentMethod, number>;
        const { attempt } = await loadSessionPayment(db, loaded.session);
        return {
          session: loaded.session,
          found: loaded.found,
          order,
          attempt,
          totals,
          now: ctx.clock.now(),
          ...extra,
        };
      }

      // GET /checkout/:sessionId/pay: the wait screen, its outcomes, or the confirmation once paid.
      // Read-only: a reload creates nothing and sends nothing.
      scope.get('/:sessionId/pay', { schema: { hide: true } }, async (request, reply) => {
        const loaded = await load(request, reply);
        if (!loaded) return reply;
        const { session, found } = loaded;
        const { order } = await loadSessionPayment(db, session);
        if (order?.status === 'paid') return sendConfirmation(reply, loaded, order, true);
        if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
        if (!order) return seeOther(reply, checkoutPath(session.id));
        const code = (request.query as { error?: unknown }).error;
        const startError = startErrorText(typeof code === 'string' ? code.slice(0, 40) : undefined);
        return sendPage(reply, 200, renderWaitPage(await waitView(loaded, order, { startError })));
      });

      // GET /checkout/:sessionId/status.json: what the wait screen polls. No personal data.
      scope.get('/:sessionId/status.json', { schema: { hide: true } }, async (request, reply) => {
        const { sessionId } = request.params as SessionParams;
        const session = await findCheckoutSessionById(db, sessionId);
        setPageHeaders(reply, session ? framePolicyFor(session) : NO_FRAMING);
        if (!session) return sendError(request, reply, notFound('checkout session'));
        const { order, attempt } = await loadSessionPayment(db, session);
        const now = ctx.clock.now();
        return reply.type('application/json; charset=utf-8').send({
          order_status: order?.status ?? null,
          failure_kind: order?.failureKind ?? null,
          hold_expires_at: order?.status === 'pending' ? (order.holdExpiresAt?.toISOString() ?? null) : null,
          seconds_left: order ? secondsLeft(order, now) : 0,
          attempt_status: attempt?.status ?? null,
        });
      });

      // POST /checkout/:sessionId/retry: pay the pending order again, same or another number or network.
      scope.post('/:sessionId/retry', { schema: { hide: true } }, async (request, reply) => {
        const loaded = await load(request, reply);
        if (!loaded) return reply;
        const { session, found } = loaded;
        const { order, attempt } = await loadSessionPayment(db, session);
        if (order?.status === 'paid') return seeOther(reply, checkoutPath(session.id, '/pay'));
        if (loaded.status !== 'open') return sendPage(reply, 410, renderExpiredPage(session, found));
        if (!order || order.status !== 'pending') return seeOther(reply, checkoutPath(session.id, '/pay'));
        const body = (request.body ?? {}) as FormBody;
        const method = (body.payment_method ?? '').slice(0, 20);
        const phone = (body.payment_phone ?? '').slice(0, 40);
        const retry = { method, phone };
        const checked = checkPayment(method, phone, nationalPhone(order.buyerPhone));
        let errors = checked.errors;
        if (checked.choice) {
          // While a prompt is out, startPayment sends nothing: nothing to count.
          if (!isOpenAttempt(attempt ?? undefined)) {
            const slot = await claimPromptSlot(ctx, normalizePhone(checked.choice.phone)!);
            if (!slot.allowed) return promptRefused(request, reply, loaded, order, slot, retry);
          }
          try {
            await startPayment(ctx, {
              organizationId: order.organizationId,
              orderId: order.id,
              method: checked.choice.method,
              phone: checked.choice.phone,
            });
            return seeOther(reply, checkoutPath(session.id, '/pay'));
          } catch (error) {
            const apiError = toApiError(error);
            if (apiError.code !== 'validation_failed') {
              if (apiError.status >= 500) request.log.error({ err: error }, 'payment retry failed');
              return seeOther(reply, checkoutPath(session.id, `/pay?error=${apiError.code}`));
            }
            errors = (apiError.errors ?? []).map((e) => ({
              field: e.field === 'phone' ? 'payment_phone' : e.field,
              message: e.message,
            }));
          }
        }
        return sendPage(reply, 400, renderWaitPage(await waitView(loaded, order, { errors, retry })));
      });

      // POST /checkout/:sessionId/cancel: release the hold (unless a prompt is out) and leave.
      scope.post('/:sessionId/cancel', { schema: { hide: true } }, async (request, reply) => {
        const loaded = await load(request, reply);
        if (!loaded) return reply;
        const { session, found } = loaded;
        if (loaded.status === 'complete') return seeOther(reply, checkoutPath(session.id));
        if (loaded.status === 'open') await cancelCheckout(ctx, session);
        if (session.uiMode === 'redirect' && session.cancelUrl && /^https?:\/\//i.test(session.cancelUrl)) {
          return seeOther(reply, session.cancelUrl);
        }
        return sendPage(reply, 200, renderCancelledPage(session, found));
      });
    },
    { prefix: '/checkout' },
  );
}
