// Members (people who sign in to the organizer app) and their memberships: lookups by id and by
// email, and the organizations a member belongs to. Emails are compared trimmed and lower-cased.
import { and, asc, eq, sql } from 'drizzle-orm';
import { joinOrganization, organizationColumns } from '../organizations/index.ts';
import type { Database, Executor } from '../platform/index.ts';
import { MEMBER_ROLES, members, memberships, type MemberRole } from './members.schema.ts';

export type MemberRow = typeof members.$inferSelect;

export interface MemberOrganization {
  organizationId: string;
  organizationName: string;
  /** the organization's time zone: the app shows its times in it */
  timeZone: string;
  role: MemberRole;
}

export interface OrganizationMember {
  memberId: string;
  email: string;
  name: string;
  role: MemberRole;
  createdAt: Date;
}

export const EMAIL_MAX_LENGTH = 254;
// The admin API's email shape (admin-schemas.ts): something@host.tld, no spaces.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** How emails are compared: trimmed, lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A message saying what is wrong with an email address (after trimming), or null. */
export function emailProblem(email: string): string | null {
  const trimmed = email.trim();
  if (trimmed === '') return 'must be an email address';
  if (trimmed.length > EMAIL_MAX_LENGTH) return `must be at most ${EMAIL_MAX_LENGTH} characters`;
  if (!EMAIL_SHAPE.test(trimmed)) return 'must be an email address, such as name@example.org';
  return null;
}

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === 'string' && (MEMBER_ROLES as readonly string[]).includes(value);
}

export async function findMember(db: Executor, id: string): Promise<MemberRow | undefined> {
  const [row] = await db.select().from(members).where(eq(members.id, id));
  return row;
}

/** Case-insensitive, trimmed (the unique index is on lower(email)). */
export async function findMemberByEmail(db: Executor, email: string): Promise<MemberRow | undefined> {
  const wanted = email.trim();
  if (wanted === '' || wanted.length > EMAIL_MAX_LENGTH) return undefined;
  // lower() on both sides: the database's idea of case (the unique index's) decides, not JS's.
  const [row] = await db
    .select()
    .from(members)
    .where(sql`lower(${members.email}) = lower(${wanted})`);
  return row;
}

/** The member's organizations, oldest membership first. */
export async function listMemberOrganizations(db: Executor, memberId: string): Promise<MemberOrganization[]> {
  const query = db
    .select({
      organizationId: memberships.organizationId,
      organizationName: organizationColumns.name,
      timeZone: organizationColumns.timezone,
      role: memberships.role,
    })
    .from(memberships)
    .$dynamic();
  return joinOrganization(query, memberships.organizationId)
    .where(eq(memberships.memberId, memberId))
    .orderBy(asc(memberships.createdAt), asc(memberships.organizationId));
}

/** The member's role in the organization, or null when they are not a member of it. */
export async function findMembershipRole(
  db: Executor,
  memberId: string,
  organizationId: string,
): Promise<MemberRole | null> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.memberId, memberId), eq(memberships.organizationId, organizationId)));
  return row?.role ?? null;
}

/** A member as the members page lists them: the member's row joined to their membership. */
function selectOrganizationMembers(db: Executor) {
  return db
    .select({
      memberId: members.id,
      email: members.email,
      name: members.name,
      role: memberships.role,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId));
}

/** The organization's members, oldest membership first. */
export async function listOrganizationMembers(
  db: Executor,
  organizationId: string,
): Promise<OrganizationMember[]> {
  return selectOrganizationMembers(db)
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.createdAt), asc(members.id));
}

/** One member of the organization, as the members page lists them; undefined when not a member. */
export async function findOrganizationMember(
  db: Executor,
  organizationId: string,
  memberId: string,
): Promise<OrganizationMember | undefined> {
  const [row] = await selectOrganizationMembers(db).where(
    and(eq(memberships.organizationId, organizationId), eq(memberships.memberId, memberId)),
  );
  return row;
}

/** True when the member is the organization's only owner (its rows locked when `lock`). */
export async function isLastOwner(
  db: Executor,
  organizationId: string,
  memberId: string,
  lock = false,
): Promise<boolean> {
  const query = db
    .select({ memberId: memberships.memberId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, 'owner')));
  const owners = lock ? await query.for('update') : await query;
  return owners.length === 1 && owners[0]!.memberId === memberId;
}

export type MembershipChange = { ok: true } | { ok: false; reason: 'not_found' | 'last_owner' };

/**
 * Gives a member of the organization another role, or removes them (role null). An organization
 * keeps at least one owner: the last one can be neither demoted nor removed. Whether the acting
 * member may do this is the caller's question (roles.ts canChangeMember).
 */
export async function changeMembership(
  database: Database,
  input: { organizationId: string; memberId: string; role: MemberRole | null },
): Promise<MembershipChange> {
  return database.transaction((tx) => changeMembershipIn(tx, input));
}

/** changeMembership inside the caller's transaction, so that its audit entry commits with it. */
export async function changeMembershipIn(
  tx: Executor,
  input: { organizationId: string; memberId: string; role: MemberRole | null },
): Promise<MembershipChange> {
  // The owners' rows locked, so two owners cannot demote each other at the same moment.
  const lastOwner = await isLastOwner(tx, input.organizationId, input.memberId, true);
  if (lastOwner && input.role !== 'owner') return { ok: false, reason: 'last_owner' };
  const target = and(
    eq(memberships.organizationId, input.organizationId),
    eq(memberships.memberId, input.memberId),
  );
  const rows =
    input.role === null
      ? await tx.delete(memberships).where(target).returning({ memberId: memberships.memberId })
      : await tx
          .update(memberships)
          .set({ role: input.role })
          .where(target)
          .returning({ memberId: memberships.memberId });
  return rows.length > 0 ? { ok: true } : { ok: false, reason: 'not_found' };
}
