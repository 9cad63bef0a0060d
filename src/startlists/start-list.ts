// The start list: per ticket type (in the event's order) the runners with a number by number,
// then those without one by name. Read a page at a time by keyset, each ticket type in two walks
// that indexes keep in order (bibs_ticket_type_number_idx, registrations_start_list_idx), so a
// page costs the same at the start of a 20,000-runner list as at its end.
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { AdditionalQuestion } from '../events/index.ts';
import { joinRoster, rosterColumns, rosterExportColumns, selectRoster } from '../orders/index.ts';
import type { Executor } from '../platform/index.ts';
import { ageOn, localDate, type RaceEvent } from './race-event.ts';
import { bibs } from './startlists.schema.ts';

export interface StartListRow {
  registrationId: string;
  ticketTypeId: string;
  ticketTypeName: string;
  bib: number | null;
  participantName: string;
  /** on race day, in the event's time zone; null without a date of birth */
  age: number | null;
  answers: Record<string, string>;
  orderCode: string;
  /** YYYY-MM-DD as given, or null */
  dateOfBirth: string | null;
  registeredAt: Date;
  distanceKm: number;
  /** the ticket's price and its booking fee, in the order's currency's minor units */
  paidMinor: number;
  currency: string;
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
}

type RosterRow = Awaited<ReturnType<typeof unnumberedAfter>>[number];

function rowOf(race: RaceEvent, raceDay: string, t: number, r: RosterRow): StartListRow {
  const ticketType = race.ticketTypes[t]!;
  return {
    registrationId: r.registrationId,
    ticketTypeId: ticketType.id,
    ticketTypeName: ticketType.name,
    bib: r.bib,
    participantName: r.participantName,
    age: ageOn(raceDay, r.dateOfBirth),
    answers: r.answers,
    orderCode: r.orderCode,
    dateOfBirth: r.dateOfBirth,
    registeredAt: r.createdAt,
    distanceKm: r.distanceKm,
    paidMinor: r.priceMinor + r.feeMinor,
    currency: r.currency,
    buyerName: r.buyerName,
    buyerEmail: r.buyerEmail,
    buyerPhone: r.buyerPhone,
  };
}

/** Where a page starts: a ticket type (its index), and within it after a number or a name. */
export type StartListCursor =
  { t: number; p: 'n'; n: number } | { t: number; p: 'u'; name: string; id: string };

export function encodeStartListCursor(cursor: StartListCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** The cursor in a link, or null for anything that is not one (the list then starts at the top). */
export function decodeStartListCursor(text: string | undefined): StartListCursor | null {
  if (!text || text.length > 2000) return null;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (!Number.isInteger(value.t) || (value.t as number) < 0) return null;
    if (value.p === 'n' && Number.isInteger(value.n))
      return { t: value.t as number, p: 'n', n: value.n as number };
    if (value.p === 'u' && typeof value.name === 'string' && typeof value.id === 'string') {
      return { t: value.t as number, p: 'u', name: value.name, id: value.id };
    }
  } catch {
    // not base64 JSON: the first page
  }
  return null;
}

const rowColumns = { ...rosterColumns, ...rosterExportColumns, bib: bibs.number };

async function numberedAfter(db: Executor, race: RaceEvent, t: number, after: number, limit: number) {
  const query = db.select(rowColumns).from(bibs).$dynamic();
  return joinRoster(query, bibs.registrationId)
    .where(
      and(
        eq(bibs.eventId, race.event.id),
        eq(bibs.ticketTypeId, race.ticketTypes[t]!.id),
        gt(bibs.number, after),
      ),
    )
    .orderBy(asc(bibs.number))
    .limit(limit);
}

/** A ticket type's runners by name after `after`: those without a number, or (`all`) everyone. */
async function unnumberedAfter(
  db: Executor,
  race: RaceEvent,
  t: number,
  after: { name: string; id: string } | null,
  limit: number,
  all = false,
) {
  const { participantName, registrationId } = rosterColumns;
  return selectRoster(db, rowColumns, race.event.organizationId)
    .leftJoin(bibs, eq(bibs.registrationId, registrationId))
    .where(
      and(
        eq(rosterColumns.ticketTypeId, race.ticketTypes[t]!.id),
        all ? undefined : isNull(bibs.registrationId),
        after ? sql`(${participantName}, ${registrationId}) > (${after.name}, ${after.id})` : undefined,
      ),
    )
    .orderBy(asc(participantName), asc(registrationId))
    .limit(limit);
}

