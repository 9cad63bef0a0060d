ALTER TABLE "orders" ADD COLUMN "checkout_mode" text;--> statement-breakpoint
UPDATE "orders" SET "checkout_mode" = s."ui_mode" FROM "checkout_sessions" s WHERE s."id" = "orders"."checkout_session_id";--> statement-breakpoint
CREATE INDEX "orders_org_event_created_idx" ON "orders" USING btree ("organization_id","event_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_org_status_created_idx" ON "orders" USING btree ("organization_id","status","created_at","id");