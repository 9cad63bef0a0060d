// POST /v1/oauth/token: the OAuth 2.0 client credentials grant (RFC 6749 section 4.4), with the
// rules of docs/contract.md#the-token-endpoint. Errors use the OAuth shape, never the envelope.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { matchesHash, rateLimitHeaders, sendOAuthError, sha256Hex, type Host } from '../platform/index.ts';
import { findClientForToken } from './clients.ts';
import { noteRequestClient } from './request-log.ts';
import { ALL_SCOPES, isScope, type Scope } from './scopes.ts';
import { mintAccessToken } from './tokens.ts';

class OAuthError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Record<string, string>;
  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.status = status;
    this.error = error;
    this.headers = headers;
  }
}

const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);

// Same work for an unknown client id as for a wrong secret: compare against this digest.
const DUMMY_SECRET_HASH = sha256Hex('no client has this secret');

const FIELDS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;
const CLIENT_ID_FORM = /^[A-Za-z0-9_]{1,64}$/;
type TokenRequest = Partial<Record<(typeof FIELDS)[number], string>>;

/** Form or JSON body -> the four fields, each a single string. */
function parseTokenBody(contentType: string | undefined, raw: string): TokenRequest {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const out: TokenRequest = {};
  if (type === 'application/x-www-form-urlencoded') {
    const params = new URLSearchParams(raw);
    for (const field of FIELDS) {
      const values = params.getAll(field);
      if (values.length > 1) throw invalidRequest(`Parameter ${field} is repeated.`);
      // RFC 6749 section 3.1: a parameter sent without a value is treated as omitted.
      if (values[0]) out[field] = values[0];
    }
    return out;
  }
  if (type === 'application/json') {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw invalidRequest('The request body is not valid JSON.');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalidRequest('The request body must be a JSON object.');
    }
    for (const field of FIELDS) {
      const value = (body as Record<string, unknown>)[field];
      if (value === undefined || value === null || value === '') continue;
      if (typeof value !== 'string') throw invalidRequest(`Parameter ${field} must be a string.`);
      out[field] = value;
    }
    return out;
  }
  throw invalidRequest('Send the request as application/x-www-form-urlencoded or application/json.');
}

function formDecode(part: string): string {
  // RFC 6749 section 2.3.1: each part is application/x-www-form-urlencoded before base64.
  return decodeURIComponent(part.replace(/\+/g, ' '));
}

/** Authorization: Basic -> {clientId, clientSecret}; anything malformed is invalid_client. */
function parseBasic(header: string): { clientId: string; clientSecret: string } {
  const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0) {
    throw new OAuthError(401, 'invalid_client', 'The Basic credentials are malformed.', {
      'WWW-Authenticate': 'Basic realm="service-partner"',
    });
  }
  try {
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    throw new OAuthError(401, 'invalid_client', 'The Basic credentials are not form-URL-encoded.', {
      'WWW-Authenticate': 'Basic realm="service-partner"',
    });
  }
}

function parseScopeParam(scope: string | undefined, held: readonly string[]): Scope[] {
  if (scope === undefined) return ALL_SCOPES.filter((s) => held.includes(s));
  const asked = scope.split(' ');
  if (asked.some((s) => s === '')) {
    throw new OAuthError(400, 'invalid_scope', 'scope must be scope names separated by single spaces.');
  }
  for (const s of asked) {
    if (!isScope(s)) throw new OAuthError(400, 'invalid_scope', `Unknown scope: ${s}.`);
    if (!held.includes(s))
      throw new OAuthError(400, 'invalid_scope', `This client does not hold the scope ${s}.`);
  }
  return ALL_SCOPES.filter((s) => asked.includes(s));
}

