-- migrate: step by step
-- Check-ins (src/checkin/): one row per check-in a volunteer's device made on race day. Expand
-- only: a new table the release before never reads. Step by step because the foreign key to
-- registrations takes a brief lock on that busy table: each waits on its own.
CREATE TABLE "check_ins" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"event_id" text NOT NULL,
	"registration_id" text NOT NULL,
	"client_id" text NOT NULL,
	"state" text NOT NULL,
	"checked_in_at" timestamp (3) with time zone NOT NULL,
	"member_id" text,
	"member_name" text NOT NULL,
	"received_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	"undone_at" timestamp (3) with time zone,
	"undone_by_member_id" text,
	"undone_by_name" text,
	CONSTRAINT "check_ins_state_check" CHECK ("check_ins"."state" IN ('live', 'conflict'))
);
--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_registration_id_registrations_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."registrations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_undone_by_member_id_members_id_fk" FOREIGN KEY ("undone_by_member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "check_ins_client_key" ON "check_ins" USING btree ("organization_id","client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "check_ins_live_key" ON "check_ins" USING btree ("registration_id") WHERE "check_ins"."state" = 'live' AND "check_ins"."undone_at" IS NULL;--> statement-breakpoint
CREATE INDEX "check_ins_registration_idx" ON "check_ins" USING btree ("registration_id");--> statement-breakpoint
CREATE INDEX "check_ins_event_changed_idx" ON "check_ins" USING btree ("event_id","changed_at");