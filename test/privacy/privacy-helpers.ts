// Helpers for the retention and erasure tests: an organization with an event that asks a question,
// orders placed through the partner API with a buyer of the test's choosing, and the stored rows
// of an order as the database holds them (what a reader would show).
import assert from 'node:assert/strict';
import { sql, type SQL } from 'drizzle-orm';
import { findEvent } from '../../src/events/events.ts';
import type { EventInput } from '../../src/events/events.ts';
import { RETENTION_JOB } from '../../src/privacy/retention-pass.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

export const DAY = 24 * 3600 * 1000;

export interface Buyer {
  name: string;
  email: string;
  phone: string;
}

export interface Race {
  partner: TestPartner;
  eventId: string;
  paidTicket: string;
  freeTicket: string;
}

/** An open event of `partner` (a new organization when none is given) that asks a T-shirt size. */
export async function makeRace(
  h: Harness,
  options: { partner?: TestPartner; event?: Partial<EventInput> } = {},
): Promise<Race> {
  const partner = options.partner ?? (await makePartner(h));
  const event = await makeEvent(h, partner, {
    additional_questions: [
      { key: 'tshirt', label: 'T-shirt size', type: 'text', required: false, options: [], help: '' },
    ],
    ...options.event,
  });
  const found = (await findEvent(h.service.ctx.database.db, event.id))!;
  return {
    partner,
    eventId: event.id,
    paidTicket: found.ticketTypes.find((t) => t.priceMinor > 0)!.id,
    freeTicket: found.ticketTypes.find((t) => t.priceMinor === 0)!.id,
  };
}

/** An order through the partner API (a free one is paid at once); its Order as answered. */
export async function placeOrder(
  h: Harness,
  race: Race,
  buyer: Buyer,
  options: { paid?: boolean; idempotencyKey?: string; tickets?: number } = {},
): Promise<{ id: string; status: string; total: number } & Record<string, unknown>> {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: {
      ...bearer(await getToken(h, race.partner)),
      'content-type': 'application/json',
      ...(options.idempotencyKey && { 'idempotency-key': options.idempotencyKey }),
    },
    payload: JSON.stringify(orderBody(race, buyer, options)),
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

export function orderBody(race: Race, buyer: Buyer, options: { paid?: boolean; tickets?: number } = {}) {
  return {
    event_id: race.eventId,
    items: Array.from({ length: options.tickets ?? 2 }, (_, i) => ({
      ticket_type_id: options.paid ? race.paidTicket : race.freeTicket,
      participant_name: `${buyer.name} runner ${i + 1}`,
      date_of_birth: '1990-04-0' + (i + 1),
      answers: { tshirt: 'M' },
    })),
    buyer,
  };
}

/** The order as the partner API answers it now. */
export async function readOrder(h: Harness, race: Race, orderId: string) {
  const res = await h.service.api.inject({
    url: `/v1/orders/${orderId}`,
    headers: bearer(await getToken(h, race.partner)),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** Rows of a raw query, int8 and numeric as numbers on both drivers. */
export async function rowsOf<T = Record<string, unknown>>(h: Harness, query: SQL) {
  return [...(await h.service.ctx.database.rows<T>(query))];
}

/** What the database holds of an order: its personal fields, amounts, and its registrations'. */
export async function storedOrder(h: Harness, orderId: string) {
  const [order] = await rowsOf<Record<string, unknown>>(
    h,
    sql`SELECT id, status, buyer_name, buyer_email, buyer_phone, client_ip_hash FROM orders WHERE id = ${orderId}`,
  );
  const registrations = await rowsOf<Record<string, unknown>>(
    h,
    sql`SELECT participant_name, date_of_birth::text AS date_of_birth, answers, price_minor, status
      FROM registrations WHERE order_id = ${orderId} ORDER BY position`,
  );
  const attempts = await rowsOf<Record<string, unknown>>(
    h,
    sql`SELECT msisdn, amount, status FROM payment_attempts WHERE order_id = ${orderId} ORDER BY created_at`,
  );
  const mails = await rowsOf<Record<string, unknown>>(
    h,
    sql`SELECT "to", kind, outcome FROM order_mails WHERE order_id = ${orderId} ORDER BY id`,
  );
  const events = await rowsOf<{ payload: Record<string, unknown> }>(
    h,
    sql`SELECT payload FROM outbox_events WHERE ((payload -> 'data') ->> 'id') = ${orderId}`,
  );
  return { order, registrations, attempts, mails, events };
}

/** The amounts of an order, which retention and erasure never change. */
export async function amountsOf(h: Harness, orderId: string) {
  const [row] = await rowsOf(
    h,
    sql`SELECT status, currency, subtotal, discount_total, donation_total, laces_fee, total,
        created_at::text AS created_at, paid_at::text AS paid_at,
        (SELECT count(*)::int FROM registrations r WHERE r.order_id = orders.id) AS registrations,
        (SELECT sum(price_minor)::int FROM registrations r WHERE r.order_id = orders.id) AS prices
      FROM orders WHERE id = ${orderId}`,
  );
  return row;
}

/** Takes the recurring retention job out, for tests that run the pass themselves at chosen times. */
export async function stopRetentionJob(h: Harness): Promise<void> {
  await h.service.ctx.database.db.execute(sql`DELETE FROM jobs WHERE kind = ${RETENTION_JOB}`);
}

/** Whether a row with this id is still in `table`. */
export async function exists(h: Harness, table: string, id: string, column = 'id'): Promise<boolean> {
  const rows = await rowsOf(
    h,
    sql`SELECT 1 FROM ${sql.identifier(table)} WHERE ${sql.identifier(column)} = ${id}`,
  );
  return rows.length > 0;
}
