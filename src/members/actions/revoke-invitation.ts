// Withdraws a pending invitation, audited: its link stops working. Whoever may not give the
// invited role (an admin, for an owner's invitation) may not withdraw it either.
import { recordAudit, withinReach } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome } from '../../platform/index.ts';
import { findPendingInvitation, revokePendingInvitation, type InvitationRow } from '../invitations.ts';
import {
  mayChangeMember,
  memberAudit,
  NOT_PERMITTED,
  type ActingOn,
  type NotPermitted,
} from './member-actor.ts';

export interface RevokeInvitationOptions extends ActingOn {
  invitationId: string;
}

export async function revokeInvitation(
  ctx: AppContext,
  { invitationId, ...on }: RevokeInvitationOptions,
): Promise<Outcome<InvitationRow, NotPermitted>> {
  const now = ctx.clock.now();
  const invitation = withinReach(on, await findPendingInvitation(ctx.database.db, invitationId, now));
  if (!invitation) return notThere;
  const { organizationId } = invitation;
  return ctx.database.transaction(async (tx): Promise<Outcome<InvitationRow, NotPermitted>> => {
    if (!(await mayChangeMember(tx, on, organizationId, invitation.role, null))) return NOT_PERMITTED;
    if (!(await revokePendingInvitation(tx, organizationId, invitation.id, now))) return notThere;
    const entry = memberAudit(on, organizationId, {
      action: 'member.invitation_revoked',
      targetType: 'invitation',
      targetId: invitation.id,
      details: { email: invitation.email, role: invitation.role },
    });
    await recordAudit(tx, entry, now);
    return { done: invitation };
  });
}
