// Orders and their registrations (one per ticket).
import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  doublePrecision,
} from 'drizzle-orm/pg-core';
import { apiClients } from '../auth/auth.schema.ts';
import { checkoutSessions } from '../checkout/checkout.schema.ts';
import { events, ticketTypes } from '../events/events.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { refunds } from '../payments/payments.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    checkoutSessionId: text('checkout_session_id').references(() => checkoutSessions.id),
    apiClientId: text('api_client_id').references(() => apiClients.id),
    channel: text('channel').notNull().default('partner_api'),
    /** redirect | embedded: the checkout session's ui_mode; null for an order a partner's server made */
    checkoutMode: text('checkout_mode'),
    partnerReference: text('partner_reference'),
    orderCode: text('order_code').notNull(),
    /** pending | paid | expired | cancelled | refunded */
    status: text('status').notNull(),
    failureKind: text('failure_kind'),
    currency: text('currency').notNull(),
    subtotal: integer('subtotal').notNull(),
    discountTotal: integer('discount_total').notNull().default(0),
    donationTotal: integer('donation_total').notNull().default(0),
    lacesFee: integer('laces_fee').notNull(),
    total: integer('total').notNull(),
    /** what succeeded refunds of the order gave back, minor units (payments' refunds of kind order) */
    refundedTotal: integer('refunded_total').notNull().default(0),
    /** the payment method key (payments/methods/registry.ts); null until chosen, and for free orders */
    paymentMethod: text('payment_method'),
    buyerName: text('buyer_name').notNull(),
    buyerEmail: text('buyer_email').notNull(),
    buyerPhone: text('buyer_phone').notNull(),
    waiverVersion: text('waiver_version'),
    waiverAcceptedAt: ts('waiver_accepted_at'),
    holdExpiresAt: ts('hold_expires_at'),
    /** a payment confirmed after the hold lapsed with no capacity left: to be refunded */
    paidAfterExpiry: boolean('paid_after_expiry').notNull().default(false),
    /**
     * Keyed hash of the client IP (an IPv6 address's /64) that placed the order on the hosted
     * checkout page, for its per-IP hold limit (hold-limits.ts); null for server orders
     */
    clientIpHash: text('client_ip_hash'),
    paidAt: ts('paid_at'),
    closedAt: ts('closed_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    /**
     * the trace the order belongs to (W3C traceparent, then a comma and the tracestate if any): its
     * checkout session's, else that of the request that created it; paying it continues that trace.
     * Null when tracing was off (platform/tracing.ts)
     */
    traceContext: text('trace_context'),
    /** en | sw: the language of the checkout page the order was placed on; null for a partner's server order */
    locale: text('locale'),
  },
  (t) => [
    uniqueIndex('orders_order_code_key').on(t.orderCode),
    index('orders_org_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('orders_org_event_created_idx').on(t.organizationId, t.eventId, t.createdAt, t.id),
    index('orders_org_status_created_idx').on(t.organizationId, t.status, t.createdAt, t.id),
    // the organizer's search: a phone number exactly, names and e-mails by trigrams (pg_trgm)
    index('orders_org_phone_idx').on(t.organizationId, t.buyerPhone),
    index('orders_buyer_search_idx').using(
      'gin',
      sql`lower(${t.buyerName} || ' ' || ${t.buyerEmail}) gin_trgm_ops`,
    ),
    index('orders_session_idx').on(t.checkoutSessionId),
    // an event's orders of one status: the sales overview's sums of paid orders (order-sales.ts)
    index('orders_event_status_idx').on(t.eventId, t.status),
    // payments confirmed too late, to refund (payments/refunds.ts): rare, so a small partial index
    index('orders_paid_after_expiry_idx')
      .on(t.organizationId)
      .where(sql`${t.paidAfterExpiry}`),
    index('orders_pending_hold_idx')
      .on(t.holdExpiresAt)
      .where(sql`${t.status} = 'pending'`),
    index('orders_client_ip_holds_idx')
      .on(t.eventId, t.clientIpHash)
      .where(sql`${t.status} = 'pending' AND ${t.clientIpHash} IS NOT NULL`),
    // free places taken through the hosted checkout, counted by the same limit (hold-limits.ts)
    index('orders_client_ip_free_idx')
      .on(t.eventId, t.clientIpHash, t.createdAt)
      .where(sql`${t.status} = 'paid' AND ${t.total} = 0 AND ${t.clientIpHash} IS NOT NULL`),
  ],
);

export const registrations = pgTable(
  'registrations',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    ticketTypeId: text('ticket_type_id')
      .notNull()
      .references(() => ticketTypes.id),
    position: integer('position').notNull(),
    ticketLabel: text('ticket_label').notNull(),
    distanceKm: doublePrecision('distance_km').notNull(),
    priceMinor: integer('price_minor').notNull(),
    feeMinor: integer('fee_minor').notNull(),
    participantName: text('participant_name').notNull(),
    dateOfBirth: date('date_of_birth', { mode: 'string' }),
    answers: jsonb('answers').$type<Record<string, string>>().notNull().default({}),
    /**
     * The runner's own contact once the place was transferred to someone other than the buyer
     * (docs/decisions/runner-transfers.md); null while the buyer's contact is the runner's
     */
    runnerEmail: text('runner_email'),
    runnerPhone: text('runner_phone'),
    /** pending | confirmed | cancelled */
    status: text('status').notNull(),
    /** the refund that returned this place, set when it succeeded (the registration is cancelled then) */
    refundId: text('refund_id').references(() => refunds.id),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('registrations_order_idx').on(t.orderId, t.position),
    index('registrations_participant_search_idx').using('gin', sql`lower(${t.participantName}) gin_trgm_ops`),
    // The start list: a ticket type's confirmed registrations by name (src/startlists/).
    index('registrations_start_list_idx')
      .on(t.ticketTypeId, t.participantName, t.id)
      .where(sql`${t.status} = 'confirmed'`),
    // a ticket type's tickets: the sales overview's paid tickets per day (order-sales.ts)
    index('registrations_ticket_type_idx').on(t.ticketTypeId, t.status),
  ],
);
