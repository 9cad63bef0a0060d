// Admin routes for API clients: create (the secret is shown once), list, read, update scopes and
// allowlists, revoke, rotate the secret, regenerate the publishable key.
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  createApiClient,
  findApiClient,
  listApiClients,
  regeneratePublishableKey,
  revokeApiClient,
  rotateClientSecret,
  toClientOut,
  updateApiClient,
  type ApiClientRow,
} from '../auth/clients.ts';
import { parseOrigin } from '../auth/origins.ts';
import { ALL_SCOPES, isScope, type Scope } from '../auth/scopes.ts';
import type { AppContext } from '../context.ts';
import { findOrganization } from '../organizations/organizations.ts';
import { ApiError, notFound, validationError, type FieldError } from '../platform/errors.ts';
import { envelope, send, type Host } from '../platform/http.ts';
import { Envelope, Timestamp } from '../platform/schemas.ts';
import { assertId, ClientIdParams, IdParams, Name, NoBody, errorResponses } from './admin-schemas.ts';

const ScopeList = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 20,
  description: `Any of: ${ALL_SCOPES.join(', ')}`,
});
const OriginList = Type.Array(Type.String({ maxLength: 2048 }), {
  maxItems: 100,
  description: 'Full origins: https://host[:port], or http://localhost:<port> / http://127.0.0.1:<port>',
});

const ClientCreateIn = Type.Object(
  {
    name: Name,
    scopes: ScopeList,
    allowed_domains: Type.Optional(OriginList),
    return_url_domains: Type.Optional(OriginList),
  },
  { additionalProperties: false },
);

const ClientPatchIn = Type.Object(
  {
    name: Type.Optional(Name),
    scopes: Type.Optional(ScopeList),
    allowed_domains: Type.Optional(OriginList),
    return_url_domains: Type.Optional(OriginList),
  },
  { additionalProperties: false },
);

