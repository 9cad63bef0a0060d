-- migrate: step by step
CREATE TABLE "order_mails" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"to" text NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	"requested_by_label" text,
	"requested_by_member_id" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"sent_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "order_mails" ADD CONSTRAINT "order_mails_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_mails" ADD CONSTRAINT "order_mails_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_mails" ADD CONSTRAINT "order_mails_requested_by_member_id_members_id_fk" FOREIGN KEY ("requested_by_member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_mails_order_idx" ON "order_mails" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "order_mails_paid_sent_key" ON "order_mails" USING btree ("order_id") WHERE "order_mails"."kind" = 'paid' AND "order_mails"."outcome" = 'sent';--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "outbox_events_data_id_idx" ON "outbox_events" USING btree ((("payload" -> 'data') ->> 'id'));