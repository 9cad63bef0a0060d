// The webhook deliveries about one object (an order's page shows what its partner was told): found
// through the outbox payload's data.id, which outbox_events_data_id_idx serves, newest first,
// each with its endpoint's URL and every attempt.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { attemptsOf, type WebhookAttemptRow, type WebhookDeliveryRow } from './webhook-deliveries.ts';
import { outboxEvents, webhookDeliveries, webhookEndpoints } from './webhooks.schema.ts';

export interface DeliveryAbout {
  delivery: WebhookDeliveryRow;
  endpointUrl: string;
  /** oldest first */
  attempts: WebhookAttemptRow[];
}

/**
 * The organization's latest `limit` deliveries of events whose data.id is `objectId`; hasMore says
 * there are older ones. A deleted endpoint's deliveries went with it.
 */
export async function listDeliveriesAbout(
  db: Executor,
  options: { organizationId: string; objectId: string; limit: number },
): Promise<{ deliveries: DeliveryAbout[]; hasMore: boolean }> {
  const { organizationId, objectId, limit } = options;
  const rows = await db
    .select({ delivery: webhookDeliveries, endpointUrl: webhookEndpoints.url })
    .from(outboxEvents)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.eventId, outboxEvents.id))
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        // the index's expression exactly, so the planner can use it
        sql`((${outboxEvents.payload} -> 'data') ->> 'id') = ${objectId}`,
        eq(outboxEvents.organizationId, organizationId),
        eq(webhookDeliveries.organizationId, organizationId),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const attempts = await attemptsOf(
    db,
    page.map((r) => r.delivery.id),
  );
  return {
    deliveries: page.map((r) => ({
      delivery: r.delivery,
      endpointUrl: r.endpointUrl,
      attempts: attempts.get(r.delivery.id) ?? [],
    })),
    hasMore: rows.length > limit,
  };
}
