// Checkout sessions. (The idempotency records that protect their creation are platform's.)
import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { apiClients } from '../auth/auth.schema.ts';
import { events } from '../events/events.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export interface Prefill {
  buyer_name?: string;
  buyer_email?: string;
  buyer_phone?: string;
}

/** A ticket type and quantity the partner chose for the buyer (session line_items). */
export interface LineItem {
  ticket_type_id: string;
  quantity: number;
}

export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    apiClientId: text('api_client_id')
      .notNull()
      .references(() => apiClients.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    uiMode: text('ui_mode').notNull(),
    /** open | complete | expired (expired is also derived from expires_at on read) */
    status: text('status').notNull().default('open'),
    /** 'bearer' or 'publishable': how the session was created */
    createdWith: text('created_with').notNull(),
    embedOrigin: text('embed_origin'),
    /** where the buyer lands after paying: placeholder replaced / session_id added */
    successUrl: text('success_url'),
    /** as given */
    cancelUrl: text('cancel_url'),
    clientReferenceId: text('client_reference_id'),
    prefill: jsonb('prefill').$type<Prefill>().notNull().default({}),
    /** the tickets the hosted page opens with chosen; [] when the buyer chooses */
    lineItems: jsonb('line_items').$type<LineItem[]>().notNull().default([]),
    /** en | sw: the page's language unless the buyer picks another; null: the browser's */
    locale: text('locale'),
    expiresAt: ts('expires_at').notNull(),
    completedAt: ts('completed_at'),
    createdAt: ts('created_at').notNull(),
    /**
     * the trace context of the request that created the session (W3C traceparent, then a comma and
     * the tracestate if any): the buyer's steps on the checkout page and the order continue that
     * trace; null when tracing was off (platform/tracing.ts)
     */
    traceContext: text('trace_context'),
  },
  (t) => [index('checkout_sessions_org_idx').on(t.organizationId, t.createdAt)],
);
