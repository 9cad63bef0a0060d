// Invitations to join an organization with a role: created by the operator (admin API, CLI) or by
// an owner or admin in the app; a single-use link, valid INVITATION_DAYS. Accepting makes the
// member (or, for someone who already has an account, proves it is them) and the membership.
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { joinOrganization, organizationColumns } from '../organizations/index.ts';
import { newId, validationError, type Database, type Executor } from '../platform/index.ts';
import { emailProblem, findMemberByEmail, isLastOwner, isMemberRole, type MemberRow } from './members.ts';
import { invitations, MEMBER_ROLES, members, memberships, type MemberRole } from './members.schema.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { appLink, hashOfToken, newToken } from './tokens.ts';

export const INVITATION_DAYS = 7;
const DAY_MS = 24 * 3600 * 1000;
const NAME_MAX_LENGTH = 200;

export type InvitationRow = typeof invitations.$inferSelect;

export type InvitationLookup =
  | { ok: true; invitation: InvitationRow; organizationName: string; existingMember: boolean }
  | { ok: false; reason: 'unknown' | 'expired' | 'used' | 'revoked' };

type Unusable = 'unknown' | 'expired' | 'used' | 'revoked';
type AcceptRefusal = Unusable | 'wrong_password' | 'weak_password';

type Refusal = { ok: false; reason: AcceptRefusal; message: string };

export type AcceptResult =
  { ok: true; member: MemberRow; organizationId: string; role: MemberRole; invitationId: string } | Refusal;

const MESSAGES: Record<Exclude<AcceptRefusal, 'weak_password'>, string> = {
  unknown: 'This invitation link is not valid. Check that you have all of it, or ask for a new invitation.',
  expired: 'This invitation has expired. Ask whoever invited you for a new one.',
  used: 'This invitation has already been used. Sign in instead.',
  revoked: 'This invitation was withdrawn. Ask whoever invited you for a new one.',
  wrong_password: 'You already have an account with this email address: enter the password you sign in with.',
};

/**
 * A new invitation, and its token (only in the link; the row keeps its hash). Earlier pending
 * invitations of the same email to the same organization are revoked: only the newest link works.
 * The caller checks the email first (emailProblem); a bad one is a validation_failed error.
 */
