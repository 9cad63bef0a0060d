-- Whether an event's buyer page offers a donation. Expand only: a column with a constant default,
-- added without rewriting the table; the release before never reads it.
ALTER TABLE "events" ADD COLUMN IF NOT EXISTS "donations_enabled" boolean DEFAULT true NOT NULL;
