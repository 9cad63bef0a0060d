// Events and ticket types: creation and updates (admin), partner reads (on sale only), wire shapes.
import { and, asc, eq, gt, inArray, ne, or, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Db, Executor } from '../platform/db.ts';
import { newId, randomString } from '../platform/ids.ts';
import { validationError, type FieldError } from '../platform/errors.ts';
import { bumpCatalogVersion, type OrganizationRow } from '../organizations/organizations.ts';
import { organizations } from '../organizations/organizations.schema.ts';
import { type AdditionalQuestion, events, ticketTypes } from './events.schema.ts';
import { MAX_PRICE_MINOR, PAYMENT_METHODS, priceByMethod } from './fees.ts';

export type EventRow = typeof events.$inferSelect;
export type TicketTypeRow = typeof ticketTypes.$inferSelect;

export const EVENT_STATUSES = ['draft', 'open', 'closed', 'cancelled'] as const;
export const EVENT_VISIBILITIES = ['public', 'unlisted', 'private'] as const;

// ---------------------------------------------------------------------------------------------
// Wire shapes (SPEC.md section 2)

export interface EventListItemOut {
  event_id: string;
  name: string;
  handle: string;
  short_code: string;
  description: string;
  cover: string;
  venue: string;
  event_type: string;
  status: string;
  visibility: string;
  starts_at: string;
  ends_at: string;
  timezone: string;
  currency: string;
  reg_opens_at: string;
  reg_closes_at: string;
  payments_enabled: boolean;
}

export interface MethodPriceOut {
  laces_fee_minor: number;
  total_minor: number;
}

export interface TicketTypeOut {
  ticket_type_id: string;
  name: string;
  description: string;
  currency: string;
  price_minor: number;
  laces_fee_minor: number;
  total_minor: number;
  card: null;
  airtel: MethodPriceOut | null;
  is_free: boolean;
  capacity: number;
  distance_km: number;
  remaining: number;
  sales_start: string;
  sales_end: string;
  min_age: number;
}

export interface EventDetailOut extends EventListItemOut {
  organizer_name: string;
  support_email: string;
  payment_methods: string[];
  ticket_types: TicketTypeOut[];
  additional_questions: AdditionalQuestion[];
  waiver_required: boolean;
  waiver_version: string;
}

export function toEventListItem(row: EventListRow, paymentsEnabled: boolean): EventListItemOut {
  return {
    event_id: row.id,
    name: row.name,
    handle: row.handle,
    short_code: row.shortCode,
    description: row.description,
    cover: row.cover,
    venue: row.venue,
    event_type: row.eventType,
    status: row.status,
    visibility: row.visibility,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt.toISOString(),
    timezone: row.timezone,
    currency: row.currency,
    reg_opens_at: row.regOpensAt.toISOString(),
    reg_closes_at: row.regClosesAt.toISOString(),
    payments_enabled: paymentsEnabled,
  };
}

export function remainingOf(tt: Pick<TicketTypeRow, 'capacity' | 'paidCount' | 'heldCount'>): number {
  return Math.max(0, tt.capacity - tt.paidCount - tt.heldCount);
}

export function toTicketTypeOut(tt: TicketTypeRow, currency: string, org: OrganizationRow): TicketTypeOut {
  const prices = priceByMethod(tt.priceMinor, org.fees);
  return {
    ticket_type_id: tt.id,
    name: tt.name,
    description: tt.description,
    currency,
    price_minor: tt.priceMinor,
    laces_fee_minor: prices.momo.laces_fee_minor,
    total_minor: prices.momo.total_minor,
    card: null,
    airtel: prices.airtel,
    is_free: tt.priceMinor === 0,
    capacity: tt.capacity,
    distance_km: tt.distanceKm,
    remaining: remainingOf(tt),
    sales_start: tt.salesStart.toISOString(),
    sales_end: tt.salesEnd.toISOString(),
    min_age: tt.minAge,
  };
}

export function toEventDetail(row: EventRow, tts: TicketTypeRow[], org: OrganizationRow): EventDetailOut {
  return {
    ...toEventListItem(row, org.paymentsEnabled),
    organizer_name: row.organizerName || org.name,
    support_email: row.supportEmail || org.supportEmail,
    payment_methods: org.paymentsEnabled ? [...PAYMENT_METHODS] : [],
    ticket_types: tts.map((tt) => toTicketTypeOut(tt, row.currency, org)),
    additional_questions: row.additionalQuestions,
    waiver_required: row.waiverRequired,
    waiver_version: row.waiverVersion,
  };
}

