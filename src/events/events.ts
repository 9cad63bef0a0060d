// Events and ticket types: their rows, and the writes and reads under the actions (actions/: what
// the organizer app and the admin API call). Every write marks the organization's catalog changed.
// Partner reads are in events-on-sale.ts, the wire shapes in event-out.ts, the rules in
// event-rules.ts.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { newId, randomString, type Executor } from '../platform/index.ts';
import {
  bumpCatalogVersion,
  joinOrganization,
  organizationColumns,
  type OrganizationRow,
} from '../organizations/index.ts';
import { checkTicketPrices } from './event-rules.ts';
import { type AdditionalQuestion, events, ticketTypes } from './events.schema.ts';

export type { AdditionalQuestion };
export type EventRow = typeof events.$inferSelect;
export type TicketTypeRow = typeof ticketTypes.$inferSelect;

export const EVENT_STATUSES = ['draft', 'open', 'closed', 'cancelled'] as const;
export const EVENT_VISIBILITIES = ['public', 'unlisted', 'private'] as const;

export interface EventWithTickets {
  event: EventRow;
  ticketTypes: TicketTypeRow[];
  organization: OrganizationRow;
}

export function remainingOf(tt: Pick<TicketTypeRow, 'capacity' | 'paidCount' | 'heldCount'>): number {
  return Math.max(0, tt.capacity - tt.paidCount - tt.heldCount);
}

/**
 * What insertEvent takes: the admin body with its questions filled in (admin/events/), also
 * built by the organizer app's form, the demo seed and tests, so a domain input rather than a
 * wire type.
 */
export interface TicketTypeInput {
  name: string;
  description?: string;
  price_minor: number;
  capacity: number;
  distance_km?: number;
  sales_start?: string;
  sales_end?: string;
  min_age?: number;
}

export interface EventInput {
  name: string;
  handle?: string;
  short_code?: string;
  description?: string;
  cover?: string;
  venue?: string;
  event_type?: string;
  status?: string;
  visibility?: string;
  starts_at: string;
  ends_at: string;
  timezone: string;
  currency: string;
  reg_opens_at: string;
  reg_closes_at: string;
  organizer_name?: string;
  support_email?: string;
  waiver_required?: boolean;
  waiver_version?: string;
  waiver_text?: string;
  additional_questions?: AdditionalQuestion[];
  /** after it, places can no longer be transferred; null or absent: no deadline */
  transfer_deadline?: string | null;
  /** the buyer's page offers a donation; absent: true */
  donations_enabled?: boolean;
  /** a free registration asks for the buyer's phone too; absent: false */
  phone_required?: boolean;
  ticket_types: TicketTypeInput[];
}

/**
 * The first of `slug`, `slug-2`, `slug-3`… (slug made from `text`) that no event of the
 * organization uses: the event's web address an organizer is offered.
 */
export async function suggestHandle(db: Executor, organizationId: string, text: string): Promise<string> {
  const base = slugify(text);
  const rows = await db
    .select({ handle: events.handle })
    .from(events)
    .where(
      and(
        eq(events.organizationId, organizationId),
        sql`(${events.handle} = ${base} OR ${events.handle} LIKE ${`${base}-%`})`,
      ),
    );
  const taken = new Set(rows.map((r) => r.handle));
  let handle = base;
  for (let n = 2; taken.has(handle); n++) handle = `${base}-${n}`;
  return handle;
}

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || 'event';
}

function ticketTypeValues(
  tt: TicketTypeInput,
  position: number,
  event: Pick<EventRow, 'id' | 'organizationId' | 'regOpensAt' | 'regClosesAt'>,
) {
  return {
    id: newId('tt'),
    eventId: event.id,
    organizationId: event.organizationId,
    position,
    name: tt.name,
    description: tt.description ?? '',
    priceMinor: tt.price_minor,
    capacity: tt.capacity,
    distanceKm: tt.distance_km ?? 0,
    salesStart: tt.sales_start ? new Date(tt.sales_start) : event.regOpensAt,
    salesEnd: tt.sales_end ? new Date(tt.sales_end) : event.regClosesAt,
    minAge: tt.min_age ?? 0,
  };
}

/** The unique index that keeps an event's handle unique within its organization. */
export const EVENT_HANDLE_KEY = 'events_org_handle_key';

/**
 * Inserts an event and its ticket types; the caller wraps it in a transaction. Business writes go
 * through actions/create-event.ts; this is also the demo seed's and the tests' way in.
 */
export async function insertEvent(
  db: Executor,
  organizationId: string,
  input: EventInput,
): Promise<EventRow> {
  checkTicketPrices(input.ticket_types, (i) => `ticket_types[${i}].price_minor`, input.currency);
  const [event] = await db
    .insert(events)
    .values({
      id: newId('evt'),
      organizationId,
      name: input.name,
      handle: input.handle ?? `${slugify(input.name)}-${randomString(4, 'abcdefghijkmnpqrstuvwxyz23456789')}`,
      shortCode: input.short_code ?? randomString(6, '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'),
      description: input.description ?? '',
      cover: input.cover ?? '',
      venue: input.venue ?? '',
      eventType: input.event_type ?? '',
      status: input.status ?? 'draft',
      visibility: input.visibility ?? 'public',
      startsAt: new Date(input.starts_at),
      endsAt: new Date(input.ends_at),
      timezone: input.timezone,
      currency: input.currency,
      regOpensAt: new Date(input.reg_opens_at),
      regClosesAt: new Date(input.reg_closes_at),
      organizerName: input.organizer_name ?? '',
      supportEmail: input.support_email ?? '',
      waiverRequired: input.waiver_required ?? false,
      waiverVersion: input.waiver_version ?? '',
      waiverText: input.waiver_text ?? '',
      additionalQuestions: input.additional_questions ?? [],
      transferDeadline: input.transfer_deadline ? new Date(input.transfer_deadline) : null,
      donationsEnabled: input.donations_enabled ?? true,
      phoneRequired: input.phone_required ?? false,
    })
    .returning();
  if (input.ticket_types.length > 0) {
    await db.insert(ticketTypes).values(input.ticket_types.map((tt, i) => ticketTypeValues(tt, i, event!)));
  }
  await bumpCatalogVersion(db, organizationId);
  return event!;
}

