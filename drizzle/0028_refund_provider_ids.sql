-- A provider's own ids of a refund and the result its callback carried (Daraja's reversal: the
-- ConversationID it answers with, and the result it POSTs later to ResultURL).
-- Expand only: two nullable columns the release before never reads; refunds is small.
ALTER TABLE "refunds" ADD COLUMN IF NOT EXISTS "provider_ids" jsonb;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN IF NOT EXISTS "provider_result" jsonb;
