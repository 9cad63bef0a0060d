// An organization at scale for the organizer app's scenarios: its events, a client and an owner
// through the compiled domain functions, then 100,000 orders with their registrations written
// straight into the database by SQL (the domain functions would take minutes). PostgreSQL only.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type * as EventsModule from '../../src/events/events.ts';
import type * as InvitationsModule from '../../src/members/invitations.ts';
import type * as OrganizationsModule from '../../src/organizations/organizations.ts';
import type * as ClientsModule from '../../src/auth/clients.ts';
import type * as DbModule from '../../src/platform/db.ts';
import { importDist } from './paths.ts';
import { raceEventInput } from './seed.ts';

const DAY = 24 * 3600 * 1000;

/**
 * Buyers' and runners' names: first name and surname drawn from these, so that searching a surname
 * finds one order in 25 or so, as a common name does, and a full name one in about 500.
 */
export const FIRST_NAMES = [
  'Amina',
  'Brian',
  'Cissy',
  'David',
  'Esther',
  'Faith',
  'Godfrey',
  'Hellen',
  'Isaac',
  'Joan',
  'Kenneth',
  'Lydia',
  'Moses',
  'Norah',
  'Okello',
  'Patience',
  'Robert',
  'Sarah',
  'Tom',
  'Winnie',
];
export const SURNAMES = [
  'Nakato',
  'Okello',
  'Mugisha',
  'Achieng',
  'Kato',
  'Namubiru',
  'Ssempala',
  'Atim',
  'Byaruhanga',
  'Nansubuga',
  'Odongo',
  'Tumusiime',
  'Wanjiru',
  'Kiprop',
  'Mutesi',
  'Ochieng',
  'Akello',
  'Lubega',
  'Nabirye',
  'Kasozi',
  'Mwangi',
  'Auma',
  'Ouma',
  'Nalwoga',
  'Opio',
];

export interface OrganizerSeed {
  organizationId: string;
  eventIds: string[];
  email: string;
  password: string;
}

export interface OrganizerSeedOptions {
  orders: number;
  events: number;
  /** SQL expression of `i` (the order's number, 1..orders): the 1-based index of its event */
  eventOf: string;
  /** SQL expression of `i`: true when the order is paid (else pending, expired or cancelled) */
  paidWhen: string;
  /** SQL expression of `n` (the order's number): the registrations of the order are 0..it */
  lastPosition: string;
}

/** The organization, its events, a client and an owner; then the orders and registrations by SQL. */
export async function seedOrganizer(url: string, options: OrganizerSeedOptions): Promise<OrganizerSeed> {
  const { openDatabase } = await importDist<typeof DbModule>('platform/db.js');
  const { createOrganization } = await importDist<typeof OrganizationsModule>(
    'organizations/organizations.js',
  );
  const { insertEvent } = await importDist<typeof EventsModule>('events/events.js');
  const { insertApiClient } = await importDist<typeof ClientsModule>('auth/clients.js');
  const { createInvitation, acceptInvitation } =
    await importDist<typeof InvitationsModule>('members/invitations.js');
  const database = await openDatabase({ url, connections: { reads: 1, transactions: 1 } });
  const email = 'owner@scale.example';
  const password = randomBytes(12).toString('base64url');
  let organizationId: string;
  let clientId: string;
  const eventIds: string[] = [];
  try {
    const now = Date.now();
    const org = await createOrganization(database.db, {
      name: 'Scale Running Club',
      paymentsEnabled: true,
      supportEmail: 'support@scale.example',
    });
    organizationId = org.id;
    for (let i = 0; i < options.events; i++) {
      const event = await insertEvent(
        database.db,
        org.id,
        raceEventInput(now + (i + 7) * DAY, {
          name: `Scale Marathon ${String(i + 1).padStart(2, '0')}`,
          ticket_types: [
            { name: '21 km', price_minor: 50000, capacity: 200000, distance_km: 21.1 },
            { name: '10 km', price_minor: 30000, capacity: 200000, distance_km: 10 },
          ],
        }),
      );
      eventIds.push(event.id);
    }
    clientId = (
      await insertApiClient(database.db, {
        organizationId: org.id,
        name: 'Scale partner',
        scopes: ['events:read'],
        allowedDomains: [],
        returnUrlDomains: [],
      })
    ).client.id;
    const { token } = await createInvitation(database.db, {
      organizationId: org.id,
      email,
      role: 'owner',
      invitedBy: null,
      now: new Date(),
    });
    await acceptInvitation(database, token, { password }, new Date());
  } finally {
    await database.close();
  }
  const names = (offset: string) =>
    `(ARRAY[${FIRST_NAMES.map((n) => `'${n}'`).join(',')}])[1 + (${offset}) % ${FIRST_NAMES.length}] || ' ' || ` +
    `(ARRAY[${SURNAMES.map((n) => `'${n}'`).join(',')}])[1 + ((${offset}) / ${FIRST_NAMES.length}) % ${SURNAMES.length}]`;
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Orders spread over 60 days; most paid, some pending, expired or cancelled; a third through
    // each channel. The order code and the phone number carry the order's number.
    await sql.unsafe(
      `INSERT INTO orders (id, organization_id, event_id, api_client_id, channel, checkout_mode, order_code,
         status, currency, subtotal, laces_fee, total, payment_method, buyer_name, buyer_email,
         buyer_phone, paid_at, created_at, updated_at)
       SELECT 'ord_scale' || lpad(i::text, 8, '0'), $1,
         (ARRAY[${eventIds.map((id) => `'${id}'`).join(',')}])[${options.eventOf}],
         $2, 'partner_api', (ARRAY[NULL, 'redirect', 'embedded'])[1 + i % 3], 'S' || lpad(i::text, 7, '0'),
         CASE WHEN ${options.paidWhen} THEN 'paid'
           ELSE (ARRAY['pending','expired','cancelled'])[1 + i % 3] END,
         'UGX', 50000, 1750, 51750, (ARRAY['momo','airtel'])[1 + i % 2],
         ${names('i * 7')}, 'runner' || i || '@example.org', '25677' || lpad(i::text, 7, '0'),
         CASE WHEN ${options.paidWhen} THEN now() - (i % 86400) * interval '1 minute' END,
         now() - (i % 86400) * interval '1 minute', now()
       FROM generate_series(1, ${options.orders}) AS i`,
      [organizationId, clientId],
    );
    await sql.unsafe(
      `INSERT INTO registrations (id, order_id, organization_id, ticket_type_id, position, ticket_label,
         distance_km, price_minor, fee_minor, participant_name, status, created_at)
       SELECT 'reg_scale' || lpad(o.n::text, 8, '0') || '_' || p, o.id, o.organization_id, tt.id, p, tt.name,
         tt.distance_km, tt.price_minor, 1750, ${names('o.n * 13 + p * 3')},
         CASE WHEN o.status = 'paid' THEN 'confirmed' ELSE 'cancelled' END, o.created_at
       FROM (SELECT id, organization_id, event_id, status, created_at,
               substr(id, 10)::int AS n FROM orders WHERE organization_id = $1) o
       CROSS JOIN LATERAL generate_series(0, ${options.lastPosition}) AS p
       JOIN LATERAL (SELECT * FROM ticket_types WHERE event_id = o.event_id ORDER BY id LIMIT 1) tt ON true`,
      [organizationId],
    );
    await sql.unsafe('ANALYZE orders; ANALYZE registrations');
  } finally {
    await sql.end({ timeout: 5 });
  }
  return { organizationId, eventIds, email, password };
}
