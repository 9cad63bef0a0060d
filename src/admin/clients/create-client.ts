// POST /organizations/:id/clients: a new API client of the organization; its secret is shown once.
// 409 client_limit_reached when the organization has API_CLIENTS_PER_ORGANIZATION live ones.
import { clientLimitMessage, createApiClientWithinLimit, toClientOut } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/organizations.ts';
import { ApiError, notFound } from '../../platform/errors.ts';
import { send, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { checkClientLists } from '../../auth/client-lists.ts';
import { ClientCreatedOut, ClientCreateIn } from './client-admin.schema.ts';
import { auditAsOperator } from '../admin-audit.ts';

export function createClientRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.post(
    '/organizations/:id/clients',
    {
      schema: {
        params: IdParams,
        body: ClientCreateIn,
        response: {
          201: Envelope(ClientCreatedOut, 'Client created'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const lists = checkClientLists(request.body);
      const creation = await ctx.database.transaction(async (tx) => {
        const created = await createApiClientWithinLimit(
          tx,
          {
            organizationId: org.id,
            name: request.body.name,
            displayName: lists.displayName ?? null,
            scopes: lists.scopes ?? [],
            allowedDomains: lists.allowedDomains ?? [],
            returnUrlDomains: lists.returnUrlDomains ?? [],
          },
          ctx.config.apiClientsPerOrganization,
        );
        if (!created.created) return created;
        const { id, name, displayName, scopes, allowedDomains, returnUrlDomains } = created.client;
        const details = {
          name,
          display_name: displayName,
          scopes,
          allowed_domains: allowedDomains,
          return_url_domains: returnUrlDomains,
        };
        const change = { action: 'client.created', targetType: 'client', targetId: id, details } as const;
        await auditAsOperator(tx, request, org.id, [change], ctx.clock.now());
        return created;
      });
      if (!creation.created) throw new ApiError('client_limit_reached', clientLimitMessage(creation));
      const { client, clientSecret } = creation;
      return send(reply, 201, 'Client created', { ...toClientOut(client), client_secret: clientSecret });
    },
  );
}