const clientFields = {
  organization_id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  allowed_domains: Type.Array(Type.String()),
  return_url_domains: Type.Array(Type.String()),
  publishable_key: Type.String(),
  status: Type.Enum(['active', 'revoked']),
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  secret_rotated_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** Never carries the secret or its hash. */
export const ClientOut = Type.Object({ client_id: Type.String(), ...clientFields });

const ClientCreatedOut = Type.Object({
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Shown once; store it now' }),
  ...clientFields,
});

const SecretOut = Type.Object({ client_id: Type.String(), client_secret: Type.String() });
const PublishableKeyOut = Type.Object({ client_id: Type.String(), publishable_key: Type.String() });

const ORIGIN_MESSAGE =
  'must be an origin such as https://shop.example.org or http://localhost:5173 (https, or http for localhost and 127.0.0.1 with a port; no path, no trailing slash)';

interface ClientLists {
  scopes?: string[] | undefined;
  allowed_domains?: string[] | undefined;
  return_url_domains?: string[] | undefined;
}

/** Checks scopes and origins together, so one answer names every bad entry; returns canonical forms. */
function checkClientLists(body: ClientLists): {
  scopes: Scope[] | undefined;
  allowedDomains: string[] | undefined;
  returnUrlDomains: string[] | undefined;
} {
  const errors: FieldError[] = [];
  const scopes = body.scopes?.filter((scope, i) => {
    if (isScope(scope)) return true;
    errors.push({
      field: `scopes[${i}]`,
      message: `is not a known scope; use any of: ${ALL_SCOPES.join(', ')}`,
    });
    return false;
  }) as Scope[] | undefined;
  const origins = (field: 'allowed_domains' | 'return_url_domains') =>
    body[field]?.map((value, i) => {
      const origin = parseOrigin(value);
      if (origin === null) errors.push({ field: `${field}[${i}]`, message: ORIGIN_MESSAGE });
      return origin ?? '';
    });
  const allowedDomains = origins('allowed_domains');
  const returnUrlDomains = origins('return_url_domains');
  if (errors.length > 0) throw validationError(errors);
  return { scopes, allowedDomains, returnUrlDomains };
}

async function clientOr404(ctx: AppContext, clientId: string): Promise<ApiClientRow> {
  assertId(clientId, 'cli', 'client');
  const client = await findApiClient(ctx.database.db, clientId);
  if (!client) throw notFound('client');
  return client;
}

function revokedConflict(): ApiError {
  return new ApiError('conflict', 'This client is revoked; create a new client instead.');
}

export async function registerClientAdminRoutes(admin: Host, ctx: AppContext) {
  const db = ctx.database.db;

  admin.post(
    '/organizations/:id/clients',
    {
      schema: {
        params: IdParams,
        body: ClientCreateIn,
        response: { 201: Envelope(ClientCreatedOut, 'Client created'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const lists = checkClientLists(request.body);
      const { client, clientSecret } = await createApiClient(db, {
        organizationId: org.id,
        name: request.body.name,
        scopes: lists.scopes ?? [],
        allowedDomains: lists.allowedDomains ?? [],
        returnUrlDomains: lists.returnUrlDomains ?? [],
      });
      return send(reply, 201, 'Client created', { ...toClientOut(client), client_secret: clientSecret });
    },
  );

  admin.get(
    '/organizations/:id/clients',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(Type.Object({ clients: Type.Array(ClientOut) }), 'Clients retrieved'),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const rows = await listApiClients(db, org.id);
      return envelope(200, 'Clients retrieved', { clients: rows.map(toClientOut) });
    },
  );

  admin.get(
    '/clients/:client_id',
    {
      schema: {
        params: ClientIdParams,
        response: { 200: Envelope(ClientOut, 'Client retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const client = await clientOr404(ctx, request.params.client_id);
      return envelope(200, 'Client retrieved', toClientOut(client));
    },
  );

  admin.patch(
    '/clients/:client_id',
    {
      schema: {
        params: ClientIdParams,
        body: ClientPatchIn,
        response: { 200: Envelope(ClientOut, 'Client updated'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const client = await clientOr404(ctx, request.params.client_id);
      const lists = checkClientLists(request.body);
      const row = await updateApiClient(
        db,
        client.id,
        {
          name: request.body.name,
          scopes: lists.scopes,
          allowedDomains: lists.allowedDomains,
          returnUrlDomains: lists.returnUrlDomains,
        },
        ctx.clock.now(),
      );
      if (!row) throw notFound('client');
      return envelope(200, 'Client updated', toClientOut(row));
    },
  );

  // The three actions take no body: absent, empty, or {} (even with a JSON content type).
  await admin.register(async (scope) => {
    const actions = scope.withTypeProvider<TypeBoxTypeProvider>();
    const jsonParser = actions.getDefaultJsonParser('error', 'error');
    actions.removeContentTypeParser('application/json');
    actions.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, {});
      jsonParser(request, body as string, done);
    });
    actions.addHook('preValidation', async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    });

    actions.post(
      '/clients/:client_id/revoke',
      {
        schema: {
          params: ClientIdParams,
          body: NoBody,
          response: { 200: Envelope(ClientOut, 'Client revoked'), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const client = await clientOr404(ctx, request.params.client_id);
        const row = await revokeApiClient(db, client.id, ctx.clock.now());
        if (!row) throw notFound('client');
        return envelope(200, 'Client revoked', toClientOut(row));
      },
    );

    actions.post(
      '/clients/:client_id/rotate-secret',
      {
        schema: {
          params: ClientIdParams,
          body: NoBody,
          response: {
            200: Envelope(SecretOut, 'Client secret rotated'),
            ...errorResponses(400, 401, 404, 409),
          },
        },
      },
      async (request) => {
        const client = await clientOr404(ctx, request.params.client_id);
        if (client.revokedAt) throw revokedConflict();
        const rotated = await rotateClientSecret(db, client.id, ctx.clock.now());
        if (!rotated) throw revokedConflict(); // revoked in the meantime
        return envelope(200, 'Client secret rotated', {
          client_id: rotated.client.id,
          client_secret: rotated.clientSecret,
        });
      },
    );

    actions.post(
      '/clients/:client_id/regenerate-publishable-key',
      {
        schema: {
          params: ClientIdParams,
          body: NoBody,
          response: {
            200: Envelope(PublishableKeyOut, 'Publishable key regenerated'),
            ...errorResponses(400, 401, 404, 409),
          },
        },
      },
      async (request) => {
        const client = await clientOr404(ctx, request.params.client_id);
        if (client.revokedAt) throw revokedConflict();
        const row = await regeneratePublishableKey(db, client.id, ctx.clock.now());
        if (!row) throw revokedConflict();
        return envelope(200, 'Publishable key regenerated', {
          client_id: row.id,
          publishable_key: row.publishableKey,
        });
      },
    );
  });
}