export async function insertTicketType(
  db: Executor,
  event: EventRow,
  input: TicketTypeInput,
): Promise<TicketTypeRow> {
  checkTicketPrices([input], () => 'price_minor', event.currency);
  const [{ n }] = (await db
    .select({ n: sql<number>`coalesce(max(${ticketTypes.position}) + 1, 0)::int` })
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, event.id))) as [{ n: number }];
  const [row] = await db
    .insert(ticketTypes)
    .values(ticketTypeValues(input, n, event))
    .returning();
  await bumpCatalogVersion(db, event.organizationId);
  return row!;
}

export async function findEvent(db: Executor, eventId: string): Promise<EventWithTickets | undefined> {
  const [found] = await joinOrganization(
    db.select({ event: events, organization: organizationColumns }).from(events).$dynamic(),
    events.organizationId,
  ).where(eq(events.id, eventId));
  if (!found) return undefined;
  const tts = await db
    .select()
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, eventId))
    .orderBy(asc(ticketTypes.position), asc(ticketTypes.id));
  return { event: found.event, ticketTypes: tts, organization: found.organization };
}

export async function listEventsOfOrganization(db: Executor, organizationId: string): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(eq(events.organizationId, organizationId))
    .orderBy(asc(events.startsAt), asc(events.id));
}

export async function ticketTypesOf(db: Executor, eventIds: string[]): Promise<TicketTypeRow[]> {
  if (eventIds.length === 0) return [];
  return db.select().from(ticketTypes).where(inArray(ticketTypes.eventId, eventIds));
}

export type EventPatch = Partial<Omit<EventInput, 'ticket_types'>>;

export async function patchEvent(
  db: Executor,
  eventId: string,
  patch: EventPatch,
  now: Date,
): Promise<EventRow | undefined> {
  const date = (v: string | undefined) => (v === undefined ? undefined : new Date(v));
  const values = {
    name: patch.name,
    handle: patch.handle,
    shortCode: patch.short_code,
    description: patch.description,
    cover: patch.cover,
    venue: patch.venue,
    eventType: patch.event_type,
    status: patch.status,
    visibility: patch.visibility,
    startsAt: date(patch.starts_at),
    endsAt: date(patch.ends_at),
    timezone: patch.timezone,
    currency: patch.currency,
    regOpensAt: date(patch.reg_opens_at),
    regClosesAt: date(patch.reg_closes_at),
    organizerName: patch.organizer_name,
    supportEmail: patch.support_email,
    waiverRequired: patch.waiver_required,
    waiverVersion: patch.waiver_version,
    waiverText: patch.waiver_text,
    additionalQuestions: patch.additional_questions,
    transferDeadline:
      patch.transfer_deadline === undefined
        ? undefined
        : patch.transfer_deadline === null
          ? null
          : new Date(patch.transfer_deadline),
    donationsEnabled: patch.donations_enabled,
    phoneRequired: patch.phone_required,
  };
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const [row] = await db
    .update(events)
    .set({ ...set, updatedAt: now })
    .where(eq(events.id, eventId))
    .returning();
  if (row) await bumpCatalogVersion(db, row.organizationId);
  return row;
}

export async function findTicketType(db: Executor, ticketTypeId: string): Promise<TicketTypeRow | undefined> {
  const [row] = await db.select().from(ticketTypes).where(eq(ticketTypes.id, ticketTypeId));
  return row;
}

export type TicketTypePatch = Partial<TicketTypeInput>;

/**
 * Updates a ticket type. Capacity may not drop below what is already paid or held; that case
 * returns 'capacity_below_sold' and changes nothing.
 */
export async function patchTicketType(
  db: Executor,
  ticketTypeId: string,
  patch: TicketTypePatch,
  currency: string,
): Promise<TicketTypeRow | 'capacity_below_sold' | undefined> {
  checkTicketPrices([patch], () => 'price_minor', currency);
  const values = {
    name: patch.name,
    description: patch.description,
    priceMinor: patch.price_minor,
    capacity: patch.capacity,
    distanceKm: patch.distance_km,
    salesStart: patch.sales_start === undefined ? undefined : new Date(patch.sales_start),
    salesEnd: patch.sales_end === undefined ? undefined : new Date(patch.sales_end),
    minAge: patch.min_age,
  };
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  if (Object.keys(set).length === 0) {
    const [row] = await db.select().from(ticketTypes).where(eq(ticketTypes.id, ticketTypeId));
    return row;
  }
  const guard =
    patch.capacity === undefined
      ? undefined
      : sql`${ticketTypes.paidCount} + ${ticketTypes.heldCount} <= ${patch.capacity}`;
  const [row] = await db
    .update(ticketTypes)
    .set(set)
    .where(and(eq(ticketTypes.id, ticketTypeId), guard))
    .returning();
  if (row) {
    await bumpCatalogVersion(db, row.organizationId);
    return row;
  }
  const [exists] = await db
    .select({ id: ticketTypes.id })
    .from(ticketTypes)
    .where(eq(ticketTypes.id, ticketTypeId));
  return exists ? 'capacity_below_sold' : undefined;
}
