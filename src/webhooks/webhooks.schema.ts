// The webhooks module's tables: the transactional outbox, the endpoints organizations register,
// one delivery per (endpoint, event), and every attempt made for a delivery.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

// The transactional outbox: each event (order.paid, ...) is written in the transaction that caused
// it, so a crash can never lose one. Delivery to endpoints reads from here.
export const outboxEvents = pgTable(
  'outbox_events',
  {
    /** msg_...: also the webhook-id, the same on every retry */
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    type: text('type').notNull(),
    /** the webhook payload: {type, data} */
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
    /**
     * set when the event is written for one endpoint or stream only, and so never queued for the
     * sender (see outbox_queue); releases before migration 0015 also set it after fan-out
     */
    dispatchedAt: ts('dispatched_at'),
    /**
     * the trace context of what wrote the event (W3C traceparent, then a comma and the tracestate
     * if any): its deliveries' attempts continue that trace; null when tracing was off
     */
    traceContext: text('trace_context'),
  },
  (t) => [
    index('outbox_events_org_idx').on(t.organizationId, t.createdAt),
    // The events about one object (an order's page lists its deliveries): deliveries-about.ts.
    index('outbox_events_data_id_idx').on(sql`((${t.payload} -> 'data') ->> 'id')`),
  ],
);

// The events not yet fanned out, in the order they were written. A trigger on outbox_events
// fills it (migration 0015), so every writer queues its events. The sender leases a row while it
// sends the event's first attempts, and deletes it with their records (migration 0016): a row
// whose lease ran out is taken again, so a crash between a send and its record sends again.
export const outboxQueue = pgTable('outbox_queue', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  eventId: text('event_id').notNull(),
  leaseUntil: ts('lease_until'),
});

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    /** whe_... */
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    url: text('url').notNull(),
    /** subscribed event types; `test` events are sent on demand whatever this says */
    eventTypes: text('event_types').array().notNull(),
    /** enabled | disabled */
    status: text('status').notNull().default('enabled'),
    /** manual | gone (the receiver answered 410) | failing (5 days of failures); null when enabled */
    disabledReason: text('disabled_reason'),
    disabledAt: ts('disabled_at'),
    /**
     * whsec_...: kept as issued because it must sign (an HMAC key cannot be hashed); never returned
     * after creation or rotation.
     */
    secret: text('secret').notNull(),
    /** the secret before the last rotation, still signing until previous_secret_expires_at */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    secretRotatedAt: ts('secret_rotated_at'),
    /** first failure since the last success; five days of it disables the endpoint */
    failingSince: ts('failing_since'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('webhook_endpoints_org_idx').on(t.organizationId, t.createdAt)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** whd_... */
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** the outbox event: its id is the webhook-id */
    eventId: text('event_id')
      .notNull()
      .references(() => outboxEvents.id),
    eventType: text('event_type').notNull(),
    /** pending | delivered | failed | cancelled */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    lastAttemptAt: ts('last_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: ts('delivered_at'),
    /** a sender's claim: nobody else sends this delivery until lease_until */
    leaseOwner: text('lease_owner'),
    leaseUntil: ts('lease_until'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    // One delivery per event and endpoint, however often an event is taken; also an event's
    // deliveries (deliveries-about.ts).
    uniqueIndex('webhook_deliveries_event_endpoint_key').on(t.eventId, t.endpointId),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt, t.id),
    // The sender's queue: only deliveries still to be sent, in the order they fall due.
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt, t.id)
      .where(sql`${t.status} = 'pending'`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: ts('attempted_at').notNull(),
    /** HTTP status, or null when there was no answer (timeout, refused, address not allowed) */
    status: integer('status'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    /** the start of the response body, at most 1 KB */
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)],
);