async function issueToken(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  if (request.headers.origin !== undefined) {
    throw invalidRequest(
      'The token endpoint is for servers only; requests from a browser (with Origin) are refused.',
    );
  }
  const query = request.query as Record<string, unknown>;
  if ('client_secret' in query || 'client_id' in query) {
    throw invalidRequest('Client credentials must not be sent in the URL.');
  }
  const body = parseTokenBody(request.headers['content-type'], (request.body as string | undefined) ?? '');

  const authorization = request.headers.authorization;
  let basic = false;
  let clientId = body.client_id;
  let clientSecret = body.client_secret;
  if (authorization !== undefined) {
    if (!/^Basic\b/i.test(authorization)) {
      throw invalidRequest('Authenticate with HTTP Basic or with client_id and client_secret in the body.');
    }
    if (body.client_id !== undefined || body.client_secret !== undefined) {
      throw invalidRequest(
        'Use exactly one client authentication method: Basic header or body credentials, not both.',
      );
    }
    basic = true;
    ({ clientId, clientSecret } = parseBasic(authorization));
  }

  // Logged for the client it names, if one has that id (an unknown id is dropped when written).
  if (clientId !== undefined && CLIENT_ID_FORM.test(clientId)) noteRequestClient(request, 'token', clientId);
  // The limit counts every attempt for a client id from one IP, before any secret is checked.
  const limitSetting = ctx.config.rateLimits.tokenEndpoint;
  const limit = await ctx.limiter.hit(`token:${clientId ?? ''}:${request.ip}`, limitSetting);
  const limitHeaders = rateLimitHeaders('token', limitSetting, limit);
  if (!limit.allowed) {
    throw new OAuthError(
      429,
      'rate_limited',
      'Too many token requests; retry after the time in Retry-After.',
      limitHeaders,
    );
  }

  if (body.grant_type === undefined) throw invalidRequest('grant_type is required.');
  if (body.grant_type !== 'client_credentials') {
    throw new OAuthError(400, 'unsupported_grant_type', 'Only the client_credentials grant is supported.');
  }
  const clientFailure = () =>
    new OAuthError(
      401,
      'invalid_client',
      'Client authentication failed.',
      basic ? { 'WWW-Authenticate': 'Basic realm="service-partner"' } : {},
    );
  if (!clientId || !clientSecret) {
    if (!clientId && !clientSecret) throw clientFailure();
    throw invalidRequest('Both client_id and client_secret are required.');
  }
  // Only a client id of the form we issue is looked up; anything else (a NUL, odd text) is unknown.
  const client = CLIENT_ID_FORM.test(clientId)
    ? await findClientForToken(ctx.database.db, clientId)
    : undefined;
  const secretOk = matchesHash(clientSecret, client?.secretHash ?? DUMMY_SECRET_HASH);
  if (!client || !secretOk || client.revokedAt) throw clientFailure();

  const scopes = parseScopeParam(body.scope, client.scopes);
  const now = ctx.clock.now();
  const expiresIn = ctx.config.tokenTtlSeconds;
  const token = mintAccessToken(
    ctx.keys.token,
    client.id,
    scopes,
    new Date(now.getTime() + expiresIn * 1000),
  );
  return reply
    .code(200)
    .headers(limitHeaders)
    .header('Cache-Control', 'no-store')
    .header('Pragma', 'no-cache')
    .send({ access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: scopes.join(' ') });
}

const TokenOut = Type.Object(
  {
    access_token: Type.String({ description: 'Opaque bearer token. Do not parse it.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires (3600).' }),
    scope: Type.String({ description: 'Space-separated scopes granted.' }),
  },
  {
    description: 'The access token',
    examples: [
      {
        access_token: 'pat_…',
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'events:read checkout_sessions:write',
      },
    ],
  },
);
/** The OAuth error body, with an example of the status it is documented for. */
const OAuthErrorOut = (description: string, error: string, error_description: string) =>
  Type.Object(
    { error: Type.String(), error_description: Type.String() },
    { description, examples: [{ error, error_description }] },
  );

/**
 * The body as the handler reads it (parseTokenBody), for the document only: the route parses its
 * own body so that every malformed request gets an OAuth error, so no schema validates it.
 */
const TokenIn = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.Optional(Type.String({ description: 'With client_secret, when HTTP Basic is not used' })),
    client_secret: Type.Optional(Type.String()),
    scope: Type.Optional(
      Type.String({
        description:
          'Space-separated scopes, each held by the client. Default: every scope the client holds.',
      }),
    ),
  },
  {
    examples: [
      {
        grant_type: 'client_credentials',
        client_id: 'cli_Zq8mW2kT5yR1nB7xL4vP0sHc',
        client_secret: 'sk_…',
        scope: 'events:read checkout_sessions:write',
      },
    ],
  },
);

export async function registerTokenRoute(app: Host, ctx: AppContext) {
  await app.register(async (scope) => {
    // The token endpoint reads its own body, so that every malformed request gets an OAuth error.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(
      '/v1/oauth/token',
      {
        config: {
          oauthErrors: true,
          swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: TokenIn }, url }),
        },
        schema: {
          tags: ['Authentication'],
          summary: 'Get an access token (OAuth 2.0 client credentials)',
          description:
            'Authenticate with HTTP Basic (client_id:client_secret, each form-URL-encoded first) or with client_id and client_secret in the body, never both. The body is form-encoded or JSON. Never call this from a browser: requests with an Origin header are refused.',
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          response: {
            200: TokenOut,
            400: OAuthErrorOut(
              'invalid_request, unsupported_grant_type or invalid_scope',
              'unsupported_grant_type',
              'Only the client_credentials grant is supported.',
            ),
            401: OAuthErrorOut(
              'invalid_client: the client is unknown, revoked or its secret wrong',
              'invalid_client',
              'Client authentication failed.',
            ),
            429: OAuthErrorOut(
              'Too many attempts for this client id from this address',
              'rate_limited',
              'Too many token requests; retry after the time in Retry-After.',
            ),
          },
        },
      },
      async (request, reply) => {
        try {
          return await issueToken(ctx, request, reply);
        } catch (error) {
          if (error instanceof OAuthError)
            return sendOAuthError(reply, error.status, error.error, error.message, error.headers);
          throw error;
        }
      },
    );
  });
}
