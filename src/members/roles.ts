// The organizer app's roles and what each may do: one table, asked through can() by the app's
// access check (app/app-access.ts, from each route's declared permission) and by pages choosing
// which buttons to show. Every role but the checker reads; owners, admins and developers change developer
// settings; owners and admins manage members, read the audit log, see buyers' contact details and
// make the writes to the organization's business (events and bib numbers, runners' corrections and
// transfers, refunds, confirmation resends, buyer erasures); owners, admins and viewers download
// exports of runners and orders (docs/architecture.md#organizer-roles,
// docs/decisions/buyer-contacts-and-exports.md); owners, admins and checkers check runners in, and
// checkers do nothing else (docs/decisions/checker-role.md); owners alone change the organization's
// settings (docs/decisions/organization-settings.md).
import type { MemberRole } from './members.schema.ts';

// For other modules, which may not import this module's schema file.
export { MEMBER_ROLES, type MemberRole } from './members.schema.ts';

/** Every permission a route may declare, with the refusal its access check logs. */
export const PERMISSIONS = {
  read: 'role may not read',
  developer_settings: 'role may not change developer settings',
  members: 'role may not manage members',
  audit_log: 'role may not read the audit log',
  events: 'role may not change events or bib numbers',
  runners: "role may not correct or transfer runners' places",
  refunds: 'role may not refund',
  confirmation_resends: 'role may not resend confirmations',
  buyer_erasure: "role may not erase a buyer's data",
  exports: 'role may not export runners or orders',
  buyer_contacts: "role may not see buyers' contact details",
  check_in: 'role may not check runners in',
  organization_settings: "role may not change the organization's settings",
} as const;

export type Permission = keyof typeof PERMISSIONS;

/** The table: one line per role, so that a new role is one line here (and its description below). */
const GRANTS: Record<MemberRole, readonly Permission[]> = {
  owner: Object.keys(PERMISSIONS) as Permission[],
  // the organization's own name, contact, time zone and currency are the owners'
  admin: (Object.keys(PERMISSIONS) as Permission[]).filter((p) => p !== 'organization_settings'),
  developer: ['read', 'developer_settings'],
  // race-day helpers print and download lists of runners, without the buyers' email and phone
  viewer: ['read', 'exports'],
  // race-day volunteers at the pack desk: the check-in page and nothing else, not even reading
  checker: ['check_in'],
};

/** Whether `role` holds `permission`. Who may touch an owner is canChangeMember's question. */
export function can(role: MemberRole, permission: Permission): boolean {
  return Object.hasOwn(GRANTS, role) && GRANTS[role].includes(permission);
}

/** Each role in a sentence, as members read it (members page, invitation, overview). */
export const ROLE_DESCRIPTIONS: Record<MemberRole, string> = {
  owner: 'Everything, including members, owners and refunds.',
  admin: "Everything except removing or demoting an owner, and the organization's settings.",
  developer:
    "Developer settings (API clients, webhooks); read-only elsewhere, no exports or buyers' contacts.",
  viewer: "Read-only: downloads runner lists; no audit log or buyers' email and phone.",
  checker: 'Race-day check-in only: finds runners and marks race packs collected; sees nothing else.',
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
