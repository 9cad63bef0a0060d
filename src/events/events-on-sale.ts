// Partner reads of events: only what is on sale, only the caller's organization. Includes reading
// a creation's event alongside the credential check (readBodyEvent, bodyEventOf).
import { and, asc, eq, gt, ne, or, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { joinOrganization, organizationColumns, type OrganizationRow } from '../organizations/index.ts';
import type { Db, Executor } from '../platform/index.ts';
import { events, ticketTypes } from './events.schema.ts';
import type { EventRow, EventWithTickets } from './events.ts';

/** On sale: status open, not yet ended, not private. */
function onSale(now: Date) {
  return and(eq(events.status, 'open'), gt(events.endsAt, now), ne(events.visibility, 'private'));
}

export interface EventPageKey {
  startsAt: Date;
  id: string;
}

/** The columns a list item shows (event-out.ts toEventListItem). */
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
  const rows = await joinOrganization(
    db
      .select({ ...listItemColumns, paymentsEnabled: organizationColumns.paymentsEnabled })
      .from(events)
      .$dynamic(),
    events.organizationId,
  )
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
    event: joinOrganization(
      db.select({ event: events, organization: organizationColumns }).from(events).$dynamic(),
      events.organizationId,
    )
      .where(onSaleById())
      .prepare('event_on_sale'),
    ticketTypes: db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.eventId, sql.placeholder('eventId')))
      .orderBy(asc(ticketTypes.position), asc(ticketTypes.id))
      .prepare('event_ticket_types'),
    session: joinOrganization(
      db
        .select({
          event: {
            id: events.id,
            organizationId: events.organizationId,
            regOpensAt: events.regOpensAt,
            regClosesAt: events.regClosesAt,
            currency: events.currency,
          },
          organization: { paymentsEnabled: organizationColumns.paymentsEnabled },
          hasPaidTickets: sql<boolean>`exists (select 1 from ${ticketTypes}
          where ${ticketTypes.eventId} = ${events.id} and ${ticketTypes.priceMinor} > 0)`,
          ticketTypeIds: sql<string[]>`array(select ${ticketTypes.id} from ${ticketTypes}
          where ${ticketTypes.eventId} = ${events.id})`,
        })
        .from(events)
        .$dynamic(),
      events.organizationId,
    )
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
  event: Pick<EventRow, 'id' | 'organizationId' | 'regOpensAt' | 'regClosesAt' | 'currency'>;
  organization: Pick<OrganizationRow, 'paymentsEnabled'>;
  /** some ticket type has a price */
  hasPaidTickets: boolean;
  /** the event's ticket types, for the session's line_items */
  ticketTypeIds: string[];
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

/**
 * Every event id has this shape (docs/architecture.md#identifiers); it also keeps a NUL byte from a
 * query.
 */
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
