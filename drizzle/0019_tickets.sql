-- migrate: step by step
-- Tickets (src/tickets/): one per confirmed registration, issued when the order's confirmation is
-- built. Expand only: a new table the release before never reads. Step by step because the foreign
-- keys to orders and registrations take a brief lock on those busy tables: each waits on its own,
-- and a failed run goes on from the step that failed.
CREATE TABLE "tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"registration_id" text NOT NULL,
	"order_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"event_id" text NOT NULL,
	"code" text NOT NULL,
	"token" text NOT NULL,
	"status" text DEFAULT 'valid' NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "tickets_status_check" CHECK ("tickets"."status" IN ('valid', 'void'))
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_registration_id_registrations_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."registrations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_registration_key" ON "tickets" USING btree ("registration_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_code_key" ON "tickets" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_token_key" ON "tickets" USING btree ("token");--> statement-breakpoint
CREATE INDEX "tickets_order_idx" ON "tickets" USING btree ("order_id");