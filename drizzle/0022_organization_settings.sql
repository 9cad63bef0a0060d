-- An organization's time zone (the organizer app's times, a new event's zone) and currency (a new
-- event's). Expand only: columns with a constant default, which PostgreSQL adds without rewriting
-- the (small) table; the release before never reads them.
ALTER TABLE "organizations" ADD COLUMN IF NOT EXISTS "timezone" text DEFAULT 'Africa/Kampala' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN IF NOT EXISTS "currency" text DEFAULT 'UGX' NOT NULL;
