// Deliveries: one per (endpoint, event), written by the sender (webhook-sender.ts) with the first
// attempt's outcome, then sent again on the retry schedule while pending: for retries this table
// is the queue. Also the on-demand test event, replays, the attempt log, and the delivery's wire
// shape.
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import {
  currentTraceContext,
  newId,
  randomString,
  Timestamp,
  type EnqueueOptions,
  type Executor,
} from '../platform/index.ts';
import { TEST_EVENT_TYPE, type WebhookEndpointRow } from './webhook-endpoints.ts';
import { outboxEvents, webhookAttempts, webhookDeliveries } from './webhooks.schema.ts';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';
export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'delivered', 'failed', 'cancelled'];

export function newDeliveryId(): string {
  // 'whd' is not among the platform's IdPrefix names yet; same shape as newId.
  return `whd_${randomString(24)}`;
}

/** An outbox event as the sender hands it to followers; `subjectId` is its data's id (an order's). */
interface DispatchedEvent {
  id: string;
  organizationId: string;
  type: string;
  subjectId: string | null;
  /** the event's data, as its deliveries carry it (order.refunded's names its refund) */
  data: Record<string, unknown>;
}

/**
 * Another module's job that follows an outbox event (the buyer's confirmation mail after
 * order.paid), or null for events it ignores. The sender enqueues it when it takes the event from
 * the queue: kept across restarts, and no statement added to the transaction that wrote the event;
 * an event taken again after a crash enqueues it again, so a follower must be idempotent.
 */
export type OutboxFollower = (event: DispatchedEvent, now: Date) => EnqueueOptions | null;

/** A `test` event for one endpoint, delivered like any other (signed, retried, logged). */
export async function createTestDelivery(
  db: Executor,
  endpoint: WebhookEndpointRow,
  now: Date,
): Promise<WebhookDeliveryRow> {
  const eventId = newId('msg');
  await db.insert(outboxEvents).values({
    id: eventId,
    organizationId: endpoint.organizationId,
    type: TEST_EVENT_TYPE,
    payload: {
      type: TEST_EVENT_TYPE,
      timestamp: now.toISOString(),
      data: {
        endpoint_id: endpoint.id,
        message: 'A test event sent on request. Verify its signature and answer with a 2xx status.',
      },
    },
    createdAt: now,
    dispatchedAt: now, // addressed to this endpoint only, never fanned out
    traceContext: currentTraceContext(),
  });
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({
      id: newDeliveryId(),
      endpointId: endpoint.id,
      organizationId: endpoint.organizationId,
      eventId,
      eventType: TEST_EVENT_TYPE,
      status: 'pending',
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return delivery!;
}

/**
 * Puts a delivery back in the queue, due now: a replay of a delivered one (same webhook-id, so a
 * receiver that deduplicates ignores it), or another try of a failed or cancelled one. If that
 * attempt fails, the rest of the retry schedule follows (none when it was used up).
 */
export async function retryDelivery(
  db: Executor,
  delivery: WebhookDeliveryRow,
  now: Date,
): Promise<WebhookDeliveryRow> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', nextAttemptAt: now, updatedAt: now })
    .where(eq(webhookDeliveries.id, delivery.id))
    .returning();
  return row!;
}

export async function findDelivery(
  db: Executor,
  endpoint: WebhookEndpointRow,
  deliveryId: string,
): Promise<WebhookDeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        eq(webhookDeliveries.organizationId, endpoint.organizationId),
      ),
    );
  return row;
}

/** A page of an endpoint's deliveries, newest first, after the (created_at, id) position given. */
export async function listDeliveries(
  db: Executor,
  endpoint: WebhookEndpointRow,
  options: {
    limit: number;
    after?: { createdAt: string; id: string } | undefined;
    status?: DeliveryStatus | undefined;
  },
): Promise<{ rows: WebhookDeliveryRow[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpoint.id),
        eq(webhookDeliveries.organizationId, endpoint.organizationId),
        options.status ? eq(webhookDeliveries.status, options.status) : undefined,
        options.after
          ? sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) < (${options.after.createdAt}::timestamptz, ${options.after.id})`
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(options.limit + 1);
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}

/** The attempts of the given deliveries, oldest first, grouped by delivery. */
export async function attemptsOf(
  db: Executor,
  deliveryIds: string[],
): Promise<Map<string, WebhookAttemptRow[]>> {
  const byDelivery = new Map<string, WebhookAttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id));
  for (const row of rows) byDelivery.get(row.deliveryId)?.push(row);
  return byDelivery;
}

const WebhookAttemptOut = Type.Object({
  attempted_at: Timestamp,
  status: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()]),
});
type WebhookAttemptOut = Static<typeof WebhookAttemptOut>;

export const WebhookDeliveryOut = Type.Object({
  id: Type.String(),
  endpoint_id: Type.String(),
  webhook_id: Type.String({ description: 'msg_...: the webhook-id header, the same on every attempt' }),
  event_type: Type.String(),
  status: Type.Enum(DELIVERY_STATUSES),
  attempt_count: Type.Integer(),
  next_attempt_at: Type.Union([Timestamp, Type.Null()]),
  last_attempt_at: Type.Union([Timestamp, Type.Null()]),
  last_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  delivered_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  attempts: Type.Array(WebhookAttemptOut),
});
export type WebhookDeliveryOut = Static<typeof WebhookDeliveryOut>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toDeliveryOut(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]): WebhookDeliveryOut {
  return {
    id: row.id,
    endpoint_id: row.endpointId,
    webhook_id: row.eventId,
    event_type: row.eventType,
    status: row.status as DeliveryStatus,
    attempt_count: row.attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    last_attempt_at: iso(row.lastAttemptAt),
    last_status: row.lastStatus,
    last_error: row.lastError,
    delivered_at: iso(row.deliveredAt),
    created_at: row.createdAt.toISOString(),
    attempts: attempts.map((a) => ({
      attempted_at: a.attemptedAt.toISOString(),
      status: a.status,
      latency_ms: a.latencyMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}
