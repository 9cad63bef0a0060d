// Password resets by an emailed single-use link (valid RESET_MINUTES), and changing one's own
// password. Either way the member's other sessions end: whoever knew the old password is out.
import { and, eq, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../platform/index.ts';
import { findMember, findMemberByEmail, type MemberRow } from './members.ts';
import { members, passwordResets } from './members.schema.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { revokeOtherSessions } from './sessions.ts';
import { appLink, hashOfToken, newToken } from './tokens.ts';

export const RESET_MINUTES = 60;

type Unusable = 'unknown' | 'expired' | 'used';
type ResetRow = typeof passwordResets.$inferSelect;

export type PasswordResetLookup = { ok: true; member: MemberRow } | { ok: false; reason: Unusable };

export type ResetResult =
  { ok: true; member: MemberRow } | { ok: false; reason: Unusable | 'weak_password'; message: string };

export type ChangePasswordResult = { ok: true } | { ok: false; field: 'current' | 'next'; message: string };

const MESSAGES: Record<Unusable, string> = {
  unknown: 'This password reset link is not valid. Check that you have all of it, or ask for a new one.',
  expired: `This password reset link has expired (links last ${RESET_MINUTES} minutes). Ask for a new one.`,
  used: 'This password reset link has already been used. Ask for a new one if you need to.',
};

/** null when no member has that email (the caller answers the same either way) */
export async function requestPasswordReset(
  db: Executor,
  email: string,
  now: Date,
): Promise<{ member: MemberRow; token: string } | null> {
  const member = await findMemberByEmail(db, email);
  if (!member) return null;
  const { token, tokenHash } = newToken();
  await db.insert(passwordResets).values({
    tokenHash,
    memberId: member.id,
    expiresAt: new Date(now.getTime() + RESET_MINUTES * 60_000),
    createdAt: now,
  });
  return { member, token };
}

/** APP_URL origin + /password-reset/<token> */
export function passwordResetUrl(appUrl: URL, token: string): string {
  return appLink(appUrl, '/password-reset/', token);
}

function unusableReason(reset: ResetRow, now: Date): Unusable | null {
  if (reset.usedAt) return 'used';
  if (reset.expiresAt.getTime() <= now.getTime()) return 'expired';
  return null;
}

export async function findPasswordReset(
  db: Executor,
  token: string,
  now: Date,
): Promise<PasswordResetLookup> {
  const tokenHash = hashOfToken(token);
  if (!tokenHash) return { ok: false, reason: 'unknown' };
  const [row] = await db
    .select({ reset: passwordResets, member: members })
    .from(passwordResets)
    .innerJoin(members, eq(members.id, passwordResets.memberId))
    .where(eq(passwordResets.tokenHash, tokenHash));
  if (!row) return { ok: false, reason: 'unknown' };
  const reason = unusableReason(row.reset, now);
  return reason ? { ok: false, reason } : { ok: true, member: row.member };
}

/** Single use; sets the password and revokes every session of the member. */
export async function resetPassword(
  database: Database,
  token: string,
  password: string,
  now: Date,
): Promise<ResetResult> {
  const tokenHash = hashOfToken(token);
  if (!tokenHash) return { ok: false, reason: 'unknown', message: MESSAGES.unknown };
  return database.transaction(async (tx): Promise<ResetResult> => {
    const [reset] = await tx
      .select()
      .from(passwordResets)
      .where(eq(passwordResets.tokenHash, tokenHash))
      .for('update');
    const reason = reset ? unusableReason(reset, now) : 'unknown';
    if (!reset || reason)
      return { ok: false, reason: reason ?? 'unknown', message: MESSAGES[reason ?? 'unknown'] };
    const problem = passwordProblem(password);
    if (problem) return { ok: false, reason: 'weak_password', message: problem };

    const member = await setPassword(tx, reset.memberId, await hashPassword(password), now);
    // This link and any other the member asked for are spent: the password they were for is gone.
    await tx
      .update(passwordResets)
      .set({ usedAt: now })
      .where(and(eq(passwordResets.memberId, reset.memberId), isNull(passwordResets.usedAt)));
    await revokeOtherSessions(tx, reset.memberId, null, now);
    return { ok: true, member };
  });
}

async function setPassword(
  db: Executor,
  memberId: string,
  passwordHash: string,
  now: Date,
): Promise<MemberRow> {
  const [member] = await db
    .update(members)
    .set({ passwordHash, passwordChangedAt: now, updatedAt: now })
    .where(eq(members.id, memberId))
    .returning();
  return member!;
}

/** Revokes the member's other sessions. */
export async function changePassword(
  database: Database,
  input: { memberId: string; current: string; next: string; keepSessionId: string; now: Date },
): Promise<ChangePasswordResult> {
  const member = await findMember(database.db, input.memberId);
  if (!member?.passwordHash || !(await verifyPassword(input.current, member.passwordHash))) {
    return { ok: false, field: 'current', message: 'Your current password is not right' };
  }
  const problem = passwordProblem(input.next);
  if (problem) return { ok: false, field: 'next', message: problem };
  if (input.next === input.current) {
    return { ok: false, field: 'next', message: 'New password must be different from your current password' };
  }
  const passwordHash = await hashPassword(input.next);
  return database.transaction(async (tx): Promise<ChangePasswordResult> => {
    // Only over the password just checked: a reset or change in the meantime wins.
    const [changed] = await tx
      .update(members)
      .set({ passwordHash, passwordChangedAt: input.now, updatedAt: input.now })
      .where(and(eq(members.id, member.id), eq(members.passwordHash, member.passwordHash!)))
      .returning({ id: members.id });
    if (!changed)
      return { ok: false, field: 'current', message: 'Your password was changed meanwhile; sign in again' };
    await revokeOtherSessions(tx, member.id, input.keepSessionId, input.now);
    return { ok: true };
  });
}
