// What changing a member's role and removing a member share: the member found in the organization
// within the actor's reach, who may touch them, the last-owner rule, the write and its entry, all
// in one transaction, so the rules see the roles as they are at the write.
import { recordAudit, withinReach } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome } from '../../platform/index.ts';
import { changeMembershipIn, findOrganizationMember, type OrganizationMember } from '../members.ts';
import type { MemberRole } from '../roles.ts';
import {
  mayChangeMember,
  memberAudit,
  NOT_PERMITTED,
  type ActingOn,
  type NotPermitted,
} from './member-actor.ts';

/** The membership an action changes: the member, in one of their organizations. */
export interface MembershipTarget {
  organizationId: string;
  memberId: string;
}

/** Refused: the member is the organization's only owner, and an organization keeps an owner. */
interface LastOwner {
  refused: 'last_owner';
  member: OrganizationMember;
}

interface MembershipChanged {
  /** the member as they were before the change */
  member: OrganizationMember;
  /** false when the member already had the role asked for: nothing written, nothing recorded */
  changed: boolean;
}

export type MembershipOutcome = Outcome<MembershipChanged, NotPermitted | LastOwner>;

/** Gives the member role `next`, or removes them (null). */
export async function changeMembershipAs(
  ctx: AppContext,
  on: ActingOn,
  target: MembershipTarget,
  next: MemberRole | null,
): Promise<MembershipOutcome> {
  if (!withinReach(on, target)) return notThere;
  const { organizationId, memberId } = target;
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx): Promise<MembershipOutcome> => {
    const member = await findOrganizationMember(tx, organizationId, memberId);
    if (!member) return notThere;
    if (!(await mayChangeMember(tx, on, organizationId, member.role, next))) return NOT_PERMITTED;
    if (next === member.role) return { done: { member, changed: false } };
    const result = await changeMembershipIn(tx, { organizationId, memberId, role: next });
    if (!result.ok) return result.reason === 'last_owner' ? { refused: 'last_owner', member } : notThere;
    const entry = memberAudit(on, organizationId, {
      action: next === null ? 'member.removed' : 'member.role_changed',
      targetType: 'member',
      targetId: memberId,
      details:
        next === null
          ? { email: member.email, role: member.role }
          : { email: member.email, from: member.role, to: next },
    });
    await recordAudit(tx, entry, now);
    return { done: { member, changed: true } };
  });
}
