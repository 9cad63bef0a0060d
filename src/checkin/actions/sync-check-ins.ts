// A device's check-ins and undos, each applied once whatever how often it is sent (idempotent on
// the device's id), each in its own transaction so that one runner's refusal leaves the rest.
// A check-in of a runner already checked in loses to the earlier one (by the device's time of the
// tap), and is kept as a conflict so that its volunteer is told; an undo counts within a minute
// of its check-in. Conflicts and undos are audited, plain check-ins are not: the check_ins rows
// are their record (docs/decisions/check-in-audit.md).
import { and, eq, isNull, sql } from 'drizzle-orm';
import { recordAudit, type Actor } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { confirmedRegistrations } from '../../orders/index.ts';
import { newId, notThere, type Executor, type Outcome } from '../../platform/index.ts';
import type { RaceEvent } from '../../startlists/index.ts';
import { ticketsOfRegistrations } from '../../tickets/index.ts';
import { checkIns } from '../checkin.schema.ts';
import type { CheckInItem, UndoItem } from '../sync-input.ts';

/** How far ahead of the server a device's clock may be before its times are refused. */
const CLOCK_SKEW_MS = 2 * 60_000;
/** An undo counts within this long of its check-in. */
const UNDO_WINDOW_MS = 60_000;

type Refused =
  | 'not_found'
  | 'not_confirmed'
  | 'ticket_void'
  | 'time_in_future'
  | 'time_before_sales'
  | 'id_reused'
  | 'undo_too_late'
  | 'not_live';

/** What a refusal says on the volunteer's page. */
const REFUSAL_MESSAGES: Record<Refused, string> = {
  not_found: 'Not a runner of this event.',
  not_confirmed: 'Registration cancelled or refunded: do not hand out a race pack.',
  ticket_void: 'This ticket is void (transferred): ask for the new ticket.',
  time_in_future: "The phone's clock is ahead: set its time, then check in again.",
  time_before_sales: "The phone's clock is wrong (before sales opened): set its time, then check in again.",
  id_reused: 'This check-in id was already used for another runner.',
  undo_too_late: 'Too late to undo: an undo counts within a minute of the check-in.',
  not_live: 'Nothing to undo: this check-in lost to an earlier one.',
};

interface Winner {
  client_id: string;
  at: string;
  by: string;
}

export type CheckInResult =
  | { id: string; registration_id: string; result: 'checked_in' | 'undone'; at: string; by: string }
  | { id: string; registration_id: string; result: 'conflict'; at: string; by: string; winner: Winner | null }
  | { id: string; registration_id: string; result: 'refused'; reason: Refused; message: string };

export type UndoResult =
  | { id: string; result: 'undone'; registration_id: string }
  | { id: string; result: 'refused'; reason: Refused; message: string };

export interface SyncOptions {
  actor: Actor;
  organizationId: string;
  /** the volunteer as pages name them */
  memberName: string;
  race: RaceEvent;
  checkIns: CheckInItem[];
  undos: UndoItem[];
}

type Row = typeof checkIns.$inferSelect;

const refuse = (id: string, registrationId: string, reason: Refused): CheckInResult => ({
  id,
  registration_id: registrationId,
  result: 'refused',
  reason,
  message: REFUSAL_MESSAGES[reason],
});

async function liveOf(tx: Executor, registrationId: string): Promise<Row | undefined> {
  const [row] = await tx
    .select()
    .from(checkIns)
    .where(
      and(eq(checkIns.registrationId, registrationId), eq(checkIns.state, 'live'), isNull(checkIns.undoneAt)),
    );
  return row;
}

const winnerOf = (row: Row | undefined): Winner | null =>
  row ? { client_id: row.clientId, at: row.checkedInAt.toISOString(), by: row.memberName } : null;

/** A stored row as the device is told of it. */
async function resultOf(tx: Executor, row: Row): Promise<CheckInResult> {
  const base = {
    id: row.clientId,
    registration_id: row.registrationId,
    at: row.checkedInAt.toISOString(),
    by: row.memberName,
  };
  if (row.undoneAt) return { ...base, result: 'undone' };
  if (row.state === 'live') return { ...base, result: 'checked_in' };
  return { ...base, result: 'conflict', winner: winnerOf(await liveOf(tx, row.registrationId)) };
}

async function findByClientId(tx: Executor, organizationId: string, clientId: string) {
  const [row] = await tx
    .select()
    .from(checkIns)
    .where(and(eq(checkIns.organizationId, organizationId), eq(checkIns.clientId, clientId)));
  return row;
}

