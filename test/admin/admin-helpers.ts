// Helpers for admin API tests: requests with the admin key, and factories that go through the
// admin API itself (so each test makes its own organization the way an operator would).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { TEST_ADMIN_KEY, type Harness, type TestPartner } from '../helpers/harness.ts';

const DAY = 24 * 3600 * 1000;

export interface AdminRequest {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
  /** raw payload instead of JSON */
  payload?: string;
  headers?: Record<string, string>;
  /** admin key to send; null sends no Authorization header */
  key?: string | null;
}

export async function admin(h: Harness, request: AdminRequest) {
  const key = request.key === undefined ? TEST_ADMIN_KEY : request.key;
  const headers: Record<string, string> = {
    ...(key !== null && { authorization: `Bearer ${key}` }),
    ...(request.body !== undefined && { 'content-type': 'application/json' }),
    ...request.headers,
  };
  return h.service.app.inject({
    method: request.method ?? 'GET',
    url: `/admin/v1${request.url}`,
    headers,
    ...(request.body !== undefined && { payload: JSON.stringify(request.body) }),
    ...(request.payload !== undefined && { payload: request.payload }),
  });
}

/** Asserts the status and returns the envelope's data. */
export function dataOf(res: { statusCode: number; body: string; json(): unknown }, status: number) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as { code: number; message: string; data: Record<string, unknown> };
  assert.equal(body.code, status);
  assert.equal(typeof body.message, 'string');
  return body.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface ErrorBody {
  code: number;
  message: string;
  error_code: string;
  request_id: string;
  errors?: Array<{ field: string; message: string }>;
}

/** Asserts an error envelope with the status and error_code; returns it. */
export function errorOf(
  res: { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown },
  status: number,
  errorCode: string,
): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as ErrorBody;
  assert.equal(body.code, status);
  assert.equal(body.error_code, errorCode, res.body);
  assert.match(body.request_id, /^req_/);
  assert.equal(res.headers['x-request-id'], body.request_id);
  return body;
}

/** The field names of a validation_failed answer, sorted. */
export function fieldsOf(body: ErrorBody): string[] {
  return (body.errors ?? []).map((e) => e.field).sort();
}

export async function createOrg(h: Harness, body: Record<string, unknown> = {}) {
  const res = await admin(h, {
    method: 'POST',
    url: '/organizations',
    body: { name: `Org ${randomBytes(3).toString('hex')}`, ...body },
  });
  return dataOf(res, 201);
}

/** A valid event body: open, public, registration open now, a paid and a free ticket type. */
export function eventBody(h: Harness, overrides: Record<string, unknown> = {}) {
  const now = h.clock.now().getTime();
  return {
    name: 'Lake Run',
    handle: `lake-run-${randomBytes(3).toString('hex')}`,
    status: 'open',
    visibility: 'public',
    starts_at: new Date(now + 30 * DAY).toISOString(),
    ends_at: new Date(now + 30 * DAY + 6 * 3600_000).toISOString(),
    timezone: 'Africa/Kampala',
    currency: 'UGX',
    reg_opens_at: new Date(now - DAY).toISOString(),
    reg_closes_at: new Date(now + 29 * DAY).toISOString(),
    ticket_types: [
      { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 },
      { name: '5 km', price_minor: 0, capacity: 50, distance_km: 5 },
    ],
    ...overrides,
  };
}

export async function createEventFor(h: Harness, orgId: string, overrides: Record<string, unknown> = {}) {
  const res = await admin(h, {
    method: 'POST',
    url: `/organizations/${orgId}/events`,
    body: eventBody(h, overrides),
  });
  return dataOf(res, 201);
}

export async function createClientFor(h: Harness, orgId: string, body: Record<string, unknown> = {}) {
  const res = await admin(h, {
    method: 'POST',
    url: `/organizations/${orgId}/clients`,
    body: {
      name: 'Shop',
      scopes: ['events:read', 'checkout_sessions:write', 'orders:read'],
      allowed_domains: ['https://shop.example.org'],
      return_url_domains: ['https://shop.example.org'],
      ...body,
    },
  });
  return dataOf(res, 201);
}

/** A client created through the admin API, in the shape the harness's getToken takes. */
export function partnerOf(client: Record<string, string>): TestPartner {
  return {
    organizationId: client.organization_id!,
    clientId: client.client_id!,
    clientSecret: client.client_secret!,
    publishableKey: client.publishable_key!,
  };
}
