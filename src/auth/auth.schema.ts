// API clients: client credentials and publishable key. Access tokens are sealed, not stored
// (auth/tokens.ts), so minting one writes nothing and checking one reads only the client row.
import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.ts';

export const apiClients = pgTable(
  'api_clients',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    /** SHA-256 hex of the client secret; the secret itself is shown once */
    secretHash: text('secret_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    allowedDomains: text('allowed_domains').array().notNull().default([]),
    returnUrlDomains: text('return_url_domains').array().notNull().default([]),
    /** publishable keys are public by design, so stored as issued */
    publishableKey: text('publishable_key').notNull().unique(),
    revokedAt: ts('revoked_at'),
    secretRotatedAt: ts('secret_rotated_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('api_clients_org_idx').on(t.organizationId),
    index('api_clients_allowed_domains_idx').using('gin', t.allowedDomains),
  ],
);
