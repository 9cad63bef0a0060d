-- migrate: step by step
-- The sender claims pending deliveries by next_attempt_at; a pending one without it is due now.
UPDATE "webhook_deliveries" SET "next_attempt_at" = "updated_at" WHERE "status" = 'pending' AND "next_attempt_at" IS NULL;--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at","id") WHERE "webhook_deliveries"."status" = 'pending';
--> statement-breakpoint
-- Room on each page for a delivery's lease to be written in place (a HOT update, no index entries).
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);
--> statement-breakpoint
-- The sender's claim (src/webhooks/deliver-webhook.ts): up to max_count deliveries that are due
-- and not leased, in queue order after (after_at, after_id), leased to claim_owner, with their
-- events' payloads. It never sorts: with statistics older than a backlog, the planner would read
-- and sort every due delivery at each claim; without sorts it walks webhook_deliveries_due_idx
-- and stops. Columns are qualified: the names of the returned table are parameters too.
CREATE OR REPLACE FUNCTION "claim_webhook_deliveries"(claim_owner text, lease_end timestamptz, due_by timestamptz, max_count integer, after_at timestamptz, after_id text)
RETURNS TABLE (id text, attempts integer, next_attempt_at timestamptz, endpoint_id text, event_id text, payload jsonb)
LANGUAGE sql VOLATILE SET enable_sort = off AS $$
  WITH claimed AS (
    UPDATE webhook_deliveries SET lease_owner = claim_owner, lease_until = lease_end
    WHERE webhook_deliveries.id IN (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= due_by
        AND (d.lease_until IS NULL OR d.lease_until <= due_by)
        AND (d.next_attempt_at, d.id) > (after_at, after_id)
      ORDER BY d.next_attempt_at, d.id
      LIMIT max_count
      FOR UPDATE SKIP LOCKED)
    RETURNING webhook_deliveries.id, webhook_deliveries.attempts, webhook_deliveries.next_attempt_at,
      webhook_deliveries.endpoint_id, webhook_deliveries.event_id
  )
  SELECT c.id, c.attempts, c.next_attempt_at, c.endpoint_id, c.event_id, e.payload
  FROM claimed c JOIN outbox_events e ON e.id = c.event_id
$$;
