// Who is calling: a bearer token or a publishable key, checked on every request against the
// client's current row (one read), so revocation and removed scopes act on the next request.
// The guard runs in two steps around the body: what needs no database (the credential's form, a
// token's seal and expiry) and the rate limit before the body is read, so a caller without a
// credential never gets its body read; the client's row, the scope and the route's own read
// once the body is in, still before any field of it is validated.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError, bodyArrived, enforceRateLimit, type AdmissionGate } from '../platform/index.ts';
import { findRequestClient, type RequestClient } from './clients.ts';
import { PUBLISHABLE_KEY_HEADER, readRequestCredentials, type CredentialSource } from './credentials.ts';
import { noteRequestClient, type LoggedRequest } from './request-log.ts';
import { intersectScopes, PUBLISHABLE_SCOPES, type Scope } from './scopes.ts';
import { PUBLISHABLE_KEY_PREFIX, readAccessToken, type AccessTokenClaims } from './tokens.ts';

export { PUBLISHABLE_KEY_HEADER };

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
  /** when the bearer token expires; null for a publishable key */
  expiresAt: Date | null;
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
   * read against request.auth), and it gets the body before validation, so it must cope with any
   * JSON. It is sent only for a credential worth a database read: a bearer token whose seal holds
   * and that has not expired, or a publishable key of the right form. The route takes it from
   * request.alongside.
   */
  alongside?: (request: FastifyRequest) => Promise<unknown>;
  /**
   * The write-admission gate (routes that create): once the body is in, the request waits for its
   * place before the client's row and the alongside read are sent, so that in a burst the database
   * serves the admitted requests first instead of every waiting one's reads.
   */
  admit?: AdmissionGate['admit'];
}

/** A credential as far as it can be checked without the database. */
type Presented =
  | { kind: 'bearer'; claims: AccessTokenClaims }
  | { kind: 'publishable'; key: string; origin: string | undefined };

/**
 * The credential a request presents, checked without the database; throws the right 401. A bearer
 * token wins over a publishable key (docs/contract.md#authentication-and-scopes); a route that
 * takes only bearer tokens treats a publishable key as no credential. A request given as `logged`
 * is marked for the request log as soon as its credential names a client, so that the refusals
 * after that are logged too.
 */
function presentedCredential(
  ctx: AppContext,
  request: CredentialSource,
  publishable: boolean,
  logged?: LoggedRequest,
): Presented {
  const { authorization, publishableKeys } = readRequestCredentials(request);
  if (authorization.length > 0) {
    const [value] = authorization;
    if (authorization.length > 1) throw invalidToken('Send one Authorization header.');
    if (value!.scheme !== 'bearer' || !/^\S+$/.test(value!.token)) {
      throw invalidToken('The Authorization header must be "Bearer <access token>".');
    }
    const claims = readAccessToken(ctx.keys.token, value!.token);
    if (!claims) throw invalidToken('The access token is not valid.');
    // Sealed by us, so it names a real client, even once expired.
    if (logged) noteRequestClient(logged, 'bearer', claims.clientId);
    if (claims.expiresAt.getTime() <= ctx.clock.now().getTime())
      throw invalidToken('The access token has expired.');
    return { kind: 'bearer', claims };
  }
  if (publishableKeys.length > 0) {
    if (!publishable) {
      throw invalidToken(
        'Publishable keys cannot be used on this route; send a bearer access token from your server.',
      );
    }
    if (publishableKeys.length > 1) throw new ApiError('invalid_key', 'Send one publishable key.');
    const key = publishableKeys[0]!;
    if (!key.startsWith(PUBLISHABLE_KEY_PREFIX) || key.length > 128) throw invalidKey();
    const origin = request.headers.origin;
    // Resolved to its client when the log is written; a key of no client is dropped then.
    if (logged) noteRequestClient(logged, 'publishable', key);
    return { kind: 'publishable', key, origin: typeof origin === 'string' ? origin : undefined };
  }
  throw new ApiError('invalid_token', 'Authentication required: send a bearer access token.', {
    headers: { 'WWW-Authenticate': REALM },
  });
}

function invalidKey(): ApiError {
  return new ApiError('invalid_key', 'The publishable key is not valid (wrong, replaced or revoked).');
}

function authFor(
  kind: PartnerAuth['kind'],
  client: RequestClient,
  scopes: Scope[],
  origin: string | null,
  expiresAt: Date | null = null,
): PartnerAuth {
  return {
    kind,
    expiresAt,
    clientId: client.id,
    organizationId: client.organizationId,
    scopes,
    allowedDomains: client.allowedDomains,
    returnUrlDomains: client.returnUrlDomains,
    origin,
    catalogVersion: client.catalogVersion,
  };
}

