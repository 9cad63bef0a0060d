// CORS for the routes a publishable key may call (docs/contract.md#publishable-keys;
// docs/decisions/cors-answers.md). A preflight is answered only for an origin that some active
// key allowlists, read from the database on each preflight so a newly added domain passes at once.
// No cookies, ever.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError, sendError, type Host } from '../platform/index.ts';
import { isOriginAllowlisted } from './clients.ts';

const CORS_ALLOW_HEADERS = 'Content-Type, Accept, Authorization, X-Service-Publishable-Key, Idempotency-Key';
const CORS_EXPOSE_HEADERS = 'Retry-After, X-Request-Id';
const CORS_MAX_AGE_SECONDS = 300;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the route may be called from a browser with a publishable key */
    cors?: boolean;
  }
}

async function allowedOrigin(ctx: AppContext, request: FastifyRequest): Promise<string | null> {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return null;
  const auth = request.auth;
  if (auth?.kind === 'publishable' && auth.allowedDomains.includes(origin)) return origin;
  return (await isOriginAllowlisted(ctx.database.db, origin)) ? origin : null;
}

/**
 * Adds the preflight route for each browser path and the response headers on real requests.
 * `paths` maps a route path to the methods a browser may call on it.
 */
export function registerCors(app: Host, ctx: AppContext, paths: Record<string, string[]>): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('alongside', null);
  for (const [path, methods] of Object.entries(paths)) {
    app.options(path, { schema: { hide: true } }, async (request, reply: FastifyReply) => {
      reply.header('Vary', 'Origin');
      const origin = await allowedOrigin(ctx, request);
      const method = String(request.headers['access-control-request-method'] ?? '').toUpperCase();
      if (!origin || !methods.includes(method)) {
        return sendError(
          request,
          reply,
          new ApiError('origin_not_allowed', 'This origin is not an allowed domain of any publishable key.'),
        );
      }
      return reply
        .code(204)
        .header('Access-Control-Allow-Origin', origin)
        .header('Access-Control-Allow-Methods', methods.join(', '))
        .header('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS)
        .header('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS)
        .header('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS))
        .send();
    });
  }
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.routeOptions.config?.cors || request.method === 'OPTIONS') return payload;
    reply.header('Vary', 'Origin');
    const origin = await allowedOrigin(ctx, request);
    if (origin) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    }
    return payload;
  });
}
