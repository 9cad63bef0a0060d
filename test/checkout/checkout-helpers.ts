// Shared by the checkout session tests: requests, credentials and row counts.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Harness } from '../helpers/harness.ts';

export const SHOP = 'https://shop.example.org';
export const LOCAL = 'http://localhost:5173';
export const SESSION_ID = /^cs_[A-Za-z0-9]{16,}$/;
export const DAY_MS = 24 * 3600 * 1000;

export function withKey(key: string, origin?: string): Record<string, string> {
  return { 'x-service-publishable-key': key, ...(origin !== undefined && { origin }) };
}

/** A valid redirect body for an event, with overrides. */
export function redirectBody(
  eventId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    event_id: eventId,
    on_success_url: `${SHOP}/thanks`,
    on_cancel_url: `${SHOP}/cart`,
    ...overrides,
  };
}

export function postSession(
  h: Harness,
  headers: Record<string, string>,
  body: unknown,
  options: { remoteAddress?: string } = {},
) {
  return h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
    ...(options.remoteAddress !== undefined && { remoteAddress: options.remoteAddress }),
  });
}

export function getSession(h: Harness, headers: Record<string, string>, id: string) {
  return h.service.api.inject({ method: 'GET', url: `/v1/checkout-sessions/${id}`, headers });
}

async function count(h: Harness, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await h.service.ctx.database.rows<{ n: number }>(query);
  return Number(row!.n);
}

/** Rows in checkout_sessions, all of them or one client's. */
export function countSessions(h: Harness, clientId?: string): Promise<number> {
  return count(
    h,
    clientId === undefined
      ? sql`SELECT count(*)::int AS n FROM checkout_sessions`
      : sql`SELECT count(*)::int AS n FROM checkout_sessions WHERE api_client_id = ${clientId}`,
  );
}

export function countIdempotencyKeys(h: Harness): Promise<number> {
  return count(h, sql`SELECT count(*)::int AS n FROM idempotency_keys`);
}

/** Runs `fn` and asserts that it wrote no checkout session and no idempotency record. */
export async function expectNothingWritten<T>(h: Harness, fn: () => Promise<T>): Promise<T> {
  const sessionsBefore = await countSessions(h);
  const keysBefore = await countIdempotencyKeys(h);
  const result = await fn();
  assert.equal(await countSessions(h), sessionsBefore, 'no checkout session was written');
  assert.equal(await countIdempotencyKeys(h), keysBefore, 'no idempotency record was written');
  return result;
}

/** Asserts an error envelope with the given status and error_code; returns the parsed body. */
export function expectError(
  res: { statusCode: number; body: string; json(): unknown },
  status: number,
  errorCode: string,
  label = '',
) {
  assert.equal(res.statusCode, status, `${label} ${res.body}`);
  const body = res.json() as {
    code: number;
    message: string;
    error_code: string;
    request_id: string;
    errors?: Array<{ field: string; message: string }>;
  };
  assert.equal(body.error_code, errorCode, `${label} ${res.body}`);
  assert.equal(body.code, status, label);
  assert.equal(typeof body.message, 'string', label);
  assert.match(body.request_id, /^req_/, label);
  return body;
}

/** Asserts 400 validation_failed naming exactly these fields (each at least once). */
export function expectFieldErrors(
  res: { statusCode: number; body: string; json(): unknown },
  fields: string[],
  label = '',
) {
  const body = expectError(res, 400, 'validation_failed', label);
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `${label}: errors[] present`);
  for (const e of body.errors!) {
    assert.equal(typeof e.message, 'string', label);
    assert.ok(e.message.length > 0, label);
  }
  assert.deepEqual(
    [...new Set(body.errors!.map((e) => e.field))].sort(),
    [...fields].sort(),
    `${label}: ${res.body}`,
  );
}
