// The confirmations module: the buyer's confirmation email of a paid order.
//
// - Trigger: the webhook sender hands each order.paid outbox event it takes to
//   confirmationFollower (send-confirmation.ts), which enqueues one `confirmation.send` job before
//   the event leaves the queue: the order's write transaction gains no statement, and a restart
//   loses nothing.
// - The job mails the buyer through the service's mailer (src/mail) and records the outcome here;
//   a failure is recorded and retried with the job runner's backoff. A sent row ends it: a job
//   that runs again finds it and sends nothing.
// - The organizer app's order page lists these rows in its timeline, and owners and admins resend
//   the mail from there (resend-confirmation.ts): at most once a minute per order, audited.
// - Content: confirmation-message.ts (English: docs/decisions/confirmation-english-only.md).
import { sql } from 'drizzle-orm';
import { bigserial, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { members } from '../members/members.schema.ts';
import { orders } from '../orders/orders.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

/** One row per attempt to mail an order's confirmation: the first one after payment, or a resend. */
export const orderMails = pgTable(
  'order_mails',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /**
     * paid: sent when the order became paid; resent: asked for from the organizer app;
     * transfer_away, transfer_to: a transferred place's notice to the buyer and ticket to the new runner;
     * refund: a refund that succeeded, to the buyer
     */
    kind: text('kind').notNull(),
    /** the address it went to, as it was then (the buyer's; a new runner's for transfer_to) */
    to: text('to').notNull(),
    /** sending (a resend handed to the mailer, no answer yet) | sent | failed */
    outcome: text('outcome').notNull(),
    /** why it failed: the mailer's code and reason, never an address or the body */
    error: text('error'),
    /** the member who asked for a resend (their email at the time); null for the paid mail */
    requestedByLabel: text('requested_by_label'),
    requestedByMemberId: text('requested_by_member_id').references(() => members.id, {
      onDelete: 'set null',
    }),
    createdAt: ts('created_at').notNull(),
    /** when the mailer took the mail (SMTP accepted it, or the development mailbox kept it) */
    sentAt: ts('sent_at'),
    /** the refund a refund mail tells of; null for the other kinds */
    refundId: text('refund_id'),
  },
  (t) => [
    index('order_mails_order_idx').on(t.orderId, t.createdAt),
    // Once per paid order: a job that runs twice cannot record a second sent paid mail.
    uniqueIndex('order_mails_paid_sent_key')
      .on(t.orderId)
      .where(sql`${t.kind} = 'paid' AND ${t.outcome} = 'sent'`),
    // Once per refund: a refund mail's job that runs twice records one sent mail.
    uniqueIndex('order_mails_refund_sent_key')
      .on(t.refundId)
      .where(sql`${t.kind} = 'refund' AND ${t.outcome} = 'sent'`),
  ],
);
