// Bib ranges and their assignment. Both run under one transaction-level advisory lock per event,
// so two assignments (or an assignment and a range change) never interleave; the unique index on
// (event, number) is the last line of defence. A number once given is never changed: assigning
// again only numbers the registrations without one, from numbers no one in the event holds.
import { and, asc, between, eq, inArray, isNull, sql } from 'drizzle-orm';
import { rosterColumns, selectRoster } from '../orders/index.ts';
import type { Executor, Tx } from '../platform/index.ts';
import type { RaceEvent } from './race-event.ts';
import { BIB_MAX, bibRanges, bibs } from './startlists.schema.ts';

/** First key of the two-key advisory lock (the ASCII of "Bibs"). */
const BIB_LOCK_CLASS = 0x42696273;
const INSERT_BATCH = 1000;

export interface BibRange {
  ticketTypeId: string;
  first: number;
  last: number;
}

export async function lockEventBibs(tx: Tx, eventId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${BIB_LOCK_CLASS}::int, hashtext(${eventId}))`);
}

export async function listBibRanges(db: Executor, eventId: string): Promise<BibRange[]> {
  return db
    .select({
      ticketTypeId: bibRanges.ticketTypeId,
      first: bibRanges.firstNumber,
      last: bibRanges.lastNumber,
    })
    .from(bibRanges)
    .where(eq(bibRanges.eventId, eventId));
}

/** A range as typed into the form: both empty means the ticket type has none. */
export interface RangeInput {
  ticketTypeId: string;
  first: string;
  last: string;
}

/** Field name -> message; fields are first_<ticket type id> and last_<ticket type id>. */
export type RangeErrors = Record<string, string>;

const WHOLE = /^\d{1,6}$/;

/**
 * The ranges the form asks for, or a message next to each field that is wrong: both ends or
 * neither, whole numbers from 1 to 999999, first <= last, no number shared with another range.
 */
export function checkRanges(
  race: RaceEvent,
  inputs: RangeInput[],
): { ok: true; ranges: BibRange[] } | { ok: false; errors: RangeErrors } {
  const errors: RangeErrors = {};
  const ranges: BibRange[] = [];
  const nameOf = new Map(race.ticketTypes.map((t) => [t.id, t.name]));
  for (const input of inputs) {
    const [firstField, lastField] = [`first_${input.ticketTypeId}`, `last_${input.ticketTypeId}`];
    const name = nameOf.get(input.ticketTypeId) ?? 'this ticket type';
    const first = input.first.trim();
    const last = input.last.trim();
    if (first === '' && last === '') continue;
    if (first === '') errors[firstField] = `Enter the first number for ${name}, or leave both empty.`;
    if (last === '') errors[lastField] = `Enter the last number for ${name}, or leave both empty.`;
    const outOfBounds = (value: string) => !WHOLE.test(value) || Number(value) < 1 || Number(value) > BIB_MAX;
    if (first !== '' && outOfBounds(first)) {
      errors[firstField] = `The first number for ${name} must be a whole number from 1 to ${BIB_MAX}.`;
    }
    if (last !== '' && outOfBounds(last)) {
      errors[lastField] = `The last number for ${name} must be a whole number from 1 to ${BIB_MAX}.`;
    }
    if (errors[firstField] || errors[lastField]) continue;
    if (Number(first) > Number(last)) {
      errors[lastField] = `The last number for ${name} must be at least the first (${Number(first)}).`;
      continue;
    }
    ranges.push({ ticketTypeId: input.ticketTypeId, first: Number(first), last: Number(last) });
  }
  for (const [i, range] of ranges.entries()) {
    const other = ranges.find((r, j) => j < i && r.first <= range.last && range.first <= r.last);
    if (other && !errors[`first_${range.ticketTypeId}`]) {
      errors[`first_${range.ticketTypeId}`] =
        `${nameOf.get(range.ticketTypeId)}'s range overlaps ${nameOf.get(other.ticketTypeId)}'s (${other.first}–${other.last}). Ranges of one event may not share numbers.`;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, ranges };
}

/** Replaces the event's ranges (the caller holds the event's lock, in `tx`). */
export async function writeBibRanges(tx: Tx, race: RaceEvent, ranges: BibRange[], now: Date): Promise<void> {
  await tx.delete(bibRanges).where(eq(bibRanges.eventId, race.event.id));
  if (ranges.length === 0) return;
  await tx.insert(bibRanges).values(
    ranges.map((r) => ({
      ticketTypeId: r.ticketTypeId,
      eventId: race.event.id,
      organizationId: race.event.organizationId,
      firstNumber: r.first,
      lastNumber: r.last,
      updatedAt: now,
    })),
  );
}

export interface TypeAssignment {
  ticketTypeId: string;
  /** numbers given by this run */
  assigned: number;
  /** registrations still without a number: no range, or the range is used up */
  left: number;
  reason: 'no_range' | 'range_full' | null;
}

/** The numbers in [first, last] that no one in the event holds, lowest first, at most `count`. */
async function freeNumbers(tx: Tx, eventId: string, range: BibRange, count: number): Promise<number[]> {
  const taken = await tx
    .select({ number: bibs.number })
    .from(bibs)
    .where(and(eq(bibs.eventId, eventId), between(bibs.number, range.first, range.last)));
  const used = new Set(taken.map((t) => t.number));
  const free: number[] = [];
  for (let n = range.first; n <= range.last && free.length < count; n++) if (!used.has(n)) free.push(n);
  return free;
}

/**
 * Gives a number to each confirmed registration of a paid order that has none, per ticket type
 * from its range, in the order people registered; the caller holds the event's lock, in `tx`.
 */
export async function giveBibNumbers(tx: Tx, race: RaceEvent, now: Date): Promise<TypeAssignment[]> {
  const { event } = race;
  const ranges = new Map((await listBibRanges(tx, event.id)).map((r) => [r.ticketTypeId, r]));
  const results: TypeAssignment[] = [];
  for (const ticketType of race.ticketTypes) {
    const waiting = await selectRoster(
      tx,
      { registrationId: rosterColumns.registrationId },
      event.organizationId,
    )
      .leftJoin(bibs, eq(bibs.registrationId, rosterColumns.registrationId))
      .where(and(eq(rosterColumns.ticketTypeId, ticketType.id), isNull(bibs.registrationId)))
      .orderBy(asc(rosterColumns.createdAt), asc(rosterColumns.registrationId));
    const range = ranges.get(ticketType.id);
    if (!range) {
      results.push({
        ticketTypeId: ticketType.id,
        assigned: 0,
        left: waiting.length,
        reason: waiting.length ? 'no_range' : null,
      });
      continue;
    }
    const numbers = await freeNumbers(tx, event.id, range, waiting.length);
    const rows = numbers.map((number, i) => ({
      registrationId: waiting[i]!.registrationId,
      eventId: event.id,
      ticketTypeId: ticketType.id,
      number,
      assignedAt: now,
    }));
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      await tx.insert(bibs).values(rows.slice(i, i + INSERT_BATCH));
    }
    const left = waiting.length - rows.length;
    results.push({
      ticketTypeId: ticketType.id,
      assigned: rows.length,
      left,
      reason: left ? 'range_full' : null,
    });
  }
  return results;
}

export interface TypeProgress {
  ticketTypeId: string;
  runners: number;
  numbered: number;
  /** numbers of its range no one in the event holds; null without a range */
  free: number | null;
}

/** Per ticket type: runners, how many have a number, and the numbers left in its range. */
export async function bibProgress(db: Executor, race: RaceEvent): Promise<TypeProgress[]> {
  const ids = race.ticketTypes.map((t) => t.id);
  if (ids.length === 0) return [];
  const counts = await selectRoster(
    db,
    {
      ticketTypeId: rosterColumns.ticketTypeId,
      runners: sql<number>`count(*)::int`,
      numbered: sql<number>`count(${bibs.registrationId})::int`,
    },
    race.event.organizationId,
  )
    .leftJoin(bibs, eq(bibs.registrationId, rosterColumns.registrationId))
    .where(inArray(rosterColumns.ticketTypeId, ids))
    .groupBy(rosterColumns.ticketTypeId);
  const ranges = await listBibRanges(db, race.event.id);
  const free = new Map<string, number>();
  for (const range of ranges) {
    const [row] = await db
      .select({ taken: sql<number>`count(*)::int` })
      .from(bibs)
      .where(and(eq(bibs.eventId, race.event.id), between(bibs.number, range.first, range.last)));
    free.set(range.ticketTypeId, range.last - range.first + 1 - (row?.taken ?? 0));
  }
  return race.ticketTypes.map((t) => {
    const count = counts.find((c) => c.ticketTypeId === t.id);
    return {
      ticketTypeId: t.id,
      runners: count?.runners ?? 0,
      numbered: count?.numbered ?? 0,
      free: free.get(t.id) ?? null,
    };
  });
}

/** The bib number of each of these registrations that has one (a ticket shows it once given). */
export async function bibNumbersOf(db: Executor, registrationIds: string[]): Promise<Map<string, number>> {
  if (registrationIds.length === 0) return new Map();
  const rows = await db
    .select({ registrationId: bibs.registrationId, number: bibs.number })
    .from(bibs)
    .where(inArray(bibs.registrationId, registrationIds));
  return new Map(rows.map((r) => [r.registrationId, r.number]));
}
