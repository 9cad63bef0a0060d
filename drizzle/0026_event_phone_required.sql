-- Whether a free registration must give the buyer's phone. Expand only: a column with a constant
-- default, added without rewriting the table; the release before never reads it.
ALTER TABLE "events" ADD COLUMN IF NOT EXISTS "phone_required" boolean DEFAULT false NOT NULL;
