// Creates an event with its ticket types, audited, after the rules no schema can state; a handle
// the organization already uses is a conflict.
import { recordAudit, type Actor } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { conflict, invalid, uniqueErrors, violates, type Outcome } from '../../platform/index.ts';
import { checkEventRules, salesWindowErrors, ticketPriceErrors } from '../event-rules.ts';
import {
  EVENT_HANDLE_KEY,
  findEvent,
  insertEvent,
  type EventInput,
  type EventWithTickets,
} from '../events.ts';

export interface CreateEventOptions {
  actor: Actor;
  organizationId: string;
  input: EventInput;
}

export async function createEvent(
  ctx: AppContext,
  { actor, organizationId, input }: CreateEventOptions,
): Promise<Outcome<EventWithTickets>> {
  const registration = { start: new Date(input.reg_opens_at), end: new Date(input.reg_closes_at) };
  const errors = [
    ...checkEventRules(input, {
      startsAt: new Date(input.starts_at),
      endsAt: new Date(input.ends_at),
      regOpensAt: registration.start,
      regClosesAt: registration.end,
      waiverRequired: input.waiver_required ?? false,
      waiverVersion: input.waiver_version ?? '',
    }),
    ...ticketPriceErrors(input.ticket_types, (i) => `ticket_types[${i}].price_minor`, input.currency),
    ...input.ticket_types.flatMap((tt, i) => salesWindowErrors(tt, registration, `ticket_types[${i}].`)),
  ];
  if (errors.length > 0) return invalid(uniqueErrors(errors));
  const now = ctx.clock.now();
  try {
    const created = await ctx.database.transaction(async (tx) => {
      const event = await insertEvent(tx, organizationId, input);
      await recordAudit(
        tx,
        {
          organizationId,
          actor,
          action: 'event.created',
          targetType: 'event',
          targetId: event.id,
          details: { name: event.name, starts_at: event.startsAt.toISOString() },
        },
        now,
      );
      return (await findEvent(tx, event.id))!;
    });
    return { done: created };
  } catch (error) {
    if (violates(error, '23505', EVENT_HANDLE_KEY)) return handleTaken(input.handle);
    throw error;
  }
}

export function handleTaken(handle: string | undefined) {
  return conflict(
    `The handle "${handle ?? ''}" is already used by another event of this organization; choose another.`,
    'handle',
  );
}
