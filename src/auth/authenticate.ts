// Who is calling: a bearer token or a publishable key, checked on every request against the
// client's current row (one read), so revocation and removed scopes act on the next request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../platform/errors.ts';
import { rateLimitHeaders } from '../platform/rate-limit.ts';
import { findRequestClient, type RequestClient } from './clients.ts';
import { intersectScopes, PUBLISHABLE_SCOPES, type Scope } from './scopes.ts';
import { PUBLISHABLE_KEY_PREFIX, readAccessToken } from './tokens.ts';

export const PUBLISHABLE_KEY_HEADER = 'x-service-publishable-key';

export interface PartnerAuth {
  kind: 'bearer' | 'publishable';
  clientId: string;
  organizationId: string;
  scopes: Scope[];
  allowedDomains: string[];
  returnUrlDomains: string[];
  /** the request Origin, checked against the allowlist (publishable keys only) */
  origin: string | null;
  /** organizations.catalog_version as read with the credential */
  catalogVersion: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: PartnerAuth | null;
    /** the route's read sent with the credential check (GuardOptions.alongside) */
    alongside: Promise<unknown> | null;
  }
}

const REALM = 'Bearer realm="service-partner"';

function invalidToken(description: string): ApiError {
  return new ApiError('invalid_token', description, {
    headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="${description}"` },
  });
}

export interface GuardOptions {
  scope: Scope;
  /** the route also accepts a publishable key (browser routes) */
  publishable?: boolean;
  /**
   * A read the route will need, sent together with the credential check so that both cost one
   * round trip, not two in a row. It must not depend on who is calling (the route checks what it
   * read against request.auth). It is sent only for a credential worth a database read: a bearer
   * token whose signature holds and that has not expired, or a publishable key of the right
   * form. The route takes it from request.alongside.
   */
  alongside?: (request: FastifyRequest) => Promise<unknown>;
}

async function fromBearer(ctx: AppContext, token: string, alongside: () => void): Promise<PartnerAuth> {
  const claims = readAccessToken(ctx.keys.token, token);
  if (!claims) throw invalidToken('The access token is not valid.');
  if (claims.expiresAt.getTime() <= ctx.clock.now().getTime())
    throw invalidToken('The access token has expired.');
  alongside();
  const client = await findRequestClient(ctx.database.db, { clientId: claims.clientId });
  if (!client || client.revokedAt) throw invalidToken('The access token has been revoked.');
  return authFor('bearer', client, intersectScopes(claims.scopes, client.scopes), null);
}

function authFor(
  kind: PartnerAuth['kind'],
  client: RequestClient,
  scopes: Scope[],
  origin: string | null,
): PartnerAuth {
  return {
    kind,
    clientId: client.id,
    organizationId: client.organizationId,
    scopes,
    allowedDomains: client.allowedDomains,
    returnUrlDomains: client.returnUrlDomains,
    origin,
    catalogVersion: client.catalogVersion,
  };
}

async function fromPublishableKey(
  ctx: AppContext,
  key: string,
  origin: string | undefined,
  alongside: () => void,
): Promise<PartnerAuth> {
  const wellFormed = key.startsWith(PUBLISHABLE_KEY_PREFIX) && key.length <= 128;
  if (wellFormed) alongside();
  const client = wellFormed ? await findRequestClient(ctx.database.db, { publishableKey: key }) : undefined;
  if (!client || client.revokedAt) {
    throw new ApiError('invalid_key', 'The publishable key is not valid (wrong, replaced or revoked).');
  }
  if (origin === undefined) {
    throw new ApiError(
      'origin_not_allowed',
      'A publishable key may only be used from a browser page; the request has no Origin.',
    );
  }
  if (!client.allowedDomains.includes(origin)) {
    throw new ApiError('origin_not_allowed', `The origin ${origin} is not an allowed domain of this key.`);
  }
  return authFor('publishable', client, intersectScopes(PUBLISHABLE_SCOPES, client.scopes), origin);
}

/** Reads the credential of a request; throws the right 401/403. Bearer wins over a publishable key. */
export async function authenticate(
  ctx: AppContext,
  request: FastifyRequest,
  options: { publishable: boolean; alongside?: () => void },
): Promise<PartnerAuth> {
  const alongside = options.alongside ?? (() => {});
  const authorization = request.headers.authorization;
  const key = request.headers[PUBLISHABLE_KEY_HEADER];
  if (authorization !== undefined) {
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization);
    if (!match) throw invalidToken('The Authorization header must be "Bearer <access token>".');
    return fromBearer(ctx, match[1]!, alongside);
  }
  if (key !== undefined) {
    if (!options.publishable) {
      throw invalidToken(
        'Publishable keys cannot be used on this route; send a bearer access token from your server.',
      );
    }
    if (Array.isArray(key)) throw new ApiError('invalid_key', 'Send one publishable key.');
    const origin = request.headers.origin;
    return fromPublishableKey(ctx, key, typeof origin === 'string' ? origin : undefined, alongside);
  }
  throw new ApiError('invalid_token', 'Authentication required: send a bearer access token.', {
    headers: { 'WWW-Authenticate': REALM },
  });
}

function requireScope(auth: PartnerAuth, scope: Scope): void {
  if (!auth.scopes.includes(scope)) {
    throw new ApiError('insufficient_scope', `This credential lacks the scope ${scope}.`, {
      headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` },
    });
  }
}

/** preHandler: authenticate, rate-limit per credential, and require a scope. */
export function guard(ctx: AppContext, options: GuardOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const read = options.alongside;
    const alongside = read
      ? () => {
          const started = read(request);
          started.catch(() => {}); // a refused credential never waits for it
          request.alongside = started;
        }
      : undefined;
    const auth = await authenticate(ctx, request, { publishable: options.publishable ?? false, alongside });
    request.auth = auth;
    const setting =
      auth.kind === 'bearer' ? ctx.config.rateLimits.bearer : ctx.config.rateLimits.publishableKey;
    const key = auth.kind === 'bearer' ? `bearer:${auth.clientId}` : `pk:${auth.clientId}:${request.ip}`;
    const result = await ctx.limiter.hit(key, setting);
    const headers = rateLimitHeaders(auth.kind, setting, result);
    reply.headers(headers);
    if (!result.allowed) {
      throw new ApiError('rate_limited', 'Too many requests; retry after the time in Retry-After.', {
        headers,
      });
    }
    requireScope(auth, options.scope);
  };
}
