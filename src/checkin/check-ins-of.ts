// The live check-in of each of some registrations, for pages that show a runner (the order page).
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { checkIns } from './checkin.schema.ts';

export interface RunnerCheckIn {
  checkedInAt: Date;
  /** the volunteer as the check-in page named them */
  by: string;
}

/** Each registration's live (not undone, not a losing conflict) check-in, by registration id. */
export async function checkInsOf(
  db: Executor,
  organizationId: string,
  registrationIds: readonly string[],
): Promise<Map<string, RunnerCheckIn>> {
  if (registrationIds.length === 0) return new Map();
  const rows = await db
    .select({ registrationId: checkIns.registrationId, at: checkIns.checkedInAt, by: checkIns.memberName })
    .from(checkIns)
    .where(
      and(
        eq(checkIns.organizationId, organizationId),
        inArray(checkIns.registrationId, [...registrationIds]),
        eq(checkIns.state, 'live'),
        isNull(checkIns.undoneAt),
      ),
    );
  return new Map(rows.map((r) => [r.registrationId, { checkedInAt: r.at, by: r.by }]));
}
