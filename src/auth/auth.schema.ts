// API clients: client credentials and publishable key. Access tokens are sealed, not stored
// (auth/tokens.ts), so minting one writes nothing and checking one reads only the client row.
import { bigserial, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export const apiClients = pgTable(
  'api_clients',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    /** what buyers see for the partner in the checkout ("Back to …"); null: the site's host */
    displayName: text('display_name'),
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

// The last API requests made with each organization's credentials, for its developers to see in
// the app. No bodies, no query strings, no credentials. Bounded: request-log.ts keeps the newest
// per organization and deletes the rest.
export const apiRequestLog = pgTable(
  'api_request_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    clientId: text('client_id').notNull(),
    /** bearer | publishable | token (the token endpoint) */
    credential: text('credential').notNull(),
    method: text('method').notNull(),
    /** the path without its query string */
    path: text('path').notNull(),
    status: integer('status').notNull(),
    errorCode: text('error_code'),
    requestId: text('request_id').notNull(),
    at: ts('at').notNull(),
  },
  (t) => [
    index('api_request_log_org_idx').on(t.organizationId, t.id),
    index('api_request_log_client_idx').on(t.organizationId, t.clientId, t.id),
  ],
);
