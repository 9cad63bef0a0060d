// The transactional outbox as other modules write to it: each event in the transaction that
// caused it, delivered to the organization's endpoints later (webhook-deliveries.ts).
import type { SQL } from 'drizzle-orm';
import { currentTraceContext, insertRows, newId, type Executor } from '../platform/index.ts';
import { outboxEvents } from './webhooks.schema.ts';

export interface OutboxEvent {
  organizationId: string;
  /** dotted past tense, e.g. order.paid */
  type: string;
  /** the payload's data: the object the event is about, in its wire shape */
  data: unknown;
  at: Date;
  /**
   * the trace its deliveries continue (platform/tracing.ts currentTraceContext); the active span's
   * when left out, so that an order.paid delivery continues the trace of what paid the order
   */
  traceContext?: string | null;
}

/** Writes events to the outbox in one statement. */
export async function writeOutboxEvents(db: Executor, events: OutboxEvent[]): Promise<void> {
  await db.execute(outboxInsert(events));
}

/** The statement writeOutboxEvents runs, for a caller that sends it with other writes. */
export function outboxInsert(events: OutboxEvent[]): SQL {
  const active = currentTraceContext();
  return insertRows(
    outboxEvents,
    events.map(({ organizationId, type, data, at, traceContext }) => ({
      id: newId('msg'),
      organization_id: organizationId,
      type,
      payload: { type, timestamp: at.toISOString(), data },
      created_at: at.toISOString(),
      trace_context: traceContext === undefined ? active : traceContext,
    })),
  );
}
