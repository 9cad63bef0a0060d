// Transfers a place to another person: the orders module's rules and the registration's new
// runner (orders' transferRunner), the place's ticket voided and a new one issued with a new code
// and token (its old page then says it was transferred), and one audit entry, in one transaction.
// The bib stays with the place: bibs belong to the registration. The mails to the old and the
// new runner go once this commits (confirmations/transfer-mails.ts).
import { and, eq } from 'drizzle-orm';
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { transferRunner, type NewRunner, type TransferredRunner } from '../../orders/index.ts';
import { newId, type Executor, type Outcome } from '../../platform/index.ts';
import { bibNumbersOf } from '../../startlists/index.ts';
import { newTicketCode, newTicketToken } from '../ticket-codes.ts';
import { tickets } from '../tickets.schema.ts';

export interface TransferPlaceOptions extends ActingOn {
  registrationId: string;
  runner: NewRunner;
}

export interface TransferredPlace extends TransferredRunner {
  /** the code of the ticket voided; null when none had been issued yet */
  voidedCode: string | null;
  ticket: { code: string; token: string; bib: number | null };
}

type TicketRow = typeof tickets.$inferSelect;

/** A new code can collide with another ticket's (very rarely): draw again, as issuing does. */
const ISSUE_ROUNDS = 3;

/** Voids the registration's valid ticket and issues its successor; answers both. */
async function reissueTicket(
  tx: Executor,
  place: Pick<TicketRow, 'registrationId' | 'orderId' | 'organizationId' | 'eventId'>,
  now: Date,
): Promise<{ voided: TicketRow | null; issued: TicketRow }> {
  const [voided] = await tx
    .update(tickets)
    .set({ status: 'void' })
    .where(and(eq(tickets.registrationId, place.registrationId), eq(tickets.status, 'valid')))
    .returning();
  for (let round = 0; round < ISSUE_ROUNDS; round++) {
    const [issued] = await tx
      .insert(tickets)
      .values({
        id: newId('tkt'),
        ...place,
        code: newTicketCode(),
        token: newTicketToken(),
        status: 'valid',
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (issued) return { voided: voided ?? null, issued };
  }
  throw new Error(`a ticket for registration ${place.registrationId} could not be issued`);
}

export async function transferPlace(
  ctx: AppContext,
  { registrationId, runner, ...on }: TransferPlaceOptions,
): Promise<Outcome<TransferredPlace>> {
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx): Promise<Outcome<TransferredPlace>> => {
    const outcome = await transferRunner(tx, on, { registrationId, runner, now });
    if (!('done' in outcome)) return outcome;
    const moved = outcome.done;
    const { voided, issued } = await reissueTicket(
      tx,
      {
        registrationId: moved.after.id,
        orderId: moved.order.id,
        organizationId: moved.order.organizationId,
        eventId: moved.order.eventId,
      },
      now,
    );
    const bibs = await bibNumbersOf(tx, [moved.after.id]);
    const { changed, choices } = moved.changed;
    await recordAudit(
      tx,
      {
        organizationId: moved.order.organizationId,
        actor: on.actor,
        action: 'registration.transferred',
        targetType: 'registration',
        targetId: moved.after.id,
        details: {
          order_code: moved.order.orderCode,
          changed,
          ...(Object.keys(choices).length > 0 && { choices }),
          void_ticket: voided?.code ?? null,
          new_ticket: issued.code,
        },
      },
      now,
    );
    return {
      done: {
        ...moved,
        voidedCode: voided?.code ?? null,
        ticket: { code: issued.code, token: issued.token, bib: bibs.get(moved.after.id) ?? null },
      },
    };
  });
}
