// Erasure of personal data from stored idempotent responses (src/privacy/ asks for it): a response
// replayed within its 24 hours must not bring back what was erased, and deleting it would let a
// retry create the object twice, so its body is rewritten instead.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from './db.ts';
import { idempotencyKeys } from './idempotency.schema.ts';

/**
 * Rewrites with `rewrite` the stored response bodies whose data.id is one of `dataIds`; counts
 * those that changed. No index serves it: it reads the keys of the last 24 hours (the sweep
 * deletes older ones), which is why only an erasure asks for it.
 */
export async function rewriteStoredResponses(
  tx: Executor,
  options: { dataIds: string[]; rewrite: (data: unknown) => unknown },
): Promise<number> {
  if (options.dataIds.length === 0) return 0;
  const rows = await tx
    .select({
      apiClientId: idempotencyKeys.apiClientId,
      key: idempotencyKeys.key,
      body: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(
      sql`((${idempotencyKeys.responseBody} -> 'data') ->> 'id') IN (${sql.join(
        options.dataIds.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
  let changed = 0;
  for (const row of rows) {
    const body = row.body as Record<string, unknown>;
    const rewritten = { ...body, data: options.rewrite(body.data) };
    if (JSON.stringify(rewritten) === JSON.stringify(body)) continue;
    await tx
      .update(idempotencyKeys)
      .set({ responseBody: rewritten })
      .where(and(eq(idempotencyKeys.apiClientId, row.apiClientId), eq(idempotencyKeys.key, row.key)));
    changed++;
  }
  return changed;
}