/** The presented credential's client, read now; throws the right 401/403. */
async function readCredentialClient(ctx: AppContext, presented: Presented): Promise<PartnerAuth> {
  if (presented.kind === 'bearer') {
    const { claims } = presented;
    const client = await findRequestClient(ctx.database.db, { clientId: claims.clientId });
    if (!client || client.revokedAt) throw invalidToken('The access token has been revoked.');
    return authFor('bearer', client, intersectScopes(claims.scopes, client.scopes), null, claims.expiresAt);
  }
  const { key, origin } = presented;
  const client = await findRequestClient(ctx.database.db, { publishableKey: key });
  if (!client || client.revokedAt) throw invalidKey();
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
  request: CredentialSource,
  options: { publishable: boolean },
): Promise<PartnerAuth> {
  return readCredentialClient(ctx, presentedCredential(ctx, request, options.publishable));
}

/** Why a credential accepted earlier no longer holds. */
export type CredentialLapse = 'token_expired' | 'client_revoked' | 'scope_removed';

/**
 * Whether a bearer credential accepted earlier still holds `scope`, read now: for a response that
 * outlives its request (the event stream), which must stop with its credential as a new request
 * would. One read of the client's row; the expiry is compared after it, so at the moment of use.
 */
export async function credentialLapse(
  ctx: AppContext,
  auth: PartnerAuth,
  scope: Scope,
): Promise<CredentialLapse | null> {
  const client = await findRequestClient(ctx.database.db, { clientId: auth.clientId });
  if (!client || client.revokedAt) return 'client_revoked';
  if (!client.scopes.includes(scope)) return 'scope_removed';
  if (auth.expiresAt && auth.expiresAt.getTime() <= ctx.clock.now().getTime()) return 'token_expired';
  return null;
}

function requireScope(auth: PartnerAuth, scope: Scope): void {
  if (!auth.scopes.includes(scope)) {
    throw new ApiError('insufficient_scope', `This credential lacks the scope ${scope}.`, {
      headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` },
    });
  }
}

/** The credential as checked on arrival, and the client's row as it is being read. */
const presentedCredentials = new WeakMap<FastifyRequest, Presented>();
const clientReads = new WeakMap<FastifyRequest, Promise<PartnerAuth>>();
/** Requests that took their write place on arrival. */
const admitted = new WeakSet<FastifyRequest>();

export interface GuardHooks {
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  preValidation(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * The route hooks that authenticate, rate-limit and require a scope (spread into the route's
 * options). onRequest, before the body is parsed: on a creation route whose body came with the
 * headers, the write-admission place; then the credential's form and seal and the rate limit
 * (keyed by what the credential says without the database: the sealed client id, or the key and
 * the IP); elsewhere the client's read sent off. preValidation, once the body is in: the place of
 * a creation whose body came late, its client read and the route's own read sent together, the
 * client awaited, the scope checked. So a request without a usable credential is answered 401
 * before any field of its body is looked at, and a body still arriving holds no place.
 */
export function guard(ctx: AppContext, options: GuardOptions): GuardHooks {
  const publishable = options.publishable ?? false;
  const { alongside: read, admit } = options;
  return {
    async onRequest(request, reply) {
      // A body that came with the headers is buffered by the parser once this hook has started.
      await undefined;
      // Such a body cannot hold a place for long, so the request waits its turn before anything
      // else is done for it: in a burst, only admitted requests take the event loop's time while
      // their database answers come in. A body still arriving takes its place once it is all here.
      if (admit && bodyArrived(request.raw)) {
        await admit(request, reply);
        if (reply.sent) return; // the client left while waiting
        admitted.add(request);
      }
      const presented = presentedCredential(ctx, request, publishable, request);
      const bearer = presented.kind === 'bearer';
      const setting = bearer ? ctx.config.rateLimits.bearer : ctx.config.rateLimits.publishableKey;
      const key = bearer ? `bearer:${presented.claims.clientId}` : `pk:${presented.key}:${request.ip}`;
      await enforceRateLimit(ctx.limiter, reply, { name: presented.kind, key, setting });
      presentedCredentials.set(request, presented);
      // Without a gate, the client's row is read while the body arrives.
      if (!admit) readClient(request, presented);
    },
    async preValidation(request, reply) {
      const presented = presentedCredentials.get(request);
      if (!presented) throw new Error('guard: preValidation without onRequest');
      if (admit) {
        if (!admitted.has(request)) {
          await admit(request, reply);
          if (reply.sent) return; // the client left while waiting
        }
        // With the route's read below: both go out in one write and share the round trip.
        readClient(request, presented);
      }
      if (read) {
        const started = read(request);
        started.catch(() => {}); // a refused credential never waits for it
        request.alongside = started;
      }
      const auth = await clientReads.get(request)!;
      request.auth = auth;
      requireScope(auth, options.scope);
    },
  };

  function readClient(request: FastifyRequest, presented: Presented): void {
    const client = readCredentialClient(ctx, presented);
    client.catch(() => {}); // a body that fails to parse never waits for it
    clientReads.set(request, client);
  }
}
