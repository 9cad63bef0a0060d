-- The inventory update of a free order (src/events/inventory.ts takePaidIfAvailable; a paid
-- order's hold, holdTickets, has the same form on held_count) on one hot row, alone, in
-- autocommit: the fastest that concurrent orders for one ticket type can take it on this
-- PostgreSQL. The reference of bench/scenarios/hold-contention.ts; the table is a scratch copy of
-- ticket_types (same columns and CHECK) with one row of practically unlimited capacity.
-- Set with -D: tt (the row's id).
\set n 1
update "bench_hot_row" set "paid_count" = "bench_hot_row"."paid_count" + :n where ("bench_hot_row"."id" = :tt and "bench_hot_row"."paid_count" + "bench_hot_row"."held_count" + :n <= "bench_hot_row"."capacity") returning "id";
