// POST /organizations/:id/invitations: the operator invites someone (often the first owner) to an
// organization; the single-use link is in the answer, and only there.
import type { AppContext } from '../../context.ts';
import { createInvitation, invitationUrl } from '../../members/invitations.ts';
import { emailProblem } from '../../members/members.ts';
import { findOrganization } from '../../organizations/organizations.ts';
import { notFound, validationError } from '../../platform/errors.ts';
import { send, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { InvitationCreatedOut, InvitationCreateIn } from './invitation-admin.schema.ts';
import { auditAsOperator } from '../admin-audit.ts';

export function createInvitationRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.post(
    '/organizations/:id/invitations',
    {
      schema: {
        params: IdParams,
        body: InvitationCreateIn,
        response: {
          201: Envelope(InvitationCreatedOut, 'Invitation created'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const problem = emailProblem(request.body.email);
      if (problem) throw validationError([{ field: 'email', message: problem }]);
      const now = ctx.clock.now();
      const { invitation, token } = await ctx.database.transaction(async (tx) => {
        const created = await createInvitation(tx, {
          organizationId: org.id,
          email: request.body.email,
          role: request.body.role,
          invitedBy: null,
          now,
        });
        const change = {
          action: 'member.invited',
          targetType: 'invitation',
          targetId: created.invitation.id,
          details: { email: created.invitation.email, role: created.invitation.role },
        } as const;
        await auditAsOperator(tx, request, org.id, [change], now);
        return created;
      });
      return send(reply, 201, 'Invitation created', {
        invitation_url: invitationUrl(ctx.config.appUrl, token),
        expires_at: invitation.expiresAt.toISOString(),
        email: invitation.email,
        role: invitation.role,
      });
    },
  );
}
