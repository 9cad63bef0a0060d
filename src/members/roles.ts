// The organizer app's roles and the permissions its access check asks about through can()
// (app/app-access.ts): every role reads; owners, admins and developers change developer settings;
// owners and admins manage members and read the audit log. Writes to the organization's business
// (events and bib numbers, refunds, confirmation resends, buyer erasures) are for owners and admins,
// decided by the module that owns each write (docs/architecture.md#organizer-roles).
import type { MemberRole } from './members.schema.ts';

// For other modules, which may not import this module's schema file.
export { MEMBER_ROLES, type MemberRole } from './members.schema.ts';

export type Permission = 'read' | 'developer_settings' | 'members' | 'audit_log';

const PERMISSIONS: Record<MemberRole, readonly Permission[]> = {
  owner: ['read', 'developer_settings', 'members', 'audit_log'],
  admin: ['read', 'developer_settings', 'members', 'audit_log'],
  developer: ['read', 'developer_settings'],
  viewer: ['read'],
};

/** Whether `role` holds `permission`. Who may touch an owner is canChangeMember's question. */
export function can(role: MemberRole, permission: Permission): boolean {
  return PERMISSIONS[role]?.includes(permission) ?? false;
}

/** Each role in a sentence, as members read it (members page, invitation, overview). */
export const ROLE_DESCRIPTIONS: Record<MemberRole, string> = {
  owner: 'Everything, including members, owners and refunds.',
  admin: 'Everything except removing or demoting an owner.',
  developer: 'Developer settings (API clients, webhooks); read-only elsewhere.',
  viewer: 'Read-only: sees everything but the audit log, changes nothing.',
};

/**
 * Whether a member with role `actor` may change a member whose role is `target` to `next` (null:
 * remove them). Needs the members permission; only an owner may touch an owner or make one.
 */
export function canChangeMember(actor: MemberRole, target: MemberRole, next: MemberRole | null): boolean {
  if (!can(actor, 'members')) return false;
  if (actor === 'owner') return true;
  return target !== 'owner' && next !== 'owner';
}
