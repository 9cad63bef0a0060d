// Payment attempts: one row per prompt sent to a buyer's phone. Our reference (UUID v4) is the
// provider's request id, so a resend or a status query always names the same payment.
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { members } from '../members/members.schema.ts';
import { orders } from '../orders/orders.schema.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { ts } from '../platform/columns.schema.ts';

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
    /**
     * the provider's own id of the payment, for a provider that assigns one when the prompt goes
     * out (Daraja's CheckoutRequestID); null for those that take our reference (MTN, Airtel)
     */
    providerReference: text('provider_reference'),
    /** where the buyer pays, for a method paid on the provider's page (cards); null for prompts */
    redirectUrl: text('redirect_url'),
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
    // One attempt per provider payment: a callback can never tie a second attempt to it.
    uniqueIndex('payment_attempts_provider_reference_key')
      .on(t.method, t.providerReference)
      .where(sql`${t.providerReference} IS NOT NULL`),
    index('payment_attempts_order_idx').on(t.orderId, t.createdAt),
    // an organization's successful payments (refunds.ts: duplicates and late payments to refund)
    index('payment_attempts_successful_idx')
      .on(t.organizationId, t.orderId)
      .where(sql`${t.status} = 'successful'`),
    // an organization's prompts still awaiting an answer (stalled-payments.ts): few at any time
    index('payment_attempts_awaited_idx')
      .on(t.organizationId, t.promptExpiresAt)
      .where(sql`${t.status} IN ('submitting', 'pending', 'timed_out')`),
    // At most one prompt outstanding per order: a second pay call cannot send a second prompt.
    uniqueIndex('payment_attempts_one_open_per_order')
      .on(t.orderId)
      .where(sql`${t.status} IN ('submitting', 'pending')`),
  ],
);

// Refunds: money returned to a payer through the provider that took it, one row per request. A
// refund of an order (kind order: all of it, some runners or an amount) adds to the order's
// refunded_total when it succeeds, and makes it refunded once all was given back; one of a payment
// that bought nothing (paid_after_expiry, duplicate_payment) changes no order.
export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /** the payment attempt whose money goes back */
    attemptId: text('attempt_id')
      .notNull()
      .references(() => paymentAttempts.id),
    /** order | paid_after_expiry | duplicate_payment */
    kind: text('kind').notNull(),
    /** UUID v4: MTN X-Reference-Id of the refund, Airtel transaction.id */
    reference: text('reference').notNull(),
    amount: integer('amount').notNull(),
    /** the part of amount that is service fees; amount - fee_amount - donation_amount is ticket money */
    feeAmount: integer('fee_amount').notNull().default(0),
    /** the part of amount that is the donation */
    donationAmount: integer('donation_amount').notNull().default(0),
    currency: text('currency').notNull(),
    /** why, as the member or partner gave it (1 to 500 characters); null when none was given */
    reason: text('reason'),
    /** the runners (registration ids) whose places this refund returns; [] for an amount alone */
    registrationIds: jsonb('registration_ids').$type<string[]>().notNull().default([]),
    /** momo | airtel | mpesa: always the method of the payment refunded */
    method: text('method').notNull(),
    /** pending | succeeded | failed */
    status: text('status').notNull(),
    /** the provider's id of the refund (MTN financialTransactionId, Airtel airtel_money_id) */
    providerReference: text('provider_reference'),
    failureReason: text('failure_reason'),
    /**
     * the provider's own ids of the refund, from its submission's answer, for a provider whose
     * result comes by callback only (Daraja: conversation_id, originator_conversation_id); a
     * result naming other ids is not this refund's
     */
    providerIds: jsonb('provider_ids').$type<Record<string, string>>(),
    /** that result, as the callback carried it once its ids matched (refunds-callback.ts) */
    providerResult: jsonb('provider_result'),
    /** the member who asked; null for the operator (admin API, CLI) or a member since deleted */
    requestedByMemberId: text('requested_by_member_id').references(() => members.id, {
      onDelete: 'set null',
    }),
    /** the member's email at the time, or "operator" */
    requestedByLabel: text('requested_by_label').notNull(),
    /** when the refund was sent to the provider; null until then (the job sends it) */
    submittedAt: ts('submitted_at'),
    /** status queries made by the refund's job (drives its schedule) */
    polls: integer('polls').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    finalizedAt: ts('finalized_at'),
  },
  (t) => [
    uniqueIndex('refunds_reference_key').on(t.reference),
    // One refund under way per payment at a time: a second request, or a race of two, is refused.
    // Several may succeed (partial refunds); their sum is checked under the order's lock.
    uniqueIndex('refunds_one_pending_per_attempt')
      .on(t.attemptId)
      .where(sql`${t.status} = 'pending'`),
    // a payment's refunds (refunds.ts: whether a payment that bought nothing is refunded or being so)
    index('refunds_attempt_idx').on(t.attemptId),
    index('refunds_org_created_idx').on(t.organizationId, t.createdAt, t.id),
    index('refunds_order_idx').on(t.orderId),
    // Refunds needing attention (failed), per organization, oldest first.
    index('refunds_failed_idx')
      .on(t.organizationId, t.createdAt)
      .where(sql`${t.status} = 'failed'`),
  ],
);
