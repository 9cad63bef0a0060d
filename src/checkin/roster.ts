// What a check-in device keeps of an event: its runners (name, ticket type, bib, ticket code, a
// hash of the ticket's token for scans, T-shirt size, and the emergency contact when the runner
// gave one), and who is checked in. Nothing else of a registration or its buyer: no email, phone or
// other answers (docs/decisions/check-in-roster.md). Every runner's ticket is issued first.
import { createHash } from 'node:crypto';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { AdditionalQuestion } from '../events/index.ts';
import { rosterColumns, selectRoster } from '../orders/index.ts';
import type { Executor } from '../platform/index.ts';
import { bibNumbersOf, type RaceEvent } from '../startlists/index.ts';
import { issueEventTickets } from '../tickets/index.ts';
import { checkIns } from './checkin.schema.ts';
import type { CheckInState, Roster } from './roster-wire.ts';

/** The answers' keys of an event's emergency contact questions, when it asks them. */
const EMERGENCY_KEYS = { name: 'emergency_contact_name', phone: 'emergency_contact_phone' } as const;

/** The event's T-shirt question: a select question named for shirts, else none. */
function shirtQuestion(questions: AdditionalQuestion[]): AdditionalQuestion | null {
  return questions.find((q) => q.type === 'select' && /shirt/i.test(`${q.key} ${q.label}`)) ?? null;
}

function scanHash(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 32);
}

const stateColumns = {
  registrationId: checkIns.registrationId,
  clientId: checkIns.clientId,
  checkedInAt: checkIns.checkedInAt,
  memberName: checkIns.memberName,
};

const live = and(eq(checkIns.state, 'live'), isNull(checkIns.undoneAt));

function stateOf(row: { registrationId: string; clientId: string; checkedInAt: Date; memberName: string }) {
  return {
    registration_id: row.registrationId,
    client_id: row.clientId,
    at: row.checkedInAt.toISOString(),
    by: row.memberName,
  };
}

/** The event's live check-ins. */
async function liveCheckIns(db: Executor, eventId: string): Promise<CheckInState[]> {
  const rows = await db
    .select(stateColumns)
    .from(checkIns)
    .where(and(eq(checkIns.eventId, eventId), live));
  return rows.map(stateOf);
}

/** How far back a poll of changes reads before the time it was given: a slow writer's commit is not missed. */
const CHANGES_OVERLAP_MS = 10_000;

/**
 * The registrations whose check-in changed since `since` (a roster's or an earlier poll's `now`),
 * each with its live check-in or null (undone, or demoted by an earlier one).
 */
export async function checkInChanges(
  db: Executor,
  eventId: string,
  since: Date,
): Promise<{ registration_id: string; live: CheckInState | null }[]> {
  const from = new Date(since.getTime() - CHANGES_OVERLAP_MS);
  const changed = await db
    .selectDistinct({ registrationId: checkIns.registrationId })
    .from(checkIns)
    .where(and(eq(checkIns.eventId, eventId), gt(checkIns.changedAt, from)));
  const ids = changed.map((r) => r.registrationId);
  if (ids.length === 0) return [];
  const rows = await db
    .select(stateColumns)
    .from(checkIns)
    .where(and(inArray(checkIns.registrationId, ids), live));
  const byId = new Map(rows.map((r) => [r.registrationId, stateOf(r)]));
  return ids.map((id) => ({ registration_id: id, live: byId.get(id) ?? null }));
}

/** The roster of a race event the caller found within the member's organization. */
export async function loadRoster(db: Executor, race: RaceEvent, now: Date): Promise<Roster> {
  const { event } = race;
  const ticketTypeIds = race.ticketTypes.map((t) => t.id);
  const tickets = await issueEventTickets(
    db,
    { organizationId: event.organizationId, eventId: event.id, ticketTypeIds },
    now,
  );
  const shirt = shirtQuestion(event.additionalQuestions);
  const answer = (key: string) => sql<string | null>`${rosterColumns.answers} ->> ${key}`;
  const rows =
    ticketTypeIds.length === 0
      ? []
      : await selectRoster(
          db,
          {
            registrationId: rosterColumns.registrationId,
            ticketTypeId: rosterColumns.ticketTypeId,
            participantName: rosterColumns.participantName,
            shirt: shirt ? answer(shirt.key) : sql<string | null>`NULL`,
            emergencyName: answer(EMERGENCY_KEYS.name),
            emergencyPhone: answer(EMERGENCY_KEYS.phone),
          },
          event.organizationId,
        )
          .where(inArray(rosterColumns.ticketTypeId, ticketTypeIds))
          .orderBy(asc(rosterColumns.participantName), asc(rosterColumns.registrationId));
  const bibs = await bibNumbersOf(
    db,
    rows.map((r) => r.registrationId),
  );
  const text = (value: string | null) => (value && value.trim() !== '' ? value.trim().slice(0, 200) : null);
  return {
    event: { id: event.id, name: event.name, timezone: event.timezone },
    now: now.toISOString(),
    ticket_types: race.ticketTypes.map((t) => ({ id: t.id, name: t.name })),
    shirt: shirt ? { label: shirt.label, options: shirt.options } : null,
    runners: rows.map((r) => {
      const ticket = tickets.get(r.registrationId);
      return {
        id: r.registrationId,
        name: r.participantName,
        ticket_type_id: r.ticketTypeId,
        bib: bibs.get(r.registrationId) ?? null,
        code: ticket?.code ?? null,
        scan: ticket ? scanHash(ticket.token) : null,
        ticket_void: ticket?.status === 'void',
        shirt: text(r.shirt),
        emergency_name: text(r.emergencyName),
        emergency_phone: text(r.emergencyPhone),
      };
    }),
    check_ins: await liveCheckIns(db, event.id),
  };
}
