// What every route of a checkout scope shares: the buyer's language, the per-IP rate limit,
// compression of pages, and HTML pages for errors and unknown paths (never the API's JSON envelope;
// a 503 gets the page of routes/unavailable-reply.ts, the status poll its errors in JSON).
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { AppContext } from '../../context.ts';
import {
  chooseEncoding,
  enforceRateLimit,
  logRequestError,
  sendError,
  setNotFoundBeforeBody,
  toApiError,
  type Host,
} from '../../platform/index.ts';
import { pickLocale, runInLocale } from '../messages/current.ts';
import { runWithMethods } from '../offer-words.ts';
import { NO_FRAMING, setPageHeaders, type InlineParts } from '../security-headers.ts';
import { renderErrorPage } from '../views/end-pages.ts';
import { sendPage } from './page-replies.ts';
import { sendUnavailable } from './unavailable-reply.ts';

/** Pages smaller than this go out uncompressed: the encoding would cost more than it saves. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * The language, HTML error pages, the per-IP limit and compression for every route of a scope.
 * `notFoundInline`: what the scope's own 404 page runs inline (the ticket pages stand alone).
 */
export function pageScope(
  scope: Host,
  ctx: AppContext,
  notFoundPage: () => string,
  notFoundInline?: InlineParts,
): void {
  // The rest of the request runs in the buyer's language (a callback hook, so that it runs inside).
  scope.addHook('onRequest', (request, _reply, done) =>
    runInLocale(pickLocale(request.query, request.headers['accept-language']), done),
  );
  // The service's payment methods, for the offer every view reads (offer-words.ts).
  scope.addHook('onRequest', (_request, _reply, done) => runWithMethods(ctx.paymentMethods, done));
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
    // The wait screen's status poll reads JSON (and the Retry-After of a 503).
    if (request.routeOptions.url?.endsWith('/status.json')) {
      setPageHeaders(reply, NO_FRAMING);
      return sendError(request, reply, apiError);
    }
    if (apiError.status === 503) return sendUnavailable(ctx, request, reply, apiError);
    for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
    setPageHeaders(reply, NO_FRAMING, apiError.status === 404 ? notFoundInline : undefined);
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

  setNotFoundBeforeBody(scope, (_request, reply) => {
    setPageHeaders(reply, NO_FRAMING, notFoundInline);
    return sendPage(reply, 404, notFoundPage());
  });
}
