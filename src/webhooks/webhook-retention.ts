// Webhooks' part of retention and erasure (src/privacy/ drives both): the payloads of the events
// about an erased object are rewritten and what receivers answered to them is forgotten; finished
// deliveries (with their attempts) and events nothing waits for are deleted after the webhook
// retention. A pending delivery and an event still in the outbox queue are never touched.
import { and, asc, eq, gt, inArray, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { outboxEvents, outboxQueue, webhookAttempts, webhookDeliveries } from './webhooks.schema.ts';

/** The outer query's event id inside a subquery (Drizzle leaves a lone table's columns unqualified). */
const EVENT_ID = sql.raw('"outbox_events"."id"');

/** Not waiting in the outbox queue to be fanned out. */
const notQueued = sql`NOT EXISTS (SELECT 1 FROM ${outboxQueue} q WHERE q.event_id = ${EVENT_ID})`;

/** The events whose data.id is one of these: outbox_events_data_id_idx's expression exactly. */
function aboutAny(subjectIds: string[]): SQL {
  return sql`((${outboxEvents.payload} -> 'data') ->> 'id') IN (${sql.join(
    subjectIds.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/**
 * Rewrites the payload of every event about these objects (data.id) with `rewrite`, events not yet
 * sent included (they go out rewritten), and clears the response excerpts receivers gave to their
 * deliveries. Counts the events rewritten and the attempts whose excerpt was cleared.
 */
export async function rewriteEventPayloads(
  tx: Executor,
  options: { subjectIds: string[]; rewrite: (payload: Record<string, unknown>) => Record<string, unknown> },
): Promise<{ events: number; responses: number }> {
  if (options.subjectIds.length === 0) return { events: 0, responses: 0 };
  const found = await tx
    .select({ id: outboxEvents.id, payload: outboxEvents.payload })
    .from(outboxEvents)
    .where(aboutAny(options.subjectIds));
  let events = 0;
  for (const event of found) {
    const rewritten = options.rewrite(event.payload);
    if (JSON.stringify(rewritten) === JSON.stringify(event.payload)) continue;
    await tx.update(outboxEvents).set({ payload: rewritten }).where(eq(outboxEvents.id, event.id));
    events++;
  }
  if (found.length === 0) return { events, responses: 0 };
  const cleared = await tx
    .update(webhookAttempts)
    .set({ responseExcerpt: null })
    .where(
      and(
        sql`${webhookAttempts.responseExcerpt} IS NOT NULL`,
        inArray(
          webhookAttempts.deliveryId,
          tx
            .select({ id: webhookDeliveries.id })
            .from(webhookDeliveries)
            .where(
              inArray(
                webhookDeliveries.eventId,
                found.map((e) => e.id),
              ),
            ),
        ),
      ),
    )
    .returning({ id: webhookAttempts.id });
  return { events, responses: cleared.length };
}

export interface RetentionPage {
  /** rows deleted */
  deleted: number;
  /** the last id the page reached (where the next starts); null when the page was the last */
  last: string | null;
}

/**
 * Deletes, with their attempts, a page by id of deliveries that are finished (delivered, failed or
 * cancelled: never pending) and were last changed before `before`. Rows the sender holds are
 * skipped, for the next pass.
 */
export async function deleteFinishedDeliveries(
  tx: Executor,
  options: { before: Date; after: string | null; limit: number },
): Promise<RetentionPage & { attempts: number }> {
  const page = await tx
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        options.after === null ? undefined : gt(webhookDeliveries.id, options.after),
        ne(webhookDeliveries.status, 'pending'),
        lt(webhookDeliveries.updatedAt, options.before),
      ),
    )
    .orderBy(asc(webhookDeliveries.id))
    .limit(options.limit)
    .for('update', { skipLocked: true });
  if (page.length === 0) return { deleted: 0, attempts: 0, last: null };
  const ids = page.map((r) => r.id);
  const attempts = await tx
    .delete(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, ids))
    .returning({ id: webhookAttempts.id });
  const deleted = await tx
    .delete(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.id, ids), ne(webhookDeliveries.status, 'pending')))
    .returning({ id: webhookDeliveries.id });
  return {
    deleted: deleted.length,
    attempts: attempts.length,
    last: page.length < options.limit ? null : ids.at(-1)!,
  };
}

/**
 * Deletes a page by id of events written before `before` that no delivery names (finished ones
 * went first) and that are not waiting in the outbox queue.
 */
export async function deleteOldEvents(
  tx: Executor,
  options: { before: Date; after: string | null; limit: number },
): Promise<RetentionPage> {
  const page = await tx
    .select({ id: outboxEvents.id })
    .from(outboxEvents)
    .where(
      and(
        options.after === null ? undefined : gt(outboxEvents.id, options.after),
        lt(outboxEvents.createdAt, options.before),
        sql`NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} d WHERE d.event_id = ${EVENT_ID})`,
        notQueued,
      ),
    )
    .orderBy(asc(outboxEvents.id))
    .limit(options.limit)
    .for('update', { skipLocked: true });
  if (page.length === 0) return { deleted: 0, last: null };
  const ids = page.map((r) => r.id);
  const deleted = await tx
    .delete(outboxEvents)
    .where(and(inArray(outboxEvents.id, ids), notQueued))
    .returning({ id: outboxEvents.id });
  return { deleted: deleted.length, last: page.length < options.limit ? null : ids.at(-1)! };
}
