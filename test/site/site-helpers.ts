// Shared by the hosted checkout page tests: a partner with an event like a real race (a paid
// ticket with a minimum age, a free one, a required question, a waiver), sessions created
// through the partner API, form posts, and small HTML assertions.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import type { AdditionalQuestion, EventInput } from '../../src/events/events.ts';

/** The required select most races ask, which a buyer must answer before Pay. */
export const TSHIRT_QUESTION: AdditionalQuestion = {
  key: 'tshirt',
  label: 'T-shirt size',
  type: 'select',
  required: true,
  options: ['S', 'M', 'L'],
  help: '',
};

export const SHOP = 'https://shop.example.org';
export const EMBED = 'https://club.example.org';

export interface Race {
  partner: TestPartner;
  token: string;
  eventId: string;
  /** as the API reports it */
  startsAt: string;
  /** 30,000 UGX, min_age 16 */
  paid: string;
  /** free */
  free: string;
}

export async function makeRace(h: Harness, overrides: Partial<EventInput> = {}): Promise<Race> {
  const partner = await makePartner(h, { allowedDomains: [SHOP, EMBED], returnUrlDomains: [SHOP] });
  const event = await makeEvent(h, partner, {
    name: 'Kampala City 10K',
    venue: 'Kololo Airstrip',
    waiver_required: true,
    waiver_version: '2026-03-01',
    waiver_text: 'I run at my own risk.',
    additional_questions: [TSHIRT_QUESTION],
    ticket_types: [
      { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10, min_age: 16 },
      { name: '5 km fun run', price_minor: 0, capacity: 5, distance_km: 5 },
    ],
    ...overrides,
  });
  const token = await getToken(h, partner);
  const detail = await h.service.api.inject({
    method: 'GET',
    url: `/v1/events/${event.id}`,
    headers: bearer(token),
  });
  const data = detail.json().data as {
    starts_at: string;
    ticket_types: { ticket_type_id: string; price_minor: number }[];
  };
  const types = data.ticket_types;
  return {
    partner,
    token,
    eventId: event.id,
    startsAt: data.starts_at,
    paid: types.find((t) => t.price_minor > 0)?.ticket_type_id ?? '',
    free: types.find((t) => t.price_minor === 0)?.ticket_type_id ?? '',
  };
}

export async function createSession(
  h: Harness,
  race: Race,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: { ...bearer(race.token), 'content-type': 'application/json' },
    payload: JSON.stringify({
      event_id: race.eventId,
      on_success_url: `${SHOP}/thanks?session_id={CHECKOUT_SESSION_ID}`,
      on_cancel_url: `${SHOP}/cart`,
      prefill: { buyer_name: 'Amina Nakato', buyer_email: 'amina@example.org' },
      ...body,
    }),
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id as string;
}

