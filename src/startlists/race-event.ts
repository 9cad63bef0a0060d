// The event a start list belongs to, found only within the member's organization: another
// organization's event is as missing as one that does not exist.
import { findEvent, type EventRow, type TicketTypeRow } from '../events/index.ts';
import type { Executor } from '../platform/index.ts';

export interface RaceEvent {
  event: EventRow;
  /** in the event's order (position) */
  ticketTypes: TicketTypeRow[];
}

const EVENT_ID = /^evt_[A-Za-z0-9]{8,64}$/;

export async function findRaceEvent(
  db: Executor,
  organizationId: string,
  eventId: string,
): Promise<RaceEvent | null> {
  if (!EVENT_ID.test(eventId)) return null;
  const found = await findEvent(db, eventId);
  if (!found || found.event.organizationId !== organizationId) return null;
  return { event: found.event, ticketTypes: found.ticketTypes };
}

/** The calendar date (YYYY-MM-DD) of `instant` in `timeZone`. */
export function localDate(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * Age in whole years on `raceDay` (YYYY-MM-DD) of someone born on `dateOfBirth`; null without a
 * date of birth or with one after the race. Born on 29 February: a year older on 1 March.
 */
export function ageOn(raceDay: string, dateOfBirth: string | null): number | null {
  if (!dateOfBirth || !/^\d{4}-\d{2}-\d{2}$/.test(dateOfBirth)) return null;
  const [ry, rm, rd] = raceDay.split('-').map(Number) as [number, number, number];
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const birthdayPassed = rm > bm || (rm === bm && rd >= bd);
  const age = ry - by - (birthdayPassed ? 0 : 1);
  return age >= 0 ? age : null;
}