/** Holds the registration's check-ins for this transaction: concurrent check-ins of one runner wait. */
async function lockRegistration(tx: Executor, registrationId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`check_in:${registrationId}`}))`);
}

export async function syncCheckIns(
  ctx: AppContext,
  options: SyncOptions,
): Promise<Outcome<{ check_ins: CheckInResult[]; undos: UndoResult[] }>> {
  const { race, organizationId, actor } = options;
  if (race.event.organizationId !== organizationId) return notThere;
  const db = ctx.database.db;
  const now = ctx.clock.now();
  const eventId = race.event.id;
  const ids = [...new Set(options.checkIns.map((c) => c.registrationId))];
  const confirmed = new Map(
    (await confirmedRegistrations(db, { registrationIds: ids }))
      .filter((r) => r.eventId === eventId && r.organizationId === organizationId)
      .map((r) => [r.registrationId, r]),
  );
  const tickets = await ticketsOfRegistrations(db, ids);
  const ticketOf = (id: string) => {
    const t = tickets.get(id);
    // a ticket of another event or organization names nothing here
    return t && t.eventId === eventId && t.organizationId === organizationId ? t : undefined;
  };
  const salesOpened = race.event.regOpensAt.getTime();
  const latest = now.getTime() + CLOCK_SKEW_MS;

  const checkInResults: CheckInResult[] = [];
  for (const item of options.checkIns) {
    const { clientId, registrationId, at } = item;
    const result = await ctx.database.transaction(async (tx): Promise<CheckInResult> => {
      // first, so that the same check-in sent twice at once finds its row after the other commits
      await lockRegistration(tx, registrationId);
      const known = await findByClientId(tx, organizationId, clientId);
      if (known)
        return known.registrationId === registrationId
          ? resultOf(tx, known)
          : refuse(clientId, registrationId, 'id_reused');
      const ticket = ticketOf(registrationId);
      if (!confirmed.has(registrationId))
        return refuse(clientId, registrationId, ticket ? 'not_confirmed' : 'not_found');
      if (ticket?.status === 'void') return refuse(clientId, registrationId, 'ticket_void');
      if (at.getTime() > latest) return refuse(clientId, registrationId, 'time_in_future');
      if (at.getTime() < salesOpened) return refuse(clientId, registrationId, 'time_before_sales');
      const current = await liveOf(tx, registrationId);
      const earlier = !current || at.getTime() < current.checkedInAt.getTime();
      if (current && earlier) {
        await tx
          .update(checkIns)
          .set({ state: 'conflict', changedAt: now })
          .where(eq(checkIns.id, current.id));
      }
      const [row] = await tx
        .insert(checkIns)
        .values({
          id: newId('chk'),
          organizationId,
          eventId,
          registrationId,
          clientId,
          state: earlier ? 'live' : 'conflict',
          checkedInAt: at,
          memberId: actor.memberId,
          memberName: options.memberName,
          receivedAt: now,
          changedAt: now,
        })
        .returning();
      if (current) {
        const [first, second] = earlier ? [row!, current] : [current, row!];
        await recordAudit(
          tx,
          {
            organizationId,
            actor,
            action: 'check_in.conflict',
            targetType: 'event',
            targetId: eventId,
            details: {
              registration_id: registrationId,
              kept: { at: first.checkedInAt.toISOString(), by: first.memberName },
              lost: { at: second.checkedInAt.toISOString(), by: second.memberName },
            },
          },
          now,
        );
      }
      return resultOf(tx, row!);
    });
    checkInResults.push(result);
  }

  const undoResults: UndoResult[] = [];
  for (const undo of options.undos) {
    const refuseUndo = (reason: Refused): UndoResult => ({
      id: undo.clientId,
      result: 'refused',
      reason,
      message: REFUSAL_MESSAGES[reason],
    });
    const result = await ctx.database.transaction(async (tx): Promise<UndoResult> => {
      const row = await findByClientId(tx, organizationId, undo.clientId);
      if (!row || row.eventId !== eventId) return refuseUndo('not_found');
      await lockRegistration(tx, row.registrationId);
      const [fresh] = await tx.select().from(checkIns).where(eq(checkIns.id, row.id));
      if (fresh!.undoneAt)
        return { id: undo.clientId, result: 'undone', registration_id: row.registrationId };
      if (fresh!.state !== 'live') return refuseUndo('not_live');
      if (undo.at.getTime() > latest) return refuseUndo('time_in_future');
      const elapsed = undo.at.getTime() - fresh!.checkedInAt.getTime();
      // the device's times, as for the check-in: an undo made offline counts when it is sent later
      if (elapsed > UNDO_WINDOW_MS) return refuseUndo('undo_too_late');
      await tx
        .update(checkIns)
        .set({
          undoneAt: undo.at < fresh!.checkedInAt ? fresh!.checkedInAt : undo.at,
          undoneByMemberId: actor.memberId,
          undoneByName: options.memberName,
          changedAt: now,
        })
        .where(eq(checkIns.id, row.id));
      await recordAudit(
        tx,
        {
          organizationId,
          actor,
          action: 'check_in.undone',
          targetType: 'event',
          targetId: eventId,
          details: {
            registration_id: row.registrationId,
            checked_in: { at: fresh!.checkedInAt.toISOString(), by: fresh!.memberName },
          },
        },
        now,
      );
      return { id: undo.clientId, result: 'undone', registration_id: row.registrationId };
    });
    undoResults.push(result);
  }
  return { done: { check_ins: checkInResults, undos: undoResults } };
}
