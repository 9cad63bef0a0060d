-- One POST /v1/checkout-sessions as the service runs it, for pgbench -M prepared (the reference
-- of bench/scenarios/checkout-sessions.ts). The statements, their text and their order are the
-- service's as captured on the wire (the service sends the idempotency claim and lookup
-- together, and the two inserts together, but they are the same statements); keep them in step
-- when the service's SQL changes. Values the service computes in Node (ids, URLs, the
-- response body, timestamps) are built here from a random number and now(), so that every
-- transaction writes new rows, like the service. Set with -D: api_client, org, event,
-- return_origin, site_url, request_hash. pgbench takes every ":name" as a variable, even inside
-- quotes, so a literal colon is written chr(58) and the response body is built with
-- json_build_object.
\set n random(1, 1000000000000000)
-- the bearer token check
select "api_clients"."id", "api_clients"."organization_id", "api_clients"."scopes", "api_clients"."allowed_domains", "api_clients"."return_url_domains", "api_clients"."revoked_at", "organizations"."catalog_version" from "api_clients" inner join "organizations" on "organizations"."id" = "api_clients"."organization_id" where "api_clients"."id" = :api_client;
-- the event on sale, with its organization, and its ticket types (before the transaction)
select "events"."id", "events"."organization_id", "events"."name", "events"."handle", "events"."short_code", "events"."description", "events"."cover", "events"."venue", "events"."event_type", "events"."status", "events"."visibility", "events"."starts_at", "events"."ends_at", "events"."timezone", "events"."currency", "events"."reg_opens_at", "events"."reg_closes_at", "events"."organizer_name", "events"."support_email", "events"."waiver_required", "events"."waiver_version", "events"."waiver_text", "events"."additional_questions", "events"."created_at", "events"."updated_at", "organizations"."id", "organizations"."name", "organizations"."payments_enabled", "organizations"."support_email", "organizations"."fees", "organizations"."catalog_version", "organizations"."created_at", "organizations"."updated_at" from "events" inner join "organizations" on "organizations"."id" = "events"."organization_id" where ("events"."id" = :event and "events"."organization_id" = :org and ("events"."status" = 'open' and "events"."ends_at" > now() and "events"."visibility" <> 'private'));
select "id", "event_id", "organization_id", "position", "name", "description", "price_minor", "capacity", "paid_count", "held_count", "distance_km", "sales_start", "sales_end", "min_age", "created_at" from "ticket_types" where ("ticket_types"."event_id" = :event and "ticket_types"."organization_id" = :org) order by "ticket_types"."position" asc, "ticket_types"."id" asc;
BEGIN;
-- Idempotency-Key: claim, then look for an earlier answer
SELECT pg_try_advisory_xact_lock(hashtextextended(:api_client::text || chr(58) || 'pgbench-' || :client_id::text || '-' || :n::text, 0)) AS ok;
SELECT operation, request_hash, response_status, response_body, created_at > now() - interval '24 hours' AS fresh FROM "idempotency_keys" WHERE api_client_id = :api_client AND key = 'pgbench-' || :client_id::text || '-' || :n::text;
-- the session (sent together with the stored response by the service)
INSERT INTO "checkout_sessions" (id, organization_id, api_client_id, event_id, ui_mode, created_with, embed_origin, success_url, cancel_url, client_reference_id, prefill, expires_at, created_at) VALUES ('cs_pgbench' || :client_id::text || 'x' || :n::text, :org, :api_client, :event, 'redirect', 'bearer', NULL, :return_origin::text || '/thanks?session_id=cs_pgbench' || :client_id::text || 'x' || :n::text, :return_origin::text || '/race', NULL, '{}'::jsonb, now() + interval '24 hours', now());
-- the response, stored for replays
INSERT INTO "idempotency_keys" (api_client_id, key, operation, request_hash, response_status, response_body, created_at) VALUES (:api_client, 'pgbench-' || :client_id::text || '-' || :n::text, 'POST /v1/checkout-sessions', :request_hash, 201, json_build_object('code', 201, 'message', 'Checkout session created', 'data', json_build_object('id', 'cs_pgbench' || :client_id::text || 'x' || :n::text, 'url', :site_url::text || '/checkout/cs_pgbench' || :client_id::text || 'x' || :n::text, 'expires_at', now() + interval '24 hours', 'ui_mode', 'redirect'))::jsonb, now());
END;
