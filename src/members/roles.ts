// What each member role may do in the organizer app (DESIGN.md section 7): one table, asked
// through can(), so that pages and tests agree.
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

/** owner: all; admin: all (but may not remove or demote an owner); developer: read + developer_settings; viewer: read */
export function can(role: MemberRole, permission: Permission): boolean {
  return PERMISSIONS[role]?.includes(permission) ?? false;
}

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
