// Gives a member of an organization another role, audited. Only an owner may make an owner or
// change one, and the organization's last owner keeps the role.
import type { AppContext } from '../../context.ts';
import type { MemberRole } from '../roles.ts';
import type { ActingOn } from './member-actor.ts';
import { changeMembershipAs, type MembershipOutcome, type MembershipTarget } from './membership-change.ts';

export interface ChangeMemberRoleOptions extends ActingOn {
  membership: MembershipTarget;
  role: MemberRole;
}

export function changeMemberRole(
  ctx: AppContext,
  { membership, role, ...on }: ChangeMemberRoleOptions,
): Promise<MembershipOutcome> {
  return changeMembershipAs(ctx, on, membership, role);
}
