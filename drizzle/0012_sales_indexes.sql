-- migrate: step by step
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_event_status_idx" ON "orders" USING btree ("event_id","status");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_paid_after_expiry_idx" ON "orders" USING btree ("organization_id") WHERE "orders"."paid_after_expiry";--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "registrations_ticket_type_idx" ON "registrations" USING btree ("ticket_type_id","status");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "payment_attempts_successful_idx" ON "payment_attempts" USING btree ("organization_id","order_id") WHERE "payment_attempts"."status" = 'successful';--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "payment_attempts_awaited_idx" ON "payment_attempts" USING btree ("organization_id","prompt_expires_at") WHERE "payment_attempts"."status" IN ('submitting', 'pending', 'timed_out');