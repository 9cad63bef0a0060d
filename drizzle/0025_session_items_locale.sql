-- A checkout session's tickets chosen by the partner and its page language. Expand only: columns
-- with a constant default or none, added without rewriting the table; the release before never
-- reads them.
ALTER TABLE "checkout_sessions" ADD COLUMN IF NOT EXISTS "line_items" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN IF NOT EXISTS "locale" text;
