// Organizer members: people who sign in to the organizer app (APP host), their memberships of
// organizations with a role, invitations, sign-in sessions and password resets. Tokens that grant
// anything (invitation, session, reset) are stored as SHA-256 hashes; the token itself is only in
// the link or the cookie.
import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'viewer', 'checker'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const members = pgTable(
  'members',
  {
    id: text('id').primaryKey(),
    /** as typed at invitation, trimmed; unique without regard to case */
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    /** scrypt, self-describing (passwords.ts); null until the invitation is accepted */
    passwordHash: text('password_hash'),
    passwordChangedAt: ts('password_changed_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('members_email_key').on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  'memberships',
  {
    memberId: text('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    role: text('role').$type<MemberRole>().notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.memberId, t.organizationId] }),
    index('memberships_org_idx').on(t.organizationId),
  ],
);

export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    email: text('email').notNull(),
    role: text('role').$type<MemberRole>().notNull(),
    /** SHA-256 hex of the token in the invitation link */
    tokenHash: text('token_hash').notNull().unique(),
    /** null when the operator invited (admin API or CLI) */
    invitedBy: text('invited_by').references(() => members.id, { onDelete: 'set null' }),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
    revokedAt: ts('revoked_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('invitations_org_idx').on(t.organizationId)],
);

export const memberSessions = pgTable(
  'member_sessions',
  {
    /** `ast_...`: how the session is named in logs and on the sessions page, never the cookie */
    id: text('id').primaryKey(),
    /** SHA-256 hex of the cookie's token */
    tokenHash: text('token_hash').notNull().unique(),
    memberId: text('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** the synchronizer token every state-changing form of this session carries */
    csrfToken: text('csrf_token').notNull(),
    userAgent: text('user_agent').notNull().default(''),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    /** the absolute end, however active the session */
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('member_sessions_member_idx').on(t.memberId)],
);

export const passwordResets = pgTable(
  'password_resets',
  {
    /** SHA-256 hex of the token in the emailed link */
    tokenHash: text('token_hash').primaryKey(),
    memberId: text('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('password_resets_member_idx').on(t.memberId)],
);
