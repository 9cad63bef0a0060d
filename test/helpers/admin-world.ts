// Two organizations with one of every object the admin API manages (event, ticket type, API
// client, webhook endpoint, delivery, a paid order), made through the admin API where it can be, for suites that
// walk every admin route. No webhook is ever sent: the endpoint's host is under .invalid, the
// service's resolver answers no name (started with resolveNoNames), and the harness runs no
// background jobs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { orders, registrations } from '../../src/orders/orders.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { newId } from '../../src/platform/ids.ts';
import { insertWebhookEndpoint } from '../../src/webhooks/webhook-endpoints.ts';
import {
  admin,
  createClientFor,
  createEventFor,
  createOrg,
  dataOf,
  partnerOf,
} from '../admin/admin-helpers.ts';
import type { Harness, TestPartner } from './harness.ts';

export interface AdminObjects {
  organization: string;
  event: string;
  ticketType: string;
  client: string;
  webhookEndpoint: string;
  delivery: string;
  /** a paid order of one ticket, written as paid (its payment unknown to any network) */
  order: string;
  /** the client's credentials, for sending partner credentials where they do not belong */
  partner: TestPartner;
}

export type AdminObjectKind = Exclude<keyof AdminObjects, 'partner'>;

/** The kind of object a path parameter names, from the segment before it (clients/:client_id). */
export const OBJECT_OF_SEGMENT: Record<string, AdminObjectKind> = {
  organizations: 'organization',
  events: 'event',
  'ticket-types': 'ticketType',
  clients: 'client',
  'webhook-endpoints': 'webhookEndpoint',
  deliveries: 'delivery',
  orders: 'order',
};

/** Each kind's id prefix, for ids that are well formed but name nothing. */
export const ID_PREFIX: Record<AdminObjectKind, string> = {
  organization: 'org',
  event: 'evt',
  ticketType: 'tt',
  client: 'cli',
  webhookEndpoint: 'whe',
  delivery: 'whd',
  order: 'ord',
};

/** The path parameters of a route (`:name`), each with the kind of object it names. */
export function paramsOf(template: string): Array<{ index: number; kind: AdminObjectKind | undefined }> {
  const parts = template.split('/');
  return parts.flatMap((part, index) =>
    part.startsWith(':') ? [{ index, kind: OBJECT_OF_SEGMENT[parts[index - 1] ?? ''] }] : [],
  );
}

/** Fills a route's path parameters; `value` gets each parameter's position and kind. */
export function fillPath(
  template: string,
  value: (param: { index: number; kind: AdminObjectKind | undefined }) => string,
): string {
  const parts = template.split('/');
  for (const param of paramsOf(template)) parts[param.index] = value(param);
  return parts.join('/');
}

export async function makeAdminObjects(h: Harness): Promise<AdminObjects> {
  const org = await createOrg(h, { payments_enabled: true });
  const event = await createEventFor(h, org.id!);
  const client = await createClientFor(h, org.id!);
  const { endpoint } = await insertWebhookEndpoint(h.service.ctx.database.db, {
    organizationId: org.id!,
    url: 'https://hooks.example.invalid/in',
    eventTypes: ['order.paid'],
    now: h.clock.now(),
  });
  const delivery = dataOf(
    await admin(h, { method: 'POST', url: `/webhook-endpoints/${endpoint.id}/test` }),
    202,
  );
  assert.match(String(delivery.id), /^whd_/);
  const order = await writePaidOrder(h, org.id!, event.event_id, event.ticket_types[0].ticket_type_id);
  return {
    organization: org.id!,
    event: event.event_id,
    ticketType: event.ticket_types[0].ticket_type_id,
    client: client.client_id,
    webhookEndpoint: endpoint.id,
    delivery: delivery.id,
    order,
    partner: partnerOf(client),
  };
}

/** A paid order written as rows: its payment is one no network knows, so a refund of it fails. */
async function writePaidOrder(h: Harness, organizationId: string, eventId: string, ticketTypeId: string) {
  const db = h.service.ctx.database.db;
  const now = h.clock.now();
  const id = newId('ord');
  await db.insert(orders).values({
    id,
    organizationId,
    eventId,
    orderCode: id.slice(-8).toUpperCase(),
    status: 'paid',
    currency: 'UGX',
    subtotal: 5000,
    lacesFee: 0,
    total: 5000,
    paymentMethod: 'momo',
    buyerName: 'Ann',
    buyerEmail: 'ann@example.org',
    buyerPhone: '256772123456',
    paidAt: now,
    createdAt: now,
    updatedAt: now,
  });
  await db.insert(registrations).values({
    id: newId('reg'),
    orderId: id,
    organizationId,
    ticketTypeId,
    position: 0,
    ticketLabel: '10 km',
    distanceKm: 10,
    priceMinor: 5000,
    feeMinor: 0,
    participantName: 'Ann',
    status: 'confirmed',
    createdAt: now,
  });
  await db.insert(paymentAttempts).values({
    id: newId('pay'),
    reference: randomUUID(),
    orderId: id,
    organizationId,
    method: 'momo',
    msisdn: '256770000001',
    amount: 5000,
    currency: 'UGX',
    status: 'successful',
    promptExpiresAt: now,
    createdAt: now,
    finalizedAt: now,
  });
  return id;
}
