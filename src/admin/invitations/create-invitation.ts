// POST /organizations/:id/invitations: the operator invites someone (often the first owner) to an
// organization (members/actions/); the single-use link is in the answer, and only there.
import type { AppContext } from '../../context.ts';
import { inviteMember } from '../../members/index.ts';
import { Envelope, refusalError, send, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import { InvitationCreatedOut, InvitationCreateIn } from './invitation-admin.schema.ts';

export function createInvitationRoute(admin: Host, ctx: AppContext): void {
  admin.post(
    '/organizations/:id/invitations',
    {
      schema: {
        params: IdParams,
        body: InvitationCreateIn,
        response: {
          201: Envelope(InvitationCreatedOut, 'Invitation created'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const outcome = await inviteMember(ctx, {
        actor: operatorOf(request),
        invitation: { organizationId: request.params.id, ...request.body },
      });
      if (!('done' in outcome)) {
        // The operator may give any role: a refusal of its own would be a fault here.
        if (outcome.refused === 'not_permitted') throw new Error('the operator was refused an invitation');
        throw refusalError(outcome, 'organization');
      }
      const { invitation, url } = outcome.done;
      return send(reply, 201, 'Invitation created', {
        invitation_url: url,
        expires_at: invitation.expiresAt.toISOString(),
        email: invitation.email,
        role: invitation.role,
      });
    },
  );
}
