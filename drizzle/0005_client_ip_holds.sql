-- migrate: step by step
ALTER TABLE "orders" ADD COLUMN "client_ip_hash" text;--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_client_ip_holds_idx" ON "orders" USING btree ("event_id","client_ip_hash") WHERE "orders"."status" = 'pending' AND "orders"."client_ip_hash" IS NOT NULL;