// What a correction and a transfer of a runner share: the registration found within the actor's
// reach with its order, event and ticket type, and the checkout's rules on the details given.
import { withinReach, type ActingOn } from '../../audit/index.ts';
import { findEvent, type EventWithTickets, type TicketTypeRow } from '../../events/index.ts';
import { isErased, type Executor, type FieldError } from '../../platform/index.ts';
import { lockOrder } from '../order-lifecycle.ts';
import type { OrderRow, RegistrationRow } from '../order-out.ts';
import { checkRunner, type RunnerDetails } from '../order-rules.ts';
import { eq } from 'drizzle-orm';
import { registrations } from '../orders.schema.ts';

export type { ActingOn, RunnerDetails };

/** A registration with everything its rules need. */
export interface RunnerPlace {
  order: OrderRow;
  registration: RegistrationRow;
  event: EventWithTickets['event'];
  ticketType: TicketTypeRow;
}

/**
 * The registration, its order locked (a refund or another change of the same order waits), within
 * the actor's organization; undefined when it is not there or not theirs.
 */
export async function lockRunnerPlace(
  tx: Executor,
  on: ActingOn,
  registrationId: string,
): Promise<RunnerPlace | undefined> {
  const [found] = await tx.select().from(registrations).where(eq(registrations.id, registrationId)).limit(1);
  const registration = withinReach(on, found);
  if (!registration) return undefined;
  const order = await lockOrder(tx, registration.orderId);
  const event = order ? await findEvent(tx, order.eventId) : undefined;
  const ticketType = event?.ticketTypes.find((t) => t.id === registration.ticketTypeId);
  if (!order || !event || !ticketType) return undefined;
  // Read again under the order's lock: a refund may have cancelled it meanwhile.
  const [current] = await tx.select().from(registrations).where(eq(registrations.id, registrationId));
  return current ? { order, registration: current, event: event.event, ticketType } : undefined;
}

/** The details as stored: trimmed name, no empty answers, no date of birth as null. */
export function storedDetails(details: RunnerDetails) {
  const answers = Object.fromEntries(
    Object.entries(details.answers ?? {})
      .map(([k, v]) => [k, v.trim()] as const)
      .filter(([, v]) => v !== ''),
  );
  return {
    participantName: details.participant_name.trim(),
    dateOfBirth: details.date_of_birth ?? null,
    answers,
  };
}

/** The checkout's rules on the details, for the place's ticket type. */
export function runnerErrors(place: RunnerPlace, details: RunnerDetails, now: Date): FieldError[] {
  return checkRunner(
    place.event,
    place.ticketType,
    { ...details, answers: storedDetails(details).answers },
    now,
  );
}

/** Whether the buyer's data of the order was erased: a correction must not write a person back. */
export function placeErased(place: RunnerPlace): boolean {
  return isErased(place.order.buyerEmail) || isErased(place.registration.participantName);
}

/**
 * The fields that differ, for the audit entry: names only for what says who the runner is (name,
 * date of birth, free-text answers), and before and after for a choice among the event's own
 * options (a T-shirt size), which says nothing about a person on its own
 * (docs/decisions/runner-corrections-in-the-audit-log.md).
 */
export function changedFields(
  event: EventWithTickets['event'],
  before: Pick<RegistrationRow, 'participantName' | 'dateOfBirth' | 'answers'>,
  after: ReturnType<typeof storedDetails>,
): { changed: string[]; choices: Record<string, { before: string | null; after: string | null }> } {
  const changed: string[] = [];
  const choices: Record<string, { before: string | null; after: string | null }> = {};
  if (before.participantName !== after.participantName) changed.push('participant_name');
  if (before.dateOfBirth !== after.dateOfBirth) changed.push('date_of_birth');
  const keys = new Set([...Object.keys(before.answers), ...Object.keys(after.answers)]);
  for (const key of [...keys].sort()) {
    const was = before.answers[key] ?? null;
    const now = after.answers[key] ?? null;
    if (was === now) continue;
    changed.push(`answers.${key}`);
    const question = event.additionalQuestions.find((q) => q.key === key);
    if (question?.type === 'select') choices[key] = { before: was, after: now };
  }
  return { changed, choices };
}