export async function createInvitation(
  db: Executor,
  input: { organizationId: string; email: string; role: MemberRole; invitedBy: string | null; now: Date },
): Promise<{ invitation: InvitationRow; token: string }> {
  const problem = emailProblem(input.email);
  if (problem) throw validationError([{ field: 'email', message: problem }]);
  if (!isMemberRole(input.role)) {
    throw validationError([{ field: 'role', message: `must be one of: ${MEMBER_ROLES.join(', ')}` }]);
  }
  const email = input.email.trim();
  const { token, tokenHash } = newToken();
  await db
    .update(invitations)
    .set({ revokedAt: input.now })
    .where(
      and(
        eq(invitations.organizationId, input.organizationId),
        sql`lower(${invitations.email}) = lower(${email})`,
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    );
  const [invitation] = await db
    .insert(invitations)
    .values({
      id: newId('inv'),
      organizationId: input.organizationId,
      email,
      role: input.role,
      tokenHash,
      invitedBy: input.invitedBy,
      expiresAt: new Date(input.now.getTime() + INVITATION_DAYS * DAY_MS),
      createdAt: input.now,
    })
    .returning();
  return { invitation: invitation!, token };
}

/** APP_URL origin + /invitations/<token> */
export function invitationUrl(appUrl: URL, token: string): string {
  return appLink(appUrl, '/invitations/', token);
}

function unusableReason(invitation: InvitationRow, now: Date): Unusable | null {
  if (invitation.acceptedAt) return 'used';
  if (invitation.revokedAt) return 'revoked';
  if (invitation.expiresAt.getTime() <= now.getTime()) return 'expired';
  return null;
}

export async function findInvitation(db: Executor, token: string, now: Date): Promise<InvitationLookup> {
  const tokenHash = hashOfToken(token);
  if (!tokenHash) return { ok: false, reason: 'unknown' };
  const query = db
    .select({ invitation: invitations, organizationName: organizationColumns.name })
    .from(invitations)
    .$dynamic();
  const [row] = await joinOrganization(query, invitations.organizationId).where(
    eq(invitations.tokenHash, tokenHash),
  );
  if (!row) return { ok: false, reason: 'unknown' };
  const reason = unusableReason(row.invitation, now);
  if (reason) return { ok: false, reason };
  const member = await findMemberByEmail(db, row.invitation.email);
  return {
    ok: true,
    invitation: row.invitation,
    organizationName: row.organizationName,
    existingMember: Boolean(member?.passwordHash),
  };
}

function refusal(reason: Exclude<AcceptRefusal, 'weak_password'>): Refusal {
  return { ok: false, reason, message: MESSAGES[reason] };
}

/**
 * Single use, in one transaction (the invitation row locked). A new member sets a password
 * (passwordProblem applies); an existing member (same email, already has a password) proves it
 * with their current password. Adds the membership (an existing one takes the invited role).
 */
export async function acceptInvitation(
  database: Database,
  token: string,
  input: { password: string; name?: string },
  now: Date,
): Promise<AcceptResult> {
  if (!hashOfToken(token)) return refusal('unknown');
  return database.transaction((tx) => acceptInvitationIn(tx, token, input, now));
}

/** acceptInvitation inside the caller's transaction, so that its audit entry commits with it. */
export async function acceptInvitationIn(
  tx: Executor,
  token: string,
  input: { password: string; name?: string },
  now: Date,
): Promise<AcceptResult> {
  const tokenHash = hashOfToken(token);
  if (!tokenHash) return refusal('unknown');
  const [invitation] = await tx
    .select()
    .from(invitations)
    .where(eq(invitations.tokenHash, tokenHash))
    .for('update');
  if (!invitation) return refusal('unknown');
  const reason = unusableReason(invitation, now);
  if (reason) return refusal(reason);

  const joined = await memberFor(tx, invitation.email, input, now);
  if (!joined.ok) return joined;
  // The invited role replaces a current one, except that an organization keeps an owner.
  const { organizationId } = invitation;
  const keepsOwner = await isLastOwner(tx, organizationId, joined.member.id, true);
  const role = keepsOwner ? 'owner' : invitation.role;
  await tx
    .insert(memberships)
    .values({ memberId: joined.member.id, organizationId, role, createdAt: now })
    .onConflictDoUpdate({ target: [memberships.memberId, memberships.organizationId], set: { role } });
  await tx.update(invitations).set({ acceptedAt: now }).where(eq(invitations.id, invitation.id));
  return { ok: true, member: joined.member, organizationId, role, invitationId: invitation.id };
}

/** The member the invitation's email names: proved by their password, or made with a new one. */
async function memberFor(
  tx: Executor,
  email: string,
  input: { password: string; name?: string },
  now: Date,
): Promise<{ ok: true; member: MemberRow } | Refusal> {
  const existing = await findMemberByEmail(tx, email);
  if (existing?.passwordHash) {
    if (!(await verifyPassword(input.password, existing.passwordHash))) return refusal('wrong_password');
    return { ok: true, member: existing };
  }
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, reason: 'weak_password', message: problem };
  const passwordHash = await hashPassword(input.password);
  // Cut by characters, never inside a surrogate pair.
  const name = [...(input.name ?? '').trim()].slice(0, NAME_MAX_LENGTH).join('');
  if (existing) {
    const [member] = await tx
      .update(members)
      .set({ passwordHash, passwordChangedAt: now, updatedAt: now, ...(name && { name }) })
      .where(eq(members.id, existing.id))
      .returning();
    return { ok: true, member: member! };
  }
  const [created] = await tx
    .insert(members)
    .values({
      id: newId('mem'),
      email: email.trim(),
      name,
      passwordHash,
      passwordChangedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (created) return { ok: true, member: created };
  // Another invitation of the same email was accepted at the same moment: that account now exists.
  const raced = await findMemberByEmail(tx, email);
  if (raced?.passwordHash && (await verifyPassword(input.password, raced.passwordHash))) {
    return { ok: true, member: raced };
  }
  return refusal('wrong_password');
}

/** Pending (not accepted, revoked or expired) invitations of the organization, newest first. */
export async function listPendingInvitations(
  db: Executor,
  organizationId: string,
  now: Date,
): Promise<InvitationRow[]> {
  return db
    .select()
    .from(invitations)
    .where(
      and(
        eq(invitations.organizationId, organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, now),
      ),
    )
    .orderBy(desc(invitations.createdAt), desc(invitations.id));
}

/** The invitation by its id, if still pending (not accepted, revoked or expired). */
export async function findPendingInvitation(
  db: Executor,
  invitationId: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db.select().from(invitations).where(eq(invitations.id, invitationId));
  return row && unusableReason(row, now) === null ? row : undefined;
}

/** Withdraws a pending invitation of the organization; false when there is none by that id. */
export async function revokePendingInvitation(
  db: Executor,
  organizationId: string,
  invitationId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(invitations)
    .set({ revokedAt: now })
    .where(
      and(
        eq(invitations.id, invitationId),
        eq(invitations.organizationId, organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning({ id: invitations.id });
  return rows.length > 0;
}
