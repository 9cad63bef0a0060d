-- The sender takes events from the queue itself and sends their first attempts before their
-- deliveries' rows exist; the row is leased meanwhile and deleted with the records. Expand only: a
-- process of the release before this one still deletes queue rows as it fans them out, leased or
-- not, and a delivery it makes for an event this release is sending is sent twice (at least once).
ALTER TABLE "outbox_queue" ADD COLUMN "lease_until" timestamp (3) with time zone;
