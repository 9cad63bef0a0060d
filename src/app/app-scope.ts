// What every organizer app route shares, inside its own Fastify scope so the admin API on the same
// host keeps its JSON parsing and envelope: urlencoded forms only (small), the access
// check, security headers, gzip for pages (@fastify/compress), and HTML pages for every error.
import compress from '@fastify/compress';
import type { AppContext } from '../context.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, logRequestError, sendError, toApiError, type Host } from '../platform/index.ts';
import { checkAccess, loadSession, PageError } from './app-access.ts';
import { FORM_BODY_LIMIT_BYTES, FormBody } from './form-body.ts';
import { optionalViewer, sendPage } from './replies.ts';
import { renderErrorPage, renderNotFound, renderPageError } from './views/status-pages.ts';

/** Pages smaller than this go out uncompressed: the encoding would cost more than it saves. */
const COMPRESS_FROM_BYTES = 1024;

function appPolicy(images: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${images}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = appPolicy("'self' data:");

/**
 * The checkout preview's (routes/event-preview.ts): the checkout shows the event's https cover
 * image, as the SITE host's policy allows; everything else as on every app page.
 */
export const PREVIEW_CONTENT_SECURITY_POLICY = appPolicy("'self' data: https:");

function pageHeaders(reply: FastifyReply): void {
  // The checkout preview sets its own policy; every other page gets the app's.
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  }
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  // Signed-in pages and forms carrying tokens must not be kept by any cache; assets say otherwise.
  if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
}

/**
 * Unknown paths of the APP host: the app's HTML page (with the header when signed in), except
 * under /admin/, where the operator's API answers in its JSON envelope.
 */
export function appNotFound(ctx: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // however the path is spelled (/ADMIN/V1, //admin/v1), a script calling the API gets JSON
    if (/^\/+admin(\/|$|\?)/i.test(request.url)) {
      return sendError(request, reply, new ApiError('not_found', 'No such route.'));
    }
    request.appSession = await loadSession(ctx, request).catch(() => null);
    pageHeaders(reply);
    return sendPage(reply, 404, renderNotFound(await optionalViewer(ctx, request)));
  };
}

export async function setUpAppScope(scope: Host, ctx: AppContext): Promise<void> {
  scope.decorateRequest('appSession', null);

  // Forms only: a JSON or other body is 415 (an error page).
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, FormBody.parse(String(body))),
  );

  scope.addHook('preHandler', checkAccess(ctx));

  // Registered before the routes: it adds its onSend to each route as the route is added. Assets
  // come encoded already (their Content-Encoding makes it pass them by). gzip only, as browsers
  // all take it and it is cheap at level 6; request bodies are forms, never encoded.
  await scope.register(compress, {
    encodings: ['gzip'],
    threshold: COMPRESS_FROM_BYTES,
    zlibOptions: { level: 6 },
    globalDecompression: false,
  });

  scope.addHook('onSend', async (_request, reply, payload) => {
    pageHeaders(reply);
    // Every page may be compressed for another request, so caches must key on the encoding even
    // when this one went out plain. Lower case, as @fastify/compress writes it (it adds none then).
    if (!reply.hasHeader('vary')) reply.header('Vary', 'accept-encoding');
    return payload;
  });

  scope.setErrorHandler(async (error, request, reply) => {
    const viewer = await optionalViewer(ctx, request);
    if (error instanceof PageError) {
      request.log.info({ page_error: error.kind }, error.message);
      return sendPage(reply, error.status, renderPageError(error.kind, viewer));
    }
    const apiError = toApiError(error);
    logRequestError(ctx, request, error, apiError, 'app page failed');
    for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
    if (apiError.status === 404) return sendPage(reply, 404, renderPageError('not_found', viewer));
    return sendPage(
      reply,
      apiError.status,
      renderErrorPage({ status: apiError.status, requestId: request.id, viewer }),
    );
  });
}
