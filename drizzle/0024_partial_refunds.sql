-- migrate: step by step
-- Partial and per-runner refunds (docs/decisions/partial-refunds.md), and the refund mail's record
-- (order_mails.refund_id, one sent mail per refund). Expand only, but for one index: columns with
-- a constant default or nullable, which the release before never reads; the registrations' foreign
-- key added NOT VALID, then validated in a step of its own (a scan that blocks no write). Orders
-- refunded before this release get their refunded_total from their succeeded refunds (few rows,
-- found through the small refunds table). The one-live-refund index becomes one pending refund per
-- payment, so that several refunds of a payment may succeed; the new index is built first, so a
-- guard stands at every step, and the release before still refuses a second refund under the
-- order's lock.
ALTER TABLE "orders" ADD COLUMN IF NOT EXISTS "refunded_total" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "orders" SET "refunded_total" = r."amount" FROM (SELECT "order_id", sum("amount")::int AS "amount" FROM "refunds" WHERE "kind" = 'order' AND "status" = 'succeeded' GROUP BY "order_id") r WHERE "orders"."id" = r."order_id" AND "orders"."refunded_total" = 0;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN IF NOT EXISTS "fee_amount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN IF NOT EXISTS "donation_amount" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN IF NOT EXISTS "reason" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN IF NOT EXISTS "registration_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "registrations" ADD COLUMN IF NOT EXISTS "refund_id" text;--> statement-breakpoint
ALTER TABLE "order_mails" ADD COLUMN IF NOT EXISTS "refund_id" text;--> statement-breakpoint
ALTER TABLE "registrations" ADD CONSTRAINT "registrations_refund_id_refunds_id_fk" FOREIGN KEY ("refund_id") REFERENCES "public"."refunds"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "registrations" VALIDATE CONSTRAINT "registrations_refund_id_refunds_id_fk";--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "order_mails_refund_sent_key" ON "order_mails" USING btree ("refund_id") WHERE "order_mails"."kind" = 'refund' AND "order_mails"."outcome" = 'sent';--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "refunds_attempt_idx" ON "refunds" USING btree ("attempt_id");--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "refunds_one_pending_per_attempt" ON "refunds" USING btree ("attempt_id") WHERE "refunds"."status" = 'pending';--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "refunds_one_live_per_attempt";
