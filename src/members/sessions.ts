// Organizer app sessions, stored in the database so they can be listed and revoked. The cookie
// holds a random token; the row keeps its SHA-256 and is named by its `ast_` id. A session ends
// at expires_at however active it is, or earlier after idleMinutes unused.
import { and, desc, eq, exists, gt, isNull, ne, type SQL } from 'drizzle-orm';
import { newId, randomString, type Executor } from '../platform/index.ts';
import { listMemberOrganizations, type MemberRow } from './members.ts';
import { memberSessions, members, memberships, type MemberRole } from './members.schema.ts';
import { hashOfToken, newToken } from './tokens.ts';

/** ctx.config.appSessions */
export interface SessionLifetimes {
  idleMinutes: number;
  maxHours: number;
}

export type MemberSessionRow = typeof memberSessions.$inferSelect;

export interface CurrentSession {
  session: MemberSessionRow;
  member: MemberRow;
  organizationId: string;
  organizationName: string;
  /** the organization's time zone: the app shows its times in it */
  timeZone: string;
  role: MemberRole;
}

const MINUTE_MS = 60_000;
const USER_AGENT_MAX_LENGTH = 512;

/** A new session (new id and token at every sign-in); the token goes in the cookie, only its SHA-256 is stored. */
export async function createMemberSession(
  db: Executor,
  input: {
    memberId: string;
    organizationId: string;
    userAgent: string;
    now: Date;
    lifetimes: SessionLifetimes;
  },
): Promise<{ session: MemberSessionRow; token: string }> {
  const { token, tokenHash } = newToken();
  const [session] = await db
    .insert(memberSessions)
    .values({
      id: newId('ast'),
      tokenHash,
      memberId: input.memberId,
      organizationId: input.organizationId,
      csrfToken: randomString(43),
      userAgent: input.userAgent.slice(0, USER_AGENT_MAX_LENGTH),
      createdAt: input.now,
      lastSeenAt: input.now,
      expiresAt: new Date(input.now.getTime() + input.lifetimes.maxHours * 60 * MINUTE_MS),
    })
    .returning();
  return { session: session!, token };
}

/** The conditions a session meets while it is live. */
function live(now: Date, lifetimes: SessionLifetimes): SQL {
  return and(
    isNull(memberSessions.revokedAt),
    gt(memberSessions.expiresAt, now),
    gt(memberSessions.lastSeenAt, new Date(now.getTime() - lifetimes.idleMinutes * MINUTE_MS)),
  )!;
}

/**
 * The live session of a cookie token, or null (unknown, revoked, past expires_at, or unused for
 * idleMinutes). Updates last_seen_at when it is more than a minute old. If the member lost the
 * session's organization, the session moves to their oldest other membership; none left: null.
 */
export async function findCurrentSession(
  db: Executor,
  token: string,
  now: Date,
  lifetimes: SessionLifetimes,
): Promise<CurrentSession | null> {
  const tokenHash = hashOfToken(token);
  if (!tokenHash) return null;
  const [row] = await db
    .select({ session: memberSessions, member: members })
    .from(memberSessions)
    .innerJoin(members, eq(members.id, memberSessions.memberId))
    .where(and(eq(memberSessions.tokenHash, tokenHash), live(now, lifetimes)));
  if (!row) return null;
  const organizations = await listMemberOrganizations(db, row.member.id);
  const current =
    organizations.find((o) => o.organizationId === row.session.organizationId) ?? organizations[0];
  if (!current) return null;

  let session = row.session;
  const moved = current.organizationId !== session.organizationId;
  const stale = now.getTime() - session.lastSeenAt.getTime() > MINUTE_MS;
  if (moved || stale) {
    const [updated] = await db
      .update(memberSessions)
      .set({
        ...(moved && { organizationId: current.organizationId }),
        ...(stale && { lastSeenAt: now }),
      })
      .where(and(eq(memberSessions.id, session.id), isNull(memberSessions.revokedAt)))
      .returning();
    if (!updated) return null; // revoked in the meantime
    session = updated;
  }
  return {
    session,
    member: row.member,
    organizationId: current.organizationId,
    organizationName: current.organizationName,
    timeZone: current.timeZone,
    role: current.role,
  };
}

/** The member's live sessions, newest first. */
export async function listMemberSessions(
  db: Executor,
  memberId: string,
  now: Date,
  lifetimes: SessionLifetimes,
): Promise<MemberSessionRow[]> {
  return db
    .select()
    .from(memberSessions)
    .where(and(eq(memberSessions.memberId, memberId), live(now, lifetimes)))
    .orderBy(desc(memberSessions.createdAt), desc(memberSessions.id));
}

/** Ends one of the member's sessions; false when the member has no such session still open. */
export async function revokeMemberSession(
  db: Executor,
  memberId: string,
  sessionId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(memberSessions)
    .set({ revokedAt: now })
    .where(
      and(
        eq(memberSessions.id, sessionId),
        eq(memberSessions.memberId, memberId),
        isNull(memberSessions.revokedAt),
      ),
    )
    .returning({ id: memberSessions.id });
  return rows.length > 0;
}

/** Revokes every live session of the member but keepSessionId (null: all); returns how many. */
export async function revokeOtherSessions(
  db: Executor,
  memberId: string,
  keepSessionId: string | null,
  now: Date,
): Promise<number> {
  const rows = await db
    .update(memberSessions)
    .set({ revokedAt: now })
    .where(
      and(
        eq(memberSessions.memberId, memberId),
        isNull(memberSessions.revokedAt),
        gt(memberSessions.expiresAt, now),
        keepSessionId === null ? undefined : ne(memberSessions.id, keepSessionId),
      ),
    )
    .returning({ id: memberSessions.id });
  return rows.length;
}

/** Moves the session to another of the member's organizations; false when the member has no membership of it. */
export async function switchOrganization(
  db: Executor,
  sessionId: string,
  memberId: string,
  organizationId: string,
): Promise<boolean> {
  const membership = db
    .select({ one: memberships.memberId })
    .from(memberships)
    .where(and(eq(memberships.memberId, memberId), eq(memberships.organizationId, organizationId)));
  const rows = await db
    .update(memberSessions)
    .set({ organizationId })
    .where(
      and(
        eq(memberSessions.id, sessionId),
        eq(memberSessions.memberId, memberId),
        isNull(memberSessions.revokedAt),
        exists(membership),
      ),
    )
    .returning({ id: memberSessions.id });
  return rows.length > 0;
}
