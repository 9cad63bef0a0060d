-- migrate: step by step
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "bib_ranges" (
	"ticket_type_id" text NOT NULL,
	"event_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"first_number" integer NOT NULL,
	"last_number" integer NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "bib_ranges_ticket_type_id_pk" PRIMARY KEY("ticket_type_id"),
	CONSTRAINT "bib_ranges_bounds_check" CHECK ("bib_ranges"."first_number" >= 1 AND "bib_ranges"."first_number" <= "bib_ranges"."last_number" AND "bib_ranges"."last_number" <= 999999)
);
--> statement-breakpoint
CREATE TABLE "bibs" (
	"registration_id" text NOT NULL,
	"event_id" text NOT NULL,
	"ticket_type_id" text NOT NULL,
	"number" integer NOT NULL,
	"assigned_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "bibs_registration_id_pk" PRIMARY KEY("registration_id")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "checkout_mode" text;--> statement-breakpoint
UPDATE "orders" SET "checkout_mode" = s."ui_mode" FROM "checkout_sessions" s WHERE s."id" = "orders"."checkout_session_id";--> statement-breakpoint
ALTER TABLE "bib_ranges" ADD CONSTRAINT "bib_ranges_ticket_type_id_ticket_types_id_fk" FOREIGN KEY ("ticket_type_id") REFERENCES "public"."ticket_types"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bib_ranges" ADD CONSTRAINT "bib_ranges_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bib_ranges" ADD CONSTRAINT "bib_ranges_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bibs" ADD CONSTRAINT "bibs_registration_id_registrations_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."registrations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bibs" ADD CONSTRAINT "bibs_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bibs" ADD CONSTRAINT "bibs_ticket_type_id_ticket_types_id_fk" FOREIGN KEY ("ticket_type_id") REFERENCES "public"."ticket_types"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bib_ranges_event_idx" ON "bib_ranges" USING btree ("event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bibs_event_number_key" ON "bibs" USING btree ("event_id","number");--> statement-breakpoint
CREATE INDEX "bibs_ticket_type_number_idx" ON "bibs" USING btree ("ticket_type_id","number");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_org_event_created_idx" ON "orders" USING btree ("organization_id","event_id","created_at","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_org_status_created_idx" ON "orders" USING btree ("organization_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_org_phone_idx" ON "orders" USING btree ("organization_id","buyer_phone");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_buyer_search_idx" ON "orders" USING gin (lower("buyer_name" || ' ' || "buyer_email") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "registrations_participant_search_idx" ON "registrations" USING gin (lower("participant_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "registrations_start_list_idx" ON "registrations" USING btree ("ticket_type_id","participant_name","id") WHERE "registrations"."status" = 'confirmed';