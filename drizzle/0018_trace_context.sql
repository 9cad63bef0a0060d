-- The trace context (W3C traceparent, then a comma and the tracestate if any) of what wrote each
-- row, continued by the work it causes later: a job's run, an event's deliveries, the checkout
-- page's steps and the paying of an order (src/platform/tracing.ts). Null when tracing is off.
-- Expand only: nullable columns without a default are added to the catalog alone (no rewrite, no
-- scan), so this file's one transaction holds its locks for a moment; the release before neither
-- reads nor writes them.
ALTER TABLE "jobs" ADD COLUMN "trace_context" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "trace_context" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "trace_context" text;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "trace_context" text;
