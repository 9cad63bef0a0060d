-- migrate: step by step
-- Free places taken through the hosted checkout count toward its per-IP limit with unpaid holds
-- (orders/hold-limits.ts). Expand only: a partial index of free paid orders, read by key.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_client_ip_free_idx" ON "orders" USING btree ("event_id","client_ip_hash","created_at") WHERE "orders"."status" = 'paid' AND "orders"."total" = 0 AND "orders"."client_ip_hash" IS NOT NULL;