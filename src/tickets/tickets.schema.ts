// The tickets module: one ticket per confirmed registration, the runner's proof at the start.
//
// - A ticket is issued when its order's confirmation is built (the mail, the SITE confirmation
//   page), once: the unique registration_id makes issuing again a no-op, and orders paid before
//   tickets existed get theirs the first time either is built.
// - The token is the ticket page's address (SITE /tickets/<token>), stored as issued so that the
//   mail and the page can show the same link again (docs/decisions/ticket-tokens-stored-as-issued.md).
// - A transfer voids the place's ticket and issues a new one for the same registration: at most
//   one valid ticket per registration (a partial unique index), void ones kept. A void ticket no
//   longer opens; issuing again never replaces one that was voided without a transfer.
import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { events } from '../events/events.schema.ts';
import { orders, registrations } from '../orders/orders.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export const tickets = pgTable(
  'tickets',
  {
    id: text('id').primaryKey(),
    registrationId: text('registration_id')
      .notNull()
      .references(() => registrations.id),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    /** 8 characters a person reads out without confusion (ticket-codes.ts) */
    code: text('code').notNull(),
    /** 192 random bits, base64url: the ticket page's address */
    token: text('token').notNull(),
    /** valid | void */
    status: text('status').notNull().default('valid'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    // one valid ticket per registration; a transferred place keeps its void ones beside it
    uniqueIndex('tickets_registration_valid_key')
      .on(t.registrationId)
      .where(sql`${t.status} = 'valid'`),
    uniqueIndex('tickets_code_key').on(t.code),
    uniqueIndex('tickets_token_key').on(t.token),
    index('tickets_order_idx').on(t.orderId),
    check('tickets_status_check', sql`${t.status} IN ('valid', 'void')`),
  ],
);
