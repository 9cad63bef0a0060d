// Shared by the orders tests: requests, order bodies, error assertions and row counts.
import assert from 'node:assert/strict';
import { asc, eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { findEventOnSale } from '../../src/events/events-on-sale.ts';
import type { OrderOut } from '../../src/orders/order-out.ts';
import type { Harness, TestPartner } from '../helpers/harness.ts';

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 3600 * 1000;
export const ORDER_CODE = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{8}$/;
export const BUYER = { name: 'Ada Runner', email: 'ada@example.org', phone: '0772123456' };

/** Every Order field of the contract (docs/contract.md#order), and nothing else. */
export const ORDER_KEYS = [
  'attribution',
  'buyer',
  'created_at',
  'currency',
  'discount_total',
  'donation_total',
  'event_id',
  'failure_kind',
  'hold_expires_at',
  'id',
  'laces_fee',
  'order_code',
  // the service's: the method it was paid with (docs/contract.md#orders)
  'payment_method',
  // the service's: what succeeded refunds gave back (docs/contract.md#refunds)
  'refunded_total',
  'registrations',
  'status',
  'subtotal',
  'ticket_count',
  'total',
];
export const REGISTRATION_KEYS = [
  'distance_km',
  'id',
  'participant_name',
  'status',
  'ticket_label',
  'ticket_type_id',
];

/** The harness settings every orders test file uses: no rate limit gets in the way. */
export const HARNESS_ENV = { RATE_LIMIT_BEARER_RATE: '100000', RATE_LIMIT_BEARER_BURST: '100000' };

type Response = { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown };

export function postOrder(h: Harness, headers: Record<string, string>, body: unknown): Promise<Response> {
  return h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  }) as Promise<Response>;
}

export function getOrder(h: Harness, headers: Record<string, string>, id: string): Promise<Response> {
  return h.service.api.inject({
    method: 'GET',
    url: `/v1/orders/${id}`,
    headers,
  }) as Promise<Response>;
}

export function listOrders(
  h: Harness,
  headers: Record<string, string>,
  query: Record<string, string | number> = {},
): Promise<Response> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return h.service.api.inject({
    method: 'GET',
    url: `/v1/orders${qs ? `?${qs}` : ''}`,
    headers,
  }) as Promise<Response>;
}

/** A valid order body for one ticket per type id given, with overrides. */
export function orderBody(
  eventId: string,
  ticketTypeIds: string[],
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    event_id: eventId,
    items: ticketTypeIds.map((id, i) => ({ ticket_type_id: id, participant_name: `Runner ${i + 1}` })),
    buyer: BUYER,
    ...overrides,
  };
}

/** Ticket type ids of an event, in the order they were given at creation. */
export async function ticketTypeIds(h: Harness, eventId: string): Promise<string[]> {
  const rows = await h.service.ctx.database.db
    .select({ id: ticketTypes.id })
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, eventId))
    .orderBy(asc(ticketTypes.position));
  return rows.map((r) => r.id);
}

export async function ticketCounts(h: Harness, ticketTypeId: string) {
  const [row] = await h.service.ctx.database.db
    .select({ held: ticketTypes.heldCount, paid: ticketTypes.paidCount })
    .from(ticketTypes)
    .where(eq(ticketTypes.id, ticketTypeId));
  return row!;
}

/**
 * Runs background jobs until none is due. JobRunner.runDue() on a runner that was never started
 * (as in tests) returns after its first batch of 20, so one call can leave due jobs behind.
 */
export async function runDueJobs(h: Harness): Promise<void> {
  while ((await h.service.jobs.runDue()) > 0);
}

/** Everything an order attempt could write, across the whole database. */
export async function snapshot(h: Harness) {
  const [row] = await h.service.ctx.database.rows<Record<string, number>>(sql`
    SELECT
      (SELECT count(*)::int FROM orders) AS orders,
      (SELECT count(*)::int FROM registrations) AS registrations,
      (SELECT coalesce(sum(held_count), 0)::int FROM ticket_types) AS held,
      (SELECT coalesce(sum(paid_count), 0)::int FROM ticket_types) AS paid,
      (SELECT count(*)::int FROM outbox_events) AS outbox,
      (SELECT count(*)::int FROM idempotency_keys) AS idempotency_keys`);
  const n = (key: string) => Number(row![key]);
  return {
    orders: n('orders'),
    registrations: n('registrations'),
    held: n('held'),
    paid: n('paid'),
    outbox: n('outbox'),
    idempotencyKeys: n('idempotency_keys'),
  };
}

/** Runs `fn` and asserts that it wrote nothing at all. */
export async function expectNothingWritten<T>(h: Harness, fn: () => Promise<T>, label = ''): Promise<T> {
  const before = await snapshot(h);
  const result = await fn();
  assert.deepEqual(await snapshot(h), before, `${label}: nothing written`);
  return result;
}

/** order.paid outbox rows of one order, payload parsed (the same on both drivers). */
export async function orderPaidRows(h: Harness, orderId: string) {
  const rows = await h.service.ctx.database.rows<{ type: string; organization_id: string; payload: string }>(
    sql`SELECT type, organization_id, payload::text AS payload FROM outbox_events
        WHERE payload->'data'->>'id' = ${orderId} ORDER BY created_at, id`,
  );
  return rows.map((r) => ({
    type: r.type,
    organizationId: r.organization_id,
    payload: JSON.parse(r.payload) as { type: string; timestamp: string; data: OrderOut },
  }));
}

export interface ErrorBody {
  code: number;
  message: string;
  error_code: string;
  request_id: string;
  errors?: Array<{ field: string; message: string }>;
}

/** Asserts an error envelope with the given status and error_code; returns the parsed body. */
export function expectError(res: Response, status: number, errorCode: string, label = ''): ErrorBody {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  const body = res.json() as ErrorBody;
  assert.equal(body.error_code, errorCode, `${label} ${res.body}`);
  assert.equal(body.code, status, label);
  assert.equal(typeof body.message, 'string', label);
  assert.match(body.request_id, /^req_/, label);
  return body;
}

/** Asserts 400 validation_failed naming exactly these fields. */
export function expectFieldErrors(res: Response, fields: string[], label = ''): ErrorBody {
  const body = expectError(res, 400, 'validation_failed', label);
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `${label}: errors[] present`);
  for (const e of body.errors!) assert.ok(typeof e.message === 'string' && e.message.length > 0, label);
  assert.deepEqual(
    [...new Set(body.errors!.map((e) => e.field))].sort(),
    [...fields].sort(),
    `${label}: ${res.body}`,
  );
  return body;
}

/** Asserts a 201 order creation and returns the Order. */
export function expectCreated(res: Response, label = ''): OrderOut {
  assert.equal(res.statusCode, 201, `${label} ${res.body}`);
  const body = res.json() as { code: number; message: string; data: OrderOut };
  assert.equal(body.code, 201, label);
  assert.equal(body.message, 'Order created', label);
  return body.data;
}

/** The event as order creation reads it before its transaction (findEventOnSale), now. */
export function readEventOnSale(h: Harness, partner: TestPartner, eventId: string) {
  const ctx = h.service.ctx;
  return findEventOnSale(ctx.database.db, {
    organizationId: partner.organizationId,
    eventId,
    now: ctx.clock.now(),
  });
}
