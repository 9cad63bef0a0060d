// The idempotency records that protect the creation of checkout sessions and orders (idempotency.ts).
import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.schema.ts';

/**
 * api_clients as far as the foreign key below needs it, named rather than imported: the plumbing
 * knows no module. Not exported, so drizzle-kit sees only auth's declaration of the table.
 */
const apiClients = pgTable('api_clients', { id: text('id').primaryKey() });

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    apiClientId: text('api_client_id')
      .notNull()
      .references(() => apiClients.id),
    key: text('key').notNull(),
    /** method + route: a key is scoped to the operation it was first used for */
    operation: text('operation').notNull(),
    /** SHA-256 of the canonical request body */
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.apiClientId, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);
