// The audit log: every change an organization's people (or the operator) make to its members, API
// clients, keys, domains and webhook endpoints, with who, what, when and from which address.
// Rows are only ever added; a member's removal keeps their entries (actor_label names them).
import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { members } from '../members/members.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** the member who acted; null for the operator (admin API, CLI) or a member since deleted */
    actorMemberId: text('actor_member_id').references(() => members.id, { onDelete: 'set null' }),
    /** the member's email at the time, or "operator" */
    actorLabel: text('actor_label').notNull(),
    /** what happened, such as client.created or member.role_changed (audit-log.ts lists them) */
    action: text('action').notNull(),
    /** the object acted on: client, webhook_endpoint, member, invitation */
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    /** what changed, never a secret: scopes, an origin, a role, a URL */
    details: jsonb('details')
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** the client IP of the request that made the change */
    ip: text('ip'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('audit_events_org_idx').on(t.organizationId, t.id)],
);
