CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "checkout_mode" text;--> statement-breakpoint
UPDATE "orders" SET "checkout_mode" = s."ui_mode" FROM "checkout_sessions" s WHERE s."id" = "orders"."checkout_session_id";--> statement-breakpoint
CREATE INDEX "orders_org_event_created_idx" ON "orders" USING btree ("organization_id","event_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_org_status_created_idx" ON "orders" USING btree ("organization_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_org_phone_idx" ON "orders" USING btree ("organization_id","buyer_phone");--> statement-breakpoint
CREATE INDEX "orders_buyer_search_idx" ON "orders" USING gin (lower("buyer_name" || ' ' || "buyer_email") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "registrations_participant_search_idx" ON "registrations" USING gin (lower("participant_name") gin_trgm_ops);