// GET /events/:id: one event with its ticket types and their paid and held counts.
import type { AppContext } from '../../context.ts';
import { findEvent } from '../../events/index.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { AdminEventOut, toAdminEvent } from './event-admin.schema.ts';

export function getEventRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/events/:id',
    {
      schema: {
        params: IdParams,
        response: { 200: Envelope(AdminEventOut, 'Event retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'evt', 'event');
      const found = await findEvent(db, request.params.id);
      if (!found) throw notFound('event');
      return envelope(200, 'Event retrieved', toAdminEvent(found, ctx.paymentMethods));
    },
  );
}
