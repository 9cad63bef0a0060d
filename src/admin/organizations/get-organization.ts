// GET /organizations/:id: one organization.
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/index.ts';
import { OrganizationOut, toOrganizationOut } from './organization-admin.schema.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';

export function getOrganizationRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/organizations/:id',
    {
      schema: {
        params: IdParams,
        response: { 200: Envelope(OrganizationOut, 'Organization retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const row = await findOrganization(db, request.params.id);
      if (!row) throw notFound('organization');
      return envelope(200, 'Organization retrieved', toOrganizationOut(row));
    },
  );
}
