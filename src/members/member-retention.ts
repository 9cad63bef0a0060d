// Members' part of retention (src/privacy/ drives it): sign-in sessions, password resets and
// invitations are kept while they can be used and for RETENTION_EXPIRED_DAYS after they ended,
// then deleted. A member's own record is not retention's to delete (docs/privacy.md).
import { inArray, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../platform/index.ts';
import { invitations, memberSessions, passwordResets } from './members.schema.ts';

/** Deletes up to `limit` rows of `table` that match `ended`, by key; counts them. */
async function deletePage(
  tx: Executor,
  table: PgTable,
  key: PgColumn,
  ended: SQL | undefined,
  limit: number,
): Promise<number> {
  const page = tx.select({ key }).from(table).where(ended).orderBy(key).limit(limit);
  const deleted = await tx.delete(table).where(inArray(key, page)).returning({ key });
  return deleted.length;
}

export interface EndedMemberRecords {
  sessions: number;
  passwordResets: number;
  invitations: number;
}

/**
 * Deletes up to `limit` of each: sessions that expired or were revoked before `before`, password
 * resets that expired before it (used or not), and invitations that expired before it (accepted,
 * revoked or never used: the audit log keeps who invited whom).
 */
export async function deleteEndedMemberRecords(
  tx: Executor,
  options: { before: Date; limit: number },
): Promise<EndedMemberRecords> {
  const { limit } = options;
  return {
    sessions: await deletePage(
      tx,
      memberSessions,
      memberSessions.id,
      or(lt(memberSessions.expiresAt, options.before), lt(memberSessions.revokedAt, options.before)),
      limit,
    ),
    passwordResets: await deletePage(
      tx,
      passwordResets,
      passwordResets.tokenHash,
      lt(passwordResets.expiresAt, options.before),
      limit,
    ),
    invitations: await deletePage(
      tx,
      invitations,
      invitations.id,
      lt(invitations.expiresAt, options.before),
      limit,
    ),
  };
}
