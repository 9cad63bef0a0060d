// GET /organizations/:id/clients: every API client of the organization, revoked ones included.
import { Type } from 'typebox';
import { ClientOut, listApiClients, toClientOut } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';

export function listClientsRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
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
}
