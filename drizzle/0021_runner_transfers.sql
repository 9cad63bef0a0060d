-- migrate: step by step
-- Runners' corrections and transfers (docs/decisions/runner-transfers.md). Expand only: nullable
-- columns the release before never reads, and the tickets' unique registration_id made partial
-- (one valid ticket per registration, void ones kept beside it). The partial index is built first,
-- without blocking writes, so issuing stays idempotent at every step; the release before only
-- issues valid tickets, which the partial index still keeps to one.
ALTER TABLE "events" ADD COLUMN IF NOT EXISTS "transfer_deadline" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN IF NOT EXISTS "locale" text;--> statement-breakpoint
ALTER TABLE "registrations" ADD COLUMN IF NOT EXISTS "runner_email" text;--> statement-breakpoint
ALTER TABLE "registrations" ADD COLUMN IF NOT EXISTS "runner_phone" text;--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "tickets_registration_valid_key" ON "tickets" USING btree ("registration_id") WHERE "tickets"."status" = 'valid';--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "tickets_registration_key";
