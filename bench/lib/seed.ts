// Seeds the bench database with the compiled domain functions (the admin API cannot do it yet):
// one organization, 50 open public events with two ticket types each, one client with every
// scope, and the hold-contention events (open, unlisted, one free ticket type of capacity 100
// each: one per burst). Runs in the bench process and closes the database before the service
// starts, because a PGlite directory can be open in one process only.
import type * as ClientsModule from '../../src/auth/clients.ts';
import type * as ScopesModule from '../../src/auth/scopes.ts';
import type * as EventsModule from '../../src/events/events.ts';
import type * as OrganizationsModule from '../../src/organizations/organizations.ts';
import type * as DbModule from '../../src/platform/db.ts';
import type * as MigrateModule from '../../src/platform/migrate.ts';
import { importDist } from './paths.ts';

export const EVENT_COUNT = 50;
/** capacity of each hold-contention ticket type */
export const HOLD_CAPACITY = 100;
const DAY = 24 * 3600 * 1000;

/**
 * The admin input of an open race in Kampala starting `startsAt` (ms), on sale from a day ago to
 * a day before the race; `fields` gives the name and ticket types and overrides the rest.
 */
export function raceEventInput(
  startsAt: number,
  fields: Partial<EventsModule.EventInput> & Pick<EventsModule.EventInput, 'name' | 'ticket_types'>,
): EventsModule.EventInput {
  const now = Date.now();
  return {
    venue: 'Kololo Independence Grounds, Kampala',
    event_type: 'road_race',
    status: 'open',
    visibility: 'public',
    timezone: 'Africa/Kampala',
    currency: 'UGX',
    starts_at: new Date(startsAt).toISOString(),
    ends_at: new Date(startsAt + 6 * 3600 * 1000).toISOString(),
    reg_opens_at: new Date(now - DAY).toISOString(),
    reg_closes_at: new Date(startsAt - DAY).toISOString(),
    organizer_name: 'Bench Running Club',
    support_email: 'support@bench.example',
    ...fields,
  };
}

export interface HoldEvent {
  eventId: string;
  ticketTypeId: string;
}

export interface SeededPartner {
  organizationId: string;
  clientId: string;
  clientSecret: string;
  /** the 50 listed events (GET /v1/events) */
  eventIds: string[];
  /**
   * hold contention: one event per burst (warm-up and measured runs), each with one free ticket
   * type of capacity HOLD_CAPACITY. Unlisted, so that GET /v1/events answers exactly as before
   * (50 events, has_more false); orders and event detail accept unlisted events.
   */
  holdEvents: HoldEvent[];
}

export async function seedBenchData(
  open: { url?: string; dataDir?: string },
  options: { holdEvents?: number } = {},
): Promise<SeededPartner> {
  const { openDatabase } = await importDist<typeof DbModule>('platform/db.js');
  const { migrate } = await importDist<typeof MigrateModule>('platform/migrate.js');
  const { createOrganization } = await importDist<typeof OrganizationsModule>(
    'organizations/organizations.js',
  );
  const { insertApiClient } = await importDist<typeof ClientsModule>('auth/clients.js');
  const { ALL_SCOPES } = await importDist<typeof ScopesModule>('auth/scopes.js');
  const { insertEvent, ticketTypesOf } = await importDist<typeof EventsModule>('events/events.js');

  const database = await openDatabase({
    url: open.url,
    dataDir: open.dataDir,
    connections: { reads: 1, transactions: 1 },
  });
  try {
    await migrate(database);
    const now = Date.now();
    return await database.transaction(async (tx) => {
      const org = await createOrganization(tx, {
        name: 'Bench Running Club',
        paymentsEnabled: true,
        supportEmail: 'support@bench.example',
      });
      const eventIds: string[] = [];
      for (let i = 0; i < EVENT_COUNT; i++) {
        const startsAt = now + (i + 7) * DAY;
        const event = await insertEvent(
          tx,
          org.id,
          raceEventInput(startsAt, {
            name: `Bench City Run ${String(i + 1).padStart(2, '0')}`,
            description: 'A loop through the city centre at sunrise, with water stations every 2.5 km.',
            ticket_types: [
              { name: '10 km', price_minor: 30000, capacity: 1000, distance_km: 10 },
              { name: '5 km fun run', price_minor: 0, capacity: 500, distance_km: 5 },
            ],
          }),
        );
        eventIds.push(event.id);
      }
      const holdEvents: HoldEvent[] = [];
      for (let i = 0; i < (options.holdEvents ?? 0); i++) {
        const startsAt = now + (EVENT_COUNT + i + 30) * DAY;
        const event = await insertEvent(
          tx,
          org.id,
          raceEventInput(startsAt, {
            name: `Bench Flash Race ${i + 1}`,
            description: 'A free community race with 100 places.',
            visibility: 'unlisted',
            ticket_types: [{ name: '5 km free', price_minor: 0, capacity: HOLD_CAPACITY, distance_km: 5 }],
          }),
        );
        const [tt] = await ticketTypesOf(tx, [event.id]);
        holdEvents.push({ eventId: event.id, ticketTypeId: tt!.id });
      }
      const { client, clientSecret } = await insertApiClient(tx, {
        organizationId: org.id,
        name: 'Bench partner',
        scopes: [...ALL_SCOPES],
        allowedDomains: ['http://127.0.0.1:5173'],
        returnUrlDomains: ['http://127.0.0.1:5173'],
      });
      return { organizationId: org.id, clientId: client.id, clientSecret, eventIds, holdEvents };
    });
  } finally {
    await database.close();
  }
}