export interface StartListPage {
  rows: StartListRow[];
  /** the next page's cursor; null on the last page */
  next: StartListCursor | null;
}

/** Up to `limit` rows from `cursor` (null: the top of the list). */
export async function readStartList(
  db: Executor,
  race: RaceEvent,
  cursor: StartListCursor | null,
  limit: number,
): Promise<StartListPage> {
  const raceDay = localDate(race.event.startsAt, race.event.timezone);
  const found: { row: StartListRow; at: StartListCursor }[] = [];
  let at: StartListCursor | null = cursor ?? { t: 0, p: 'n', n: 0 };
  // One row more than asked tells whether there is a next page.
  while (at && at.t < race.ticketTypes.length && found.length <= limit) {
    const want = limit + 1 - found.length;
    const t: number = at.t;
    const rows =
      at.p === 'n'
        ? await numberedAfter(db, race, t, at.n, want)
        : await unnumberedAfter(db, race, t, at.name === '' && at.id === '' ? null : at, want);
    for (const r of rows) {
      found.push({
        row: rowOf(race, raceDay, t, r),
        at:
          r.bib === null
            ? { t, p: 'u', name: r.participantName, id: r.registrationId }
            : { t, p: 'n', n: r.bib },
      });
    }
    if (rows.length === want) break;
    at = at.p === 'n' ? { t, p: 'u', name: '', id: '' } : { t: t + 1, p: 'n', n: 0 };
  }
  const more = found.length > limit;
  const page = found.slice(0, limit);
  return { rows: page.map((f) => f.row), next: more ? page[page.length - 1]!.at : null };
}

/** Every row, read in batches by keyset: the whole list is never in memory. */
export async function* walkStartList(
  db: Executor,
  race: RaceEvent,
  batch = 1000,
): AsyncGenerator<StartListRow> {
  let cursor: StartListCursor | null = null;
  do {
    const page = await readStartList(db, race, cursor, batch);
    yield* page.rows;
    cursor = page.next;
  } while (cursor);
}

/** Every row of one ticket type (its index) by name, numbered or not, read in batches by keyset. */
export async function* walkTicketTypeByName(
  db: Executor,
  race: RaceEvent,
  t: number,
  batch = 1000,
): AsyncGenerator<StartListRow> {
  const raceDay = localDate(race.event.startsAt, race.event.timezone);
  let after: { name: string; id: string } | null = null;
  for (;;) {
    const rows = await unnumberedAfter(db, race, t, after, batch, true);
    for (const r of rows) yield rowOf(race, raceDay, t, r);
    if (rows.length < batch) return;
    const last = rows[rows.length - 1]!;
    after = { name: last.participantName, id: last.registrationId };
  }
}

/** The questions whose answers are counted: those with a fixed list of options (T-shirt size). */
function countedQuestions(race: RaceEvent): AdditionalQuestion[] {
  return race.event.additionalQuestions.filter((q) => q.type === 'select');
}

export interface AnswerTotals {
  questionKey: string;
  /** ticket type id -> answer -> runners */
  counts: Map<string, Map<string, number>>;
}

/** Per counted question, per ticket type, how many runners gave each answer. */
export async function answerTotals(db: Executor, race: RaceEvent): Promise<AnswerTotals[]> {
  const totals: AnswerTotals[] = [];
  const ids = race.ticketTypes.map((t) => t.id);
  if (ids.length === 0) return totals;
  for (const question of countedQuestions(race)) {
    const answer = sql<string | null>`${rosterColumns.answers} ->> ${question.key}`;
    const rows = await selectRoster(
      db,
      { ticketTypeId: rosterColumns.ticketTypeId, answer, runners: sql<number>`count(*)::int` },
      race.event.organizationId,
    )
      .where(inArray(rosterColumns.ticketTypeId, ids))
      // by position: the answer's expression carries the key as a parameter of its own each time
      .groupBy(sql`1`, sql`2`);
    const counts = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const perType = counts.get(row.ticketTypeId) ?? new Map<string, number>();
      perType.set(row.answer ?? '', row.runners);
      counts.set(row.ticketTypeId, perType);
    }
    totals.push({ questionKey: question.key, counts });
  }
  return totals;
}
