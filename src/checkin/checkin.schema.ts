// Race-day check-in: one row per check-in a volunteer's device made (docs/decisions/check-in-offline.md).
//
// - `client_id` is made on the device when the volunteer taps; a device that sends it again (a
//   retry, a queue sent after a lost connection) finds its row: the write is idempotent on it.
// - One live check-in per registration: the earliest `checked_in_at` (the device's time of the tap)
//   wins; a later one is kept as `conflict`, so the volunteer whose check-in lost is told.
// - An undo marks the row (`undone_at`, by whom); the registration is free to check in again.
// - `changed_at` is the server's time of the last change, what other devices poll for.
import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { events } from '../events/events.schema.ts';
import { members } from '../members/members.schema.ts';
import { registrations } from '../orders/orders.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

export const checkIns = pgTable(
  'check_ins',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    registrationId: text('registration_id')
      .notNull()
      .references(() => registrations.id),
    /** the device's id of this check-in (a UUID) */
    clientId: text('client_id').notNull(),
    /** live | conflict (a later check-in of a registration already checked in) */
    state: text('state').notNull(),
    /** the device's time of the tap, bounded by the server (actions/sync-check-ins.ts) */
    checkedInAt: ts('checked_in_at').notNull(),
    memberId: text('member_id').references(() => members.id, { onDelete: 'set null' }),
    /** the volunteer as the page names them, kept when the member is removed */
    memberName: text('member_name').notNull(),
    receivedAt: ts('received_at').notNull(),
    changedAt: ts('changed_at').notNull(),
    undoneAt: ts('undone_at'),
    undoneByMemberId: text('undone_by_member_id').references(() => members.id, { onDelete: 'set null' }),
    undoneByName: text('undone_by_name'),
  },
  (t) => [
    uniqueIndex('check_ins_client_key').on(t.organizationId, t.clientId),
    // the rule "one live check-in per registration", held by the database too
    uniqueIndex('check_ins_live_key')
      .on(t.registrationId)
      .where(sql`${t.state} = 'live' AND ${t.undoneAt} IS NULL`),
    index('check_ins_registration_idx').on(t.registrationId),
    index('check_ins_event_changed_idx').on(t.eventId, t.changedAt),
    check('check_ins_state_check', sql`${t.state} IN ('live', 'conflict')`),
  ],
);
