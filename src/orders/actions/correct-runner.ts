// Corrects a runner's details (name, date of birth, answers to the event's questions) under the
// checkout's own rules, audited with the fields that changed. Allowed after the transfer deadline:
// a misspelt name is still the same runner. The ticket stays as it was (same code, same page).
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { conflict, invalid, notThere, type Outcome } from '../../platform/index.ts';
import { eq } from 'drizzle-orm';
import type { RegistrationRow } from '../order-out.ts';
import { registrations } from '../orders.schema.ts';
import {
  changedFields,
  lockRunnerPlace,
  placeErased,
  runnerErrors,
  storedDetails,
  type ActingOn,
  type RunnerDetails,
} from './runner-rules.ts';

export interface CorrectRunnerOptions extends ActingOn {
  registrationId: string;
  details: RunnerDetails;
}

export async function correctRunner(
  ctx: AppContext,
  { registrationId, details, ...on }: CorrectRunnerOptions,
): Promise<Outcome<RegistrationRow>> {
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx): Promise<Outcome<RegistrationRow>> => {
    const place = await lockRunnerPlace(tx, on, registrationId);
    if (!place) return notThere;
    if (placeErased(place)) {
      return conflict("This order's personal data was erased: its runners can no longer be corrected.");
    }
    const errors = runnerErrors(place, details, now);
    if (errors.length > 0) return invalid(errors);
    const stored = storedDetails(details);
    const { changed, choices } = changedFields(place.event, place.registration, stored);
    if (changed.length === 0) return { done: place.registration };
    const [row] = await tx
      .update(registrations)
      .set(stored)
      .where(eq(registrations.id, place.registration.id))
      .returning();
    await recordAudit(
      tx,
      {
        organizationId: place.order.organizationId,
        actor: on.actor,
        action: 'registration.corrected',
        targetType: 'registration',
        targetId: place.registration.id,
        details: {
          order_code: place.order.orderCode,
          changed,
          ...(Object.keys(choices).length > 0 && { choices }),
        },
      },
      now,
    );
    return { done: row! };
  });
}
