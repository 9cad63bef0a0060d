// Organizations: the tenants. Every other row hangs off one.
import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Per payment method: fee = round_half_up(price * percent_bp / 10000) + fixed_minor. */
export interface MethodFee {
  percent_bp: number;
  fixed_minor: number;
}
/**
 * Fees by payment method key ({momo: {...}, airtel: {...}}); a method the schedule does not name
 * takes its default fee from the payments registry (events/fees.ts methodFee).
 */
export type FeeSchedule = Readonly<Record<string, MethodFee | undefined>>;

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  paymentsEnabled: boolean('payments_enabled').notNull().default(false),
  supportEmail: text('support_email').notNull().default(''),
  /** an IANA zone: the app's times, and a new event's zone unless it says another */
  timezone: text('timezone').notNull().default('Africa/Kampala'),
  /** ISO 4217: a new event's currency unless it says another */
  currency: text('currency').notNull().default('UGX'),
  fees: jsonb('fees').$type<FeeSchedule>().notNull(),
  /** the payment methods that need turning on (cards) which this organization turned on, by key */
  optedInMethods: jsonb('opted_in_methods').$type<string[]>().notNull().default([]),
  /**
   * Bumped in the same transaction as every change to the organization or its events, so a
   * process can tell whether a page of events it built earlier is still exactly current.
   */
  catalogVersion: integer('catalog_version').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});
