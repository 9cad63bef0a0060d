// GET /organizations: every organization.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listOrganizations } from '../../organizations/index.ts';
import { OrganizationOut, toOrganizationOut } from './organization-admin.schema.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { errorResponses } from '../admin-schemas.ts';

export function listOrganizationsRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/organizations',
    {
      schema: {
        response: {
          200: Envelope(
            Type.Object({ organizations: Type.Array(OrganizationOut) }),
            'Organizations retrieved',
          ),
          ...errorResponses(401),
        },
      },
    },
    async () => {
      const rows = await listOrganizations(db);
      return envelope(200, 'Organizations retrieved', { organizations: rows.map(toOrganizationOut) });
    },
  );
}