// ---------------------------------------------------------------------------------------------
// Partner reads: only what is on sale, only the caller's organization.

/** On sale: status open, not yet ended, not private. */
function onSale(now: Date) {
  return and(eq(events.status, 'open'), gt(events.endsAt, now), ne(events.visibility, 'private'));
}

export interface EventPageKey {
  startsAt: Date;
  id: string;
}

/** The columns a list item shows (events.ts toEventListItem). */
const listItemColumns = {
  id: events.id,
  name: events.name,
  handle: events.handle,
  shortCode: events.shortCode,
  description: events.description,
  cover: events.cover,
  venue: events.venue,
  eventType: events.eventType,
  status: events.status,
  visibility: events.visibility,
  startsAt: events.startsAt,
  endsAt: events.endsAt,
  timezone: events.timezone,
  currency: events.currency,
  regOpensAt: events.regOpensAt,
  regClosesAt: events.regClosesAt,
};
export type EventListRow = Pick<EventRow, keyof typeof listItemColumns>;

export interface EventPage {
  rows: EventListRow[];
  paymentsEnabled: boolean;
  hasMore: boolean;
  /** when the page stops being current by time alone: the first end among its events and the next one */
  validUntil: Date | null;
}

/** One page of the organization's public events on sale, soonest first, after `after`. */
export async function listEventsOnSale(
  db: Executor,
  options: { organizationId: string; now: Date; limit: number; after: EventPageKey | null },
): Promise<EventPage> {
  const { organizationId, now, limit, after } = options;
  // One statement: the organization's payments flag rides along with each row.
  const rows = await db
    .select({ ...listItemColumns, paymentsEnabled: organizations.paymentsEnabled })
    .from(events)
    .innerJoin(organizations, eq(organizations.id, events.organizationId))
    .where(
      and(
        eq(events.organizationId, organizationId),
        onSale(now),
        eq(events.visibility, 'public'),
        after
          ? or(
              gt(events.startsAt, after.startsAt),
              and(eq(events.startsAt, after.startsAt), gt(events.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(asc(events.startsAt), asc(events.id))
    .limit(limit + 1);
  const firstEnd = Math.min(...rows.map((r) => r.endsAt.getTime()));
  return {
    rows: rows.slice(0, limit),
    paymentsEnabled: rows[0]?.paymentsEnabled ?? false,
    hasMore: rows.length > limit,
    validUntil: rows.length ? new Date(firstEnd) : null,
  };
}

export interface EventWithTickets {
  event: EventRow;
  ticketTypes: TicketTypeRow[];
  organization: OrganizationRow;
}

/** onSale for prepared statements: the event by id, `now` a placeholder too. */
function onSaleById() {
  return and(
    eq(events.id, sql.placeholder('eventId')),
    eq(events.status, 'open'),
    sql`${events.endsAt} > ${sql.placeholder('now')}::timestamptz`,
    ne(events.visibility, 'private'),
  );
}

function eventOnSaleStatements(db: Db) {
  return {
    event: db
      .select({ event: events, organization: organizations })
      .from(events)
      .innerJoin(organizations, eq(organizations.id, events.organizationId))
      .where(onSaleById())
      .prepare('event_on_sale'),
    ticketTypes: db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.eventId, sql.placeholder('eventId')))
      .orderBy(asc(ticketTypes.position), asc(ticketTypes.id))
      .prepare('event_ticket_types'),
    session: db
      .select({
        event: {
          id: events.id,
          organizationId: events.organizationId,
          regOpensAt: events.regOpensAt,
          regClosesAt: events.regClosesAt,
        },
        organization: { paymentsEnabled: organizations.paymentsEnabled },
        hasPaidTickets: sql<boolean>`exists (select 1 from ${ticketTypes}
          where ${ticketTypes.eventId} = ${events.id} and ${ticketTypes.priceMinor} > 0)`,
      })
      .from(events)
      .innerJoin(organizations, eq(organizations.id, events.organizationId))
      .where(onSaleById())
      .prepare('session_event'),
  };
}
const eventOnSaleByDb = new WeakMap<Db, ReturnType<typeof eventOnSaleStatements>>();
function statementsOf(db: Db) {
  let statements = eventOnSaleByDb.get(db);
  if (!statements) eventOnSaleByDb.set(db, (statements = eventOnSaleStatements(db)));
  return statements;
}

/**
 * The event if it is on sale (public or unlisted), whoever it belongs to; else undefined. Read
 * outside any transaction (on PGlite a read on the database waits for an open transaction to
 * end): every order creation starts with it, so its two statements are built once per database
 * (prepared queries) and go out together, in one round trip. The ticket types are asked for by
 * the event id given and used only when the event itself is found on sale. Knowing no caller, it
 * can go out with the credential check (GuardOptions.alongside); ownedBy then keeps it to the
 * caller's organization.
 */
export async function readEventOnSale(
  db: Db,
  eventId: string,
  now: Date,
): Promise<EventWithTickets | undefined> {
  const statements = statementsOf(db);
  const [[found], tts] = await Promise.all([
    statements.event.execute({ eventId, now: now.toISOString() }),
    statements.ticketTypes.execute({ eventId }),
  ]);
  if (!found) return undefined;
  return { event: found.event, ticketTypes: tts, organization: found.organization };
}

/** What creating a checkout session needs of its event (readSessionEvent). */
export interface SessionEvent {
  event: Pick<EventRow, 'id' | 'organizationId' | 'regOpensAt' | 'regClosesAt'>;
  organization: Pick<OrganizationRow, 'paymentsEnabled'>;
  /** some ticket type has a price */
  hasPaidTickets: boolean;
}

/**
 * readEventOnSale for a checkout session, which needs little of the event: one statement, read
 * like readEventOnSale (outside any transaction, alongside the credential check).
 */
export async function readSessionEvent(
  db: Db,
  eventId: string,
  now: Date,
): Promise<SessionEvent | undefined> {
  const [found] = await statementsOf(db).session.execute({ eventId, now: now.toISOString() });
  return found;
}

/** An event read before a creation, with the organization that owns it. */
interface OwnedEvent {
  event: { organizationId: string };
}

/** The event read, if it is the organization's: another organization's event is not found. */
function ownedBy<T extends OwnedEvent>(found: T | undefined, organizationId: string): T | undefined {
  return found?.event.organizationId === organizationId ? found : undefined;
}

/**
 * GuardOptions.alongside for a route whose body names its event (event_id): the event as `read`
 * reads it on sale (readEventOnSale, readSessionEvent), sent with the credential check.
 * bodyEventOf takes it once the caller is known. It goes out before the body is validated (with
 * the credential's read, which comes first): anything but an event id names no event and is not
 * read, and the route's validation then answers for it.
 */
export function readBodyEvent<T extends OwnedEvent>(
  ctx: AppContext,
  read: (db: Db, eventId: string, now: Date) => Promise<T | undefined>,
) {
  return async (request: FastifyRequest): Promise<T | undefined> => {
    const body: unknown = request.body;
    const eventId =
      typeof body === 'object' && body !== null ? (body as { event_id?: unknown }).event_id : null;
    if (typeof eventId !== 'string' || eventId.length > 200 || !BODY_EVENT_ID.test(eventId)) return undefined;
    return read(ctx.database.db, eventId, ctx.clock.now());
  };
}

/** Every event id has this shape (DESIGN.md section 3); it also keeps a NUL byte from a query. */
const BODY_EVENT_ID = /^evt_[A-Za-z0-9]+$/;

/** The event readBodyEvent read, if it is the caller's organization's. */
export async function bodyEventOf<T extends OwnedEvent>(request: FastifyRequest): Promise<T | undefined> {
  return ownedBy((await request.alongside) as T | undefined, request.auth!.organizationId);
}

/** The event if it is the organization's and on sale (readEventOnSale); else undefined. */
export async function findEventOnSale(
  db: Db,
  options: { organizationId: string; eventId: string; now: Date },
): Promise<EventWithTickets | undefined> {
  return ownedBy(await readEventOnSale(db, options.eventId, options.now), options.organizationId);
}

/** Registration open: now inside [reg_opens_at, reg_closes_at). */
export function isRegistrationOpen(event: Pick<EventRow, 'regOpensAt' | 'regClosesAt'>, now: Date): boolean {
  return event.regOpensAt.getTime() <= now.getTime() && now.getTime() < event.regClosesAt.getTime();
}

// ---------------------------------------------------------------------------------------------
// Admin writes

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
  ticket_types: TicketTypeInput[];
}

export function slugify(name: string): string {
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

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Cross-field rules the schema cannot state. Returns every problem, not just the first. */
export function checkEventRules(
  input: Partial<EventInput>,
  merged: {
    startsAt: Date;
    endsAt: Date;
    regOpensAt: Date;
    regClosesAt: Date;
    waiverRequired: boolean;
    waiverVersion: string;
  },
): FieldError[] {
  const errors: FieldError[] = [];
  if (merged.endsAt.getTime() <= merged.startsAt.getTime()) {
    errors.push({ field: 'ends_at', message: 'must be after starts_at' });
  }
  if (merged.regClosesAt.getTime() <= merged.regOpensAt.getTime()) {
    errors.push({ field: 'reg_closes_at', message: 'must be after reg_opens_at' });
  }
  if (input.timezone !== undefined && !isTimeZone(input.timezone)) {
    errors.push({ field: 'timezone', message: 'must be an IANA time zone name such as Africa/Kampala' });
  }
  if (merged.waiverRequired && !merged.waiverVersion) {
    errors.push({ field: 'waiver_version', message: 'is required when waiver_required is true' });
  }
  const keys = new Set<string>();
  (input.additional_questions ?? []).forEach((q, i) => {
    if (keys.has(q.key)) errors.push({ field: `additional_questions[${i}].key`, message: 'is used twice' });
    keys.add(q.key);
    if (q.type === 'select' && q.options.length === 0) {
      errors.push({
        field: `additional_questions[${i}].options`,
        message: 'must list at least one option for select',
      });
    }
  });
  (input.ticket_types ?? []).forEach((tt, i) => {
    if (tt.sales_start && tt.sales_end && Date.parse(tt.sales_end) <= Date.parse(tt.sales_start)) {
      errors.push({ field: `ticket_types[${i}].sales_end`, message: 'must be after sales_start' });
    }
  });
  return errors;
}

/**
 * A ticket type's price must be whole minor units up to MAX_PRICE_MINOR. The admin schema says so
 * too; this is for every other caller (the demo seed, tests), so that no stored price can make a
 * total that an order cannot carry. Throws validation_failed before anything is written.
 */
function checkTicketPrices(types: ReadonlyArray<Partial<TicketTypeInput>>, field: (i: number) => string) {
  const errors: FieldError[] = [];
  types.forEach((tt, i) => {
    const price = tt.price_minor;
    if (price !== undefined && !(Number.isInteger(price) && price >= 0 && price <= MAX_PRICE_MINOR)) {
      errors.push({ field: field(i), message: `must be a whole number from 0 to ${MAX_PRICE_MINOR}` });
    }
  });
  if (errors.length > 0) throw validationError(errors);
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

/** Inserts an event and its ticket types; the caller wraps it in a transaction. */
export async function createEvent(
  db: Executor,
  organizationId: string,
  input: EventInput,
): Promise<EventRow> {
  checkTicketPrices(input.ticket_types, (i) => `ticket_types[${i}].price_minor`);
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
    })
    .returning();
  if (input.ticket_types.length > 0) {
    await db.insert(ticketTypes).values(input.ticket_types.map((tt, i) => ticketTypeValues(tt, i, event!)));
  }
  await bumpCatalogVersion(db, organizationId);
  return event!;
}

export async function addTicketType(
  db: Executor,
  event: EventRow,
  input: TicketTypeInput,
): Promise<TicketTypeRow> {
  checkTicketPrices([input], () => 'price_minor');
  const [{ n }] = (await db
    .select({ n: sql<number>`coalesce(max(${ticketTypes.position}) + 1, 0)::int` })
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, event.id))) as [{ n: number }];
  const [row] = await db
    .insert(ticketTypes)
    .values(ticketTypeValues(input, n, event))
    .returning();
  return row!;
}

export async function findEvent(db: Executor, eventId: string): Promise<EventWithTickets | undefined> {
  const [found] = await db
    .select({ event: events, organization: organizations })
    .from(events)
    .innerJoin(organizations, eq(organizations.id, events.organizationId))
    .where(eq(events.id, eventId));
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

export async function updateEvent(
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
export async function updateTicketType(
  db: Executor,
  ticketTypeId: string,
  patch: TicketTypePatch,
): Promise<TicketTypeRow | 'capacity_below_sold' | undefined> {
  checkTicketPrices([patch], () => 'price_minor');
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
  if (row) return row;
  const [exists] = await db
    .select({ id: ticketTypes.id })
    .from(ticketTypes)
    .where(eq(ticketTypes.id, ticketTypeId));
  return exists ? 'capacity_below_sold' : undefined;
}
