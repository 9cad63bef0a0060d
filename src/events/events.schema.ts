// Events and their ticket types. Inventory counters live on the ticket type row so a single
// conditional UPDATE can guard capacity.
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export interface AdditionalQuestion {
  key: string;
  label: string;
  /** phone: a number to call, checked as one (the emergency contact, emergency-contact.ts) */
  type: 'select' | 'text' | 'phone';
  required: boolean;
  options: string[];
  help: string;
}

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    handle: text('handle').notNull(),
    shortCode: text('short_code').notNull(),
    description: text('description').notNull().default(''),
    cover: text('cover').notNull().default(''),
    venue: text('venue').notNull().default(''),
    eventType: text('event_type').notNull().default(''),
    status: text('status').notNull().default('draft'),
    visibility: text('visibility').notNull().default('public'),
    startsAt: ts('starts_at').notNull(),
    endsAt: ts('ends_at').notNull(),
    timezone: text('timezone').notNull(),
    currency: text('currency').notNull(),
    regOpensAt: ts('reg_opens_at').notNull(),
    regClosesAt: ts('reg_closes_at').notNull(),
    organizerName: text('organizer_name').notNull().default(''),
    supportEmail: text('support_email').notNull().default(''),
    waiverRequired: boolean('waiver_required').notNull().default(false),
    waiverVersion: text('waiver_version').notNull().default(''),
    waiverText: text('waiver_text').notNull().default(''),
    additionalQuestions: jsonb('additional_questions').$type<AdditionalQuestion[]>().notNull().default([]),
    /** after it, a place can no longer be transferred to another runner; null: no such limit */
    transferDeadline: ts('transfer_deadline'),
    /** whether the buyer's page offers a donation to the organizer's cause */
    donationsEnabled: boolean('donations_enabled').notNull().default(true),
    /** whether a free registration must still give the buyer's phone number */
    phoneRequired: boolean('phone_required').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('events_org_handle_key').on(t.organizationId, t.handle),
    index('events_org_listing_idx').on(t.organizationId, t.startsAt, t.id),
  ],
);

export const ticketTypes = pgTable(
  'ticket_types',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    priceMinor: integer('price_minor').notNull(),
    capacity: integer('capacity').notNull(),
    /** tickets in paid orders */
    paidCount: integer('paid_count').notNull().default(0),
    /** tickets held by pending orders whose hold has not been released */
    heldCount: integer('held_count').notNull().default(0),
    distanceKm: doublePrecision('distance_km').notNull().default(0),
    salesStart: ts('sales_start').notNull(),
    salesEnd: ts('sales_end').notNull(),
    /** 0 = no minimum age */
    minAge: integer('min_age').notNull().default(0),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('ticket_types_event_idx').on(t.eventId, t.position),
    // The last line of defence against overselling; the conditional UPDATE is the first.
    check(
      'ticket_types_inventory_check',
      sql`${t.paidCount} >= 0 AND ${t.heldCount} >= 0 AND ${t.paidCount} + ${t.heldCount} <= ${t.capacity}`,
    ),
  ],
);
