// Who may change an organization's members and invitations: the operator any; a member as
// canChangeMember says of the role they hold when the action runs (read in its transaction, so
// a role taken away a moment ago no longer counts). API clients never manage members.
import type { ActingOn, AuditEntry } from '../../audit/index.ts';
import type { Executor } from '../../platform/index.ts';
import { findMembershipRole } from '../members.ts';
import { canChangeMember, type MemberRole } from '../roles.ts';

export type { ActingOn };

/** A change the acting member's role does not allow (an admin touching an owner, a viewer). */
export interface NotPermitted {
  refused: 'not_permitted';
}
export const NOT_PERMITTED: NotPermitted = { refused: 'not_permitted' };

/** Whether `on` may change someone of role `target` in the organization to `next` (null: remove). */
export async function mayChangeMember(
  db: Executor,
  on: ActingOn,
  organizationId: string,
  target: MemberRole,
  next: MemberRole | null,
): Promise<boolean> {
  if (on.organizationId === undefined) return true;
  if (on.organizationId !== organizationId || on.actor.memberId === null) return false;
  const role = await findMembershipRole(db, on.actor.memberId, organizationId);
  return role !== null && canChangeMember(role, target, next);
}

export function memberAudit(
  on: ActingOn,
  organizationId: string,
  entry: Pick<AuditEntry, 'action' | 'targetType' | 'targetId' | 'details'>,
): AuditEntry {
  return { organizationId, actor: on.actor, ...entry };
}
