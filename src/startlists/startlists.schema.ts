// Bib numbers: the range each ticket type draws from, and the number given to each registration.
// A number belongs to its event (unique there) and, once given, is never changed or reused.
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { events, ticketTypes } from '../events/events.schema.ts';
import { registrations } from '../orders/orders.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

/** The highest bib number: six digits fit a printed bib. */
export const BIB_MAX = 999_999;

export const bibRanges = pgTable(
  'bib_ranges',
  {
    ticketTypeId: text('ticket_type_id')
      .notNull()
      .references(() => ticketTypes.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    firstNumber: integer('first_number').notNull(),
    lastNumber: integer('last_number').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ticketTypeId] }),
    index('bib_ranges_event_idx').on(t.eventId),
    check(
      'bib_ranges_bounds_check',
      sql`${t.firstNumber} >= 1 AND ${t.firstNumber} <= ${t.lastNumber} AND ${t.lastNumber} <= 999999`,
    ),
  ],
);

export const bibs = pgTable(
  'bibs',
  {
    registrationId: text('registration_id')
      .notNull()
      .references(() => registrations.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    ticketTypeId: text('ticket_type_id')
      .notNull()
      .references(() => ticketTypes.id),
    number: integer('number').notNull(),
    assignedAt: ts('assigned_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.registrationId] }),
    // Never two registrations with one number in an event, whatever the ranges were.
    uniqueIndex('bibs_event_number_key').on(t.eventId, t.number),
    // The start list walks a ticket type's numbers in order.
    index('bibs_ticket_type_number_idx').on(t.ticketTypeId, t.number),
  ],
);
