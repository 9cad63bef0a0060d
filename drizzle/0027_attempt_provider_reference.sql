-- migrate: step by step
-- The provider's own id of a payment (Daraja's CheckoutRequestID), for M-Pesa's status query.
-- Expand only: a nullable column the release before never reads, and its unique index built
-- without blocking writes (payment_attempts is large).
ALTER TABLE "payment_attempts" ADD COLUMN IF NOT EXISTS "provider_reference" text;--> statement-breakpoint
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "payment_attempts_provider_reference_key" ON "payment_attempts" USING btree ("method","provider_reference") WHERE "payment_attempts"."provider_reference" IS NOT NULL;
