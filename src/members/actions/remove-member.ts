// Removes a member from an organization, audited; their sessions lose it on their next request.
// Only an owner may remove an owner, and the organization's last owner stays.
import type { AppContext } from '../../context.ts';
import type { ActingOn } from './member-actor.ts';
import { changeMembershipAs, type MembershipOutcome, type MembershipTarget } from './membership-change.ts';

export interface RemoveMemberOptions extends ActingOn {
  membership: MembershipTarget;
}

export function removeMember(
  ctx: AppContext,
  { membership, ...on }: RemoveMemberOptions,
): Promise<MembershipOutcome> {
  return changeMembershipAs(ctx, on, membership, null);
}
