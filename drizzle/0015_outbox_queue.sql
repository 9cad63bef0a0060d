-- The dispatcher's queue, so that fanning an event out no longer rewrites the event's row (its
-- payload and three index entries) to mark it. Expand and contract: the trigger queues the events
-- of every writer, this release's and the one still running during the rollout; a dispatcher of
-- that earlier release still finds events by dispatched_at IS NULL (without its index now) and
-- may fan out one this release already did, which the unique index and the confirmation mail's
-- own record make harmless.
CREATE TABLE "outbox_queue" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL
);
--> statement-breakpoint
INSERT INTO "outbox_queue" ("event_id")
SELECT "id" FROM "outbox_events" WHERE "dispatched_at" IS NULL ORDER BY "created_at", "id";
--> statement-breakpoint
-- One INSERT per statement that wrote events, in their order; an event written already marked
-- (for one endpoint or stream only) is not queued.
CREATE OR REPLACE FUNCTION "queue_outbox_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_queue (event_id)
  SELECT id FROM written WHERE dispatched_at IS NULL ORDER BY created_at, id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "outbox_events_queue" ON "outbox_events";
--> statement-breakpoint
CREATE TRIGGER "outbox_events_queue" AFTER INSERT ON "outbox_events"
REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION "queue_outbox_events"();
--> statement-breakpoint
DROP INDEX IF EXISTS "outbox_events_undispatched_idx";
--> statement-breakpoint
-- The unique index leads with the event, so it also finds an event's deliveries.
CREATE UNIQUE INDEX IF NOT EXISTS "webhook_deliveries_event_endpoint_key" ON "webhook_deliveries" USING btree ("event_id","endpoint_id");
--> statement-breakpoint
DROP INDEX IF EXISTS "webhook_deliveries_endpoint_event_key";
--> statement-breakpoint
DROP INDEX IF EXISTS "webhook_deliveries_event_idx";
