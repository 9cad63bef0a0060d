// How the checkout answers a request it cannot serve just now (503 service_unavailable: the
// database out of reach, or the request shed under load): views/unavailable-page.ts in the buyer's
// language, with the error's Retry-After, a frame policy any page may frame (the session's own
// embed origin cannot be read), and its inline style and script allowed by their hashes
// (docs/decisions/a-503-is-never-a-dead-end.md, unavailable-page-in-any-frame.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { BODY_LIMIT_BYTES, type ApiError } from '../../platform/index.ts';
import { parseUrlEncoded, type FormBody } from '../checkout-form.ts';
import { pickLocale, runInLocale } from '../messages/current.ts';
import { promptStateOf } from '../prompt-state.ts';
import { ANY_FRAMER, setPageHeaders } from '../security-headers.ts';
import { checkoutPath } from '../views/page-parts.ts';
import {
  renderUnavailablePage,
  UNAVAILABLE_INLINE,
  type UnavailableStep,
  type UnavailableView,
} from '../views/unavailable-page.ts';
import { sendPage } from './page-replies.ts';

const SESSION_ROUTE = '/checkout/:sessionId';

/** Each checkout route as the buyer meets it, and where "back" leads from a failed form. */
const ROUTES: Record<string, { step: UnavailableStep; back?: 'checkout' | 'payment' }> = {
  [`GET ${SESSION_ROUTE}`]: { step: 'open' },
  [`GET ${SESSION_ROUTE}/pay`]: { step: 'wait' },
  [`GET ${SESSION_ROUTE}/cancel`]: { step: 'open' },
  [`POST ${SESSION_ROUTE}/order`]: { step: 'form', back: 'checkout' },
  [`POST ${SESSION_ROUTE}/retry`]: { step: 'pay', back: 'payment' },
  [`POST ${SESSION_ROUTE}/resend`]: { step: 'resend', back: 'payment' },
  [`POST ${SESSION_ROUTE}/switch`]: { step: 'switch', back: 'payment' },
  [`POST ${SESSION_ROUTE}/cancel`]: { step: 'cancel', back: 'checkout' },
};

/**
 * The form the buyer posted. A shed request was refused before its body was read: it is read
 * here (a form is a few KB, usually in the same packet as the headers), within the limits any
 * body has, so that the page can offer it again.
 */
async function postedForm(request: FastifyRequest, waitMs: number): Promise<FormBody | null> {
  if (request.body !== undefined) {
    return request.body !== null && typeof request.body === 'object' ? (request.body as FormBody) : null;
  }
  const raw = request.raw;
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type) || raw.readableEnded || raw.destroyed) return null;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (form: FormBody | null) => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(form);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) done(null);
      else chunks.push(chunk);
    };
    const onEnd = () => done(parseUrlEncoded(Buffer.concat(chunks).toString('utf8')));
    const onError = () => done(null);
    // What is left unread is discarded by Node once the answer is sent.
    const timer = setTimeout(() => done(null), waitMs);
    raw.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function viewOf(request: FastifyRequest, fields: FormBody | null): Omit<UnavailableView, 'retryAfter'> {
  const requestId = request.id;
  const route = ROUTES[`${request.method} ${request.routeOptions.url}`];
  const sessionId = (request.params as { sessionId?: unknown } | undefined)?.sessionId;
  if (!route || typeof sessionId !== 'string')
    return { step: 'open', prompt: 'none', requestId, again: null };
  const id = encodeURIComponent(sessionId);
  const path = checkoutPath(id, request.routeOptions.url!.slice(SESSION_ROUTE.length));
  const step = route.step === 'form' && fields?.action === 'pay' ? 'pay' : route.step;
  const prompt = promptStateOf(request);
  // After a prompt went out, the way on is its wait screen, whatever the request was.
  const back =
    prompt !== 'none' || route.back === 'payment'
      ? { path: checkoutPath(id, '/pay'), to: 'payment' as const }
      : route.back === 'checkout'
        ? { path: checkoutPath(id), to: 'checkout' as const }
        : null;
  return {
    step,
    prompt,
    requestId,
    again: request.method === 'GET' ? { method: 'get', path } : { method: 'post', path, fields },
    back,
  };
}

/** The 503 page for `request`, whose error was `error` (its Retry-After goes on). */
export async function sendUnavailable(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  error: ApiError,
) {
  const fields = request.method === 'POST' ? await postedForm(request, ctx.config.http.bodyTimeoutMs) : null;
  const retryAfter = error.headers['Retry-After'];
  let page = '';
  // Entered here again: a shed request was refused before the scope's language hook ran.
  runInLocale(pickLocale(request.query, request.headers['accept-language']), () => {
    page = renderUnavailablePage({ ...viewOf(request, fields), ...(retryAfter && { retryAfter }) });
  });
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  setPageHeaders(reply, ANY_FRAMER, UNAVAILABLE_INLINE);
  reply.errorCode = error.code;
  return sendPage(reply, 503, page);
}
