// Payment attempts: one row per prompt sent to a buyer's phone. Our reference (UUID v4) is the
// provider's request id, so a resend or a status query always names the same payment.
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { orders } from '../orders/orders.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.ts';

export const paymentAttempts = pgTable(
  'payment_attempts',
  {
    id: text('id').primaryKey(),
    /** UUID v4: X-Reference-Id for MTN, transaction.id for Airtel */
    reference: text('reference').notNull(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    method: text('method').notNull(),
    msisdn: text('msisdn').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    /**
     * submitting | pending | timed_out | closed | successful | failed. timed_out: the prompt
     * window passed without an answer, so the buyer is told so and may pay again, but the
     * reconciliation job keeps asking the provider; closed: the same, by the buyer's choice
     * (resend, another number, cancel). Only successful and failed are final.
     */
    status: text('status').notNull(),
    failureKind: text('failure_kind'),
    failureMessage: text('failure_message'),
    providerTransactionId: text('provider_transaction_id'),
    /** the buyer's approval window on the phone */
    promptExpiresAt: ts('prompt_expires_at').notNull(),
    /** status queries made by the attempt's job (drives its schedule; callbacks never count) */
    polls: integer('polls').notNull().default(0),
    /** when a callback last triggered a status query: spaces them out across processes */
    callbackQueryAt: ts('callback_query_at'),
    createdAt: ts('created_at').notNull(),
    finalizedAt: ts('finalized_at'),
  },
  (t) => [
    uniqueIndex('payment_attempts_reference_key').on(t.reference),
    index('payment_attempts_order_idx').on(t.orderId, t.createdAt),
    // At most one prompt outstanding per order: a second pay call cannot send a second prompt.
    uniqueIndex('payment_attempts_one_open_per_order')
      .on(t.orderId)
      .where(sql`${t.status} IN ('submitting', 'pending')`),
  ],
);