export async function readSession(h: Harness, race: Race, id: string) {
  const res = await h.service.api.inject({
    method: 'GET',
    url: `/v1/checkout-sessions/${id}`,
    headers: bearer(race.token),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { status: string; order: { id: string; status: string; code: string } | null };
}

export async function readOrder(h: Harness, race: Race, id: string) {
  const res = await h.service.api.inject({
    method: 'GET',
    url: `/v1/orders/${id}`,
    headers: bearer(race.token),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/**
 * The page's markup with layout whitespace taken out (runs of white space become one space, and
 * none is kept beside a tag), so assertions do not depend on how the templates are indented.
 */
export function flat(markup: string): string {
  // ASCII white space only: the no-break spaces in money amounts are content.
  return markup
    .replace(/[ \t\r\n\f]+/g, ' ')
    .replace(/ ?\/?> ?/g, '>')
    .replace(/ </g, '<');
}

export interface Page {
  statusCode: number;
  headers: LightMyRequestResponse['headers'];
  /** flattened markup (see flat); JSON bodies as sent */
  body: string;
  rawPayload: Buffer;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- as LightMyRequestResponse
}

function toPage(res: LightMyRequestResponse): Page {
  expectNoCookie(res);
  const html = /^text\/html/.test(String(res.headers['content-type'] ?? ''));
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    body: html && !res.headers['content-encoding'] ? flat(res.body) : res.body,
    rawPayload: res.rawPayload,
    json: () => res.json(),
  };
}

/** Every response of the checkout must be free of cookies. */
export function expectNoCookie(res: LightMyRequestResponse): void {
  assert.equal(res.headers['set-cookie'], undefined, 'no Set-Cookie');
}

export async function getPage(h: Harness, url: string, headers: Record<string, string> = {}): Promise<Page> {
  return toPage(await h.service.site.inject({ method: 'GET', url, headers }));
}

export async function postForm(h: Harness, url: string, fields: Record<string, string>): Promise<Page> {
  const res = await h.service.site.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  return toPage(res);
}

/** A complete, valid form for one ticket of `ticket` paid with `phone` (the simulator's number). */
export function fullForm(
  race: Race,
  options: { ticket?: 'paid' | 'free'; phone?: string; method?: string; action?: string } = {},
): Record<string, string> {
  const ticket = options.ticket === 'free' ? race.free : race.paid;
  return {
    [`qty.${ticket}`]: '1',
    'items[0].ticket_type_id': ticket,
    'items[0].participant_name': 'Okello Brian',
    'items[0].answers.tshirt': 'M',
    'items[0].date_of_birth': options.ticket === 'free' ? '' : '1995-04-12',
    'buyer.name': 'Amina Nakato',
    'buyer.email': 'amina@example.org',
    'buyer.phone': '0772123456',
    waiver_accepted: 'yes',
    donation_minor: '',
    payment_method: options.method ?? 'momo',
    payment_phone: options.phone ?? '0770000001',
    action: options.action ?? 'pay',
  };
}

export async function countRows(h: Harness, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await h.service.ctx.database.rows<{ n: number }>(query);
  return Number(row!.n);
}

export function ordersOf(h: Harness, sessionId: string): Promise<number> {
  return countRows(h, sql`SELECT count(*)::int AS n FROM orders WHERE checkout_session_id = ${sessionId}`);
}

export function attemptsOf(h: Harness, sessionId: string): Promise<number> {
  return countRows(
    h,
    sql`SELECT count(*)::int AS n FROM payment_attempts a JOIN orders o ON o.id = a.order_id WHERE o.checkout_session_id = ${sessionId}`,
  );
}

/** Runs due jobs and polls status.json until `done` holds (the simulator runs at PAYMENT_TIME_SCALE 0.01). */
export async function waitForStatus(
  h: Harness,
  sessionId: string,
  done: (s: Record<string, unknown>) => boolean,
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The background jobs (payment polling) run here, as the service's runner would.
    await h.service.jobs.runDue();
    const res = await h.service.site.inject({
      method: 'GET',
      url: `/checkout/${sessionId}/status.json`,
      remoteAddress: '10.77.0.1',
    });
    const body = res.json() as Record<string, unknown>;
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`status never reached: ${res.body}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The start tag of the element with this id. */
export function tagWithId(body: string, id: string): string {
  const match = new RegExp(`<[a-z]+[^>]*\\sid="${id.replace(/[[\].]/g, '\\$&')}"[^>]*>`).exec(body);
  assert.ok(match, `an element with id ${id}`);
  return match[0];
}

/**
 * Asserts that the field with this id is marked invalid and described by an error that says
 * `message` and sits next to it (inside the same field box, before the control).
 */
export function expectFieldError(body: string, id: string, message: RegExp): void {
  const tag = tagWithId(body, id);
  assert.match(tag, /aria-invalid="true"/, `${id} has aria-invalid`);
  assert.match(tag, new RegExp(`aria-describedby="[^"]*\\berr-`), `${id} is described by its error`);
  const errorId = /aria-describedby="[^"]*\b(err-[^" ]+)/.exec(tag)![1]!;
  const note = new RegExp(`<p class="error" id="${errorId.replace(/[[\].]/g, '\\$&')}">([^<]*)</p>`).exec(
    body,
  );
  assert.ok(note, `error note ${errorId} present`);
  assert.match(note[1]!, message, `${id} message`);
  const between = body.slice(body.indexOf(note[0]), body.indexOf(tag));
  assert.ok(between.length > 0 && between.length < 1500, `${errorId} is next to ${id}`);
}
