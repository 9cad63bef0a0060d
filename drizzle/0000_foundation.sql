CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"payments_enabled" boolean DEFAULT false NOT NULL,
	"support_email" text DEFAULT '' NOT NULL,
	"fees" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"handle" text NOT NULL,
	"short_code" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"cover" text DEFAULT '' NOT NULL,
	"venue" text DEFAULT '' NOT NULL,
	"event_type" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"visibility" text DEFAULT 'public' NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"timezone" text NOT NULL,
	"currency" text NOT NULL,
	"reg_opens_at" timestamp (3) with time zone NOT NULL,
	"reg_closes_at" timestamp (3) with time zone NOT NULL,
	"organizer_name" text DEFAULT '' NOT NULL,
	"support_email" text DEFAULT '' NOT NULL,
	"waiver_required" boolean DEFAULT false NOT NULL,
	"waiver_version" text DEFAULT '' NOT NULL,
	"waiver_text" text DEFAULT '' NOT NULL,
	"additional_questions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_types" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"price_minor" integer NOT NULL,
	"capacity" integer NOT NULL,
	"paid_count" integer DEFAULT 0 NOT NULL,
	"held_count" integer DEFAULT 0 NOT NULL,
	"distance_km" double precision DEFAULT 0 NOT NULL,
	"sales_start" timestamp (3) with time zone NOT NULL,
	"sales_end" timestamp (3) with time zone NOT NULL,
	"min_age" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ticket_types_inventory_check" CHECK ("ticket_types"."paid_count" >= 0 AND "ticket_types"."held_count" >= 0 AND "ticket_types"."paid_count" + "ticket_types"."held_count" <= "ticket_types"."capacity")
);
--> statement-breakpoint
CREATE TABLE "api_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"allowed_domains" text[] DEFAULT '{}' NOT NULL,
	"return_url_domains" text[] DEFAULT '{}' NOT NULL,
	"publishable_key" text NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"secret_rotated_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_clients_publishable_key_unique" UNIQUE("publishable_key")
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_types" ADD CONSTRAINT "ticket_types_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_types" ADD CONSTRAINT "ticket_types_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_clients" ADD CONSTRAINT "api_clients_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "events_org_handle_key" ON "events" USING btree ("organization_id","handle");--> statement-breakpoint
CREATE INDEX "events_org_listing_idx" ON "events" USING btree ("organization_id","starts_at","id");--> statement-breakpoint
CREATE INDEX "ticket_types_event_idx" ON "ticket_types" USING btree ("event_id","position");--> statement-breakpoint
CREATE INDEX "api_clients_org_idx" ON "api_clients" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "api_clients_allowed_domains_idx" ON "api_clients" USING gin ("allowed_domains");