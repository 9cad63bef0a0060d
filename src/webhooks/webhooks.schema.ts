// The transactional outbox: each event (order.paid, ...) is written in the transaction that caused
// it, so a crash can never lose one. Delivery to endpoints reads from here.
import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { organizations } from '../organizations/organizations.schema.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export const outboxEvents = pgTable(
  'outbox_events',
  {
    /** msg_...: also the webhook-id, the same on every retry */
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    type: text('type').notNull(),
    /** the webhook payload: {type, timestamp, data} */
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
    /** set once delivery rows have been made for every subscribed endpoint */
    dispatchedAt: ts('dispatched_at'),
  },
  (t) => [index('outbox_events_org_idx').on(t.organizationId, t.createdAt)],
);
