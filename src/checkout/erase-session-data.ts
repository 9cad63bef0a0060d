// Checkout sessions' part of retention and erasure (src/privacy/ drives both): the buyer's details
// a partner passed as prefill are cleared with the order's buyer data or by the buyer's email, and
// sessions that ended without an order are deleted some days after they expired.
import { and, asc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { checkoutSessions } from './checkout.schema.ts';

const hasPrefill = sql`${checkoutSessions.prefill} <> '{}'::jsonb`;

/** Clears the prefill of these sessions; counts the sessions changed. */
export async function clearPrefill(tx: Executor, sessionIds: string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const changed = await tx
    .update(checkoutSessions)
    .set({ prefill: {} })
    .where(and(inArray(checkoutSessions.id, sessionIds), hasPrefill))
    .returning({ id: checkoutSessions.id });
  return changed.length;
}

/**
 * Clears the prefill of every session prefilled with this buyer's email (lower-cased and trimmed
 * by the caller), in one organization or in all, orders or not. No index serves it: it reads the
 * organization's sessions (or all), which retention keeps to the live ones, the completed ones and
 * those of the last RETENTION_EXPIRED_DAYS.
 */
export async function clearPrefillOfBuyer(
  tx: Executor,
  options: { email: string; organizationId?: string | undefined },
): Promise<Array<{ organizationId: string }>> {
  return tx
    .update(checkoutSessions)
    .set({ prefill: {} })
    .where(
      and(
        options.organizationId === undefined
          ? undefined
          : eq(checkoutSessions.organizationId, options.organizationId),
        sql`lower(btrim(${checkoutSessions.prefill} ->> 'buyer_email')) = ${options.email}`,
      ),
    )
    .returning({ organizationId: checkoutSessions.organizationId });
}

/** Not completed, and expired before `before` (a session lives 24 hours). */
const endedBefore = (before: Date) =>
  and(ne(checkoutSessions.status, 'complete'), lt(checkoutSessions.expiresAt, before));

/** A page, by id, of sessions that ended without being completed before `before`. */
export async function findEndedSessions(
  db: Executor,
  options: { before: Date; after: string | null; limit: number },
): Promise<string[]> {
  const rows = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(
        options.after === null ? undefined : gt(checkoutSessions.id, options.after),
        endedBefore(options.before),
      ),
    )
    .orderBy(asc(checkoutSessions.id))
    .limit(options.limit);
  return rows.map((r) => r.id);
}

/**
 * Deletes these sessions if they still ended before `before`; the caller has left out those an
 * order points at (the foreign key would refuse them). Counts the sessions deleted.
 */
export async function deleteEndedSessions(tx: Executor, sessionIds: string[], before: Date): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const deleted = await tx
    .delete(checkoutSessions)
    .where(and(inArray(checkoutSessions.id, sessionIds), endedBefore(before)))
    .returning({ id: checkoutSessions.id });
  return deleted.length;
}
