// GET /organizations/:id/events: every event of the organization, whatever its status.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listEventsOfOrganization } from '../../events/index.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { AdminEventListItemOut, toAdminEventListItem } from './event-admin.schema.ts';

export function listEventsRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/organizations/:id/events',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(Type.Object({ events: Type.Array(AdminEventListItemOut) }), 'Events retrieved'),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const rows = await listEventsOfOrganization(db, org.id);
      return envelope(200, 'Events retrieved', { events: rows.map((row) => toAdminEventListItem(row, org)) });
    },
  );
}
