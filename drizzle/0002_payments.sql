CREATE TABLE "payment_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"reference" text NOT NULL,
	"order_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"method" text NOT NULL,
	"msisdn" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"failure_kind" text,
	"failure_message" text,
	"provider_transaction_id" text,
	"prompt_expires_at" timestamp (3) with time zone NOT NULL,
	"polls" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"finalized_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "payment_attempts" ADD CONSTRAINT "payment_attempts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_attempts" ADD CONSTRAINT "payment_attempts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_attempts_reference_key" ON "payment_attempts" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "payment_attempts_order_idx" ON "payment_attempts" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_attempts_one_open_per_order" ON "payment_attempts" USING btree ("order_id") WHERE "payment_attempts"."status" IN ('submitting', 'pending');