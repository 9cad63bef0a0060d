// GET /organizations/:id/invitations: the organization's pending invitations (not accepted,
// withdrawn or expired), newest first; never their links.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listPendingInvitations } from '../../members/index.ts';
import { findOrganization } from '../../organizations/index.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { PendingInvitationOut } from './invitation-admin.schema.ts';

export function listInvitationsRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.get(
    '/organizations/:id/invitations',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(
            Type.Object({ invitations: Type.Array(PendingInvitationOut) }),
            'Invitations retrieved',
          ),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const rows = await listPendingInvitations(db, org.id, ctx.clock.now());
      return envelope(200, 'Invitations retrieved', {
        invitations: rows.map((row) => ({
          id: row.id,
          email: row.email,
          role: row.role,
          invited_by: row.invitedBy,
          expires_at: row.expiresAt.toISOString(),
          created_at: row.createdAt.toISOString(),
        })),
      });
    },
  );
}
