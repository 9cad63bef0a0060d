// POST /organizations/:id/clients: a new API client of the organization; its secret is shown once.
// 409 client_limit_reached when the organization has API_CLIENTS_PER_ORGANIZATION live ones.
import { createApiClient, toClientOut } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, notFound, send, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { clientRefusal } from './client-admin-checks.ts';
import { ClientCreatedOut, ClientCreateIn } from './client-admin.schema.ts';

export function createClientRoute(admin: Host, ctx: AppContext): void {
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
      const org = await findOrganization(ctx.database.db, request.params.id);
      if (!org) throw notFound('organization');
      const outcome = await createApiClient(ctx, {
        actor: operatorOf(request),
        organizationId: org.id,
        ...request.body,
      });
      if (!('done' in outcome)) throw clientRefusal(outcome);
      const { client, clientSecret } = outcome.done;
      return send(reply, 201, 'Client created', { ...toClientOut(client), client_secret: clientSecret });
    },
  );
}
