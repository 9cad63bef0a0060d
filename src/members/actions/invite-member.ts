// Invites someone to an organization with a role, audited: the operator (admin API, CLI) to any
// organization, an owner or admin in the app to their own. Someone already a member is not invited
// again; a pending invitation of the same email is withdrawn, so only the newest link works. The
// answer carries the single-use link, which only it holds; mailing it is the interface's affair.
import { recordAudit, withinReach } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { findOrganization } from '../../organizations/index.ts';
import { conflict, invalid, notThere, type FieldError, type Outcome } from '../../platform/index.ts';
import { createInvitation, invitationUrl, type InvitationRow } from '../invitations.ts';
import { emailProblem, findMemberByEmail, findMembershipRole, isMemberRole } from '../members.ts';
import { MEMBER_ROLES } from '../roles.ts';
import {
  mayChangeMember,
  memberAudit,
  NOT_PERMITTED,
  type ActingOn,
  type NotPermitted,
} from './member-actor.ts';

export interface InviteMemberOptions extends ActingOn {
  invitation: { organizationId: string; email: string; role: string };
}

export interface Invited {
  invitation: InvitationRow;
  /** the link to send: it works once, and is shown only this once */
  url: string;
}

const ALREADY_A_MEMBER = 'This person is already a member of this organization.';

export async function inviteMember(
  ctx: AppContext,
  { invitation: input, ...on }: InviteMemberOptions,
): Promise<Outcome<Invited, NotPermitted>> {
  const organization = await findOrganization(ctx.database.db, input.organizationId);
  if (!organization || !withinReach(on, { organizationId: organization.id })) return notThere;
  const organizationId = organization.id;
  const errors: FieldError[] = [];
  const problem = emailProblem(input.email);
  if (problem) errors.push({ field: 'email', message: problem });
  const role = isMemberRole(input.role) ? input.role : null;
  if (!role) errors.push({ field: 'role', message: `must be one of: ${MEMBER_ROLES.join(', ')}` });
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx): Promise<Outcome<Invited, NotPermitted>> => {
    // A role the inviter may not give is refused whatever else is wrong: the form never offers it.
    if (role && !(await mayChangeMember(tx, on, organizationId, role, role))) return NOT_PERMITTED;
    if (!role || errors.length > 0) return invalid(errors);
    const existing = await findMemberByEmail(tx, input.email);
    if (existing && (await findMembershipRole(tx, existing.id, organizationId))) {
      return conflict(ALREADY_A_MEMBER, 'email');
    }
    const { invitation, token } = await createInvitation(tx, {
      organizationId,
      email: input.email,
      role,
      invitedBy: on.actor.memberId,
      now,
    });
    const entry = memberAudit(on, organizationId, {
      action: 'member.invited',
      targetType: 'invitation',
      targetId: invitation.id,
      details: { email: invitation.email, role },
    });
    await recordAudit(tx, entry, now);
    return { done: { invitation, url: invitationUrl(ctx.config.appUrl, token) } };
  });
}
