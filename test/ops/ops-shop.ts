// The organization the three-instance tests sell through, made over the admin API of one instance:
// a flash-sale event (paid tickets), an event for checkout sessions, a partner client and a webhook
// endpoint for order.paid.
import { randomBytes } from 'node:crypto';
import { adminKey, call, dataOf } from './cluster.ts';

const DAY = 24 * 3600 * 1000;
export const SHOP_ORIGIN = 'https://shop.example.org';

export interface OpsShop {
  organizationId: string;
  flashEventId: string;
  flashTicketId: string;
  openEventId: string;
  /** the open event's free ticket type */
  openTicketId: string;
  client: { client_id: string; client_secret: string };
  endpointSecret: string;
}

async function createEvent(app: string, organizationId: string, ticket: Record<string, unknown>) {
  const now = Date.now();
  const event = dataOf(
    await call(app, {
      method: 'POST',
      path: `/admin/v1/organizations/${organizationId}/events`,
      headers: adminKey,
      body: {
        name: 'City Run',
        handle: `city-run-${randomBytes(3).toString('hex')}`,
        status: 'open',
        visibility: 'public',
        starts_at: new Date(now + 30 * DAY).toISOString(),
        ends_at: new Date(now + 30 * DAY + 3600_000).toISOString(),
        timezone: 'Africa/Kampala',
        currency: 'UGX',
        reg_opens_at: new Date(now - DAY).toISOString(),
        reg_closes_at: new Date(now + 29 * DAY).toISOString(),
        ticket_types: [ticket],
      },
    }),
    201,
  );
  return { eventId: event.event_id as string, ticketId: event.ticket_types[0].ticket_type_id as string };
}

/** A new API client of the organization; its secret is in the answer. */
export async function createClient(app: string, organizationId: string, scopes: string[]) {
  const client = dataOf(
    await call(app, {
      method: 'POST',
      path: `/admin/v1/organizations/${organizationId}/clients`,
      headers: adminKey,
      body: { name: 'Shop', scopes, allowed_domains: [SHOP_ORIGIN], return_url_domains: [SHOP_ORIGIN] },
    }),
    201,
  );
  return { client_id: client.client_id as string, client_secret: client.client_secret as string };
}

export async function setUpShop(app: string, options: { capacity: number; webhookUrl: string }) {
  const org = dataOf(
    await call(app, {
      method: 'POST',
      path: '/admin/v1/organizations',
      headers: adminKey,
      body: { name: 'Flash Sale Club', payments_enabled: true },
    }),
    201,
  );
  const flash = await createEvent(app, org.id, {
    name: '10 km',
    price_minor: 30000,
    capacity: options.capacity,
    distance_km: 10,
  });
  const open = await createEvent(app, org.id, {
    name: '5 km',
    price_minor: 0,
    capacity: 100_000,
    distance_km: 5,
  });
  const client = await createClient(app, org.id, [
    'orders:write',
    'orders:read',
    'checkout_sessions:write',
    'checkout_sessions:read',
  ]);
  const endpoint = dataOf(
    await call(app, {
      method: 'POST',
      path: `/admin/v1/organizations/${org.id}/webhook-endpoints`,
      headers: adminKey,
      body: { url: options.webhookUrl, events: ['order.paid'] },
    }),
    201,
  );
  return {
    organizationId: org.id as string,
    flashEventId: flash.eventId,
    flashTicketId: flash.ticketId,
    openEventId: open.eventId,
    openTicketId: open.ticketId,
    client,
    endpointSecret: endpoint.secret as string,
  } satisfies OpsShop;
}
