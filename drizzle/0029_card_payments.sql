-- Cards: the methods an organization turned on (cards need turning on), and the page a card
-- attempt sends its buyer to (Flutterwave's hosted payment link).
-- Expand only: a column with a constant default (no table rewrite) and a nullable one, neither read
-- by the release before.
ALTER TABLE "organizations" ADD COLUMN IF NOT EXISTS "opted_in_methods" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_attempts" ADD COLUMN IF NOT EXISTS "redirect_url" text;
