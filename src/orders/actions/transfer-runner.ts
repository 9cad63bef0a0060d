// The orders' part of transferring a place to another person: the rules (a confirmed registration
// of a paid order, before the event's transfer deadline; the new runner's details under the
// checkout's rules, their email required, their phone optional) and the registration's new
// details. Run inside the transaction of the tickets module's transferPlace, which voids the
// place's ticket, issues the new one and writes the audit entry (tickets/actions/transfer-place.ts).
import { eq } from 'drizzle-orm';
import type { Executor, FieldError, Outcome } from '../../platform/index.ts';
import { conflict, invalid, notThere } from '../../platform/index.ts';
import { isEmail, normalizePhone, phoneCountryOf, phoneWords } from '../contact.ts';
import type { OrderRow, RegistrationRow } from '../order-out.ts';
import { registrations } from '../orders.schema.ts';
import {
  changedFields,
  lockRunnerPlace,
  placeErased,
  runnerErrors,
  storedDetails,
  type ActingOn,
  type RunnerDetails,
  type RunnerPlace,
} from './runner-rules.ts';

export interface NewRunner extends RunnerDetails {
  email: string;
  /** '' or absent: none given */
  phone?: string | undefined;
}

export interface TransferredRunner {
  order: OrderRow;
  event: RunnerPlace['event'];
  before: RegistrationRow;
  after: RegistrationRow;
  /** the fields that changed, for the audit entry (names; choices before and after) */
  changed: ReturnType<typeof changedFields>;
}

/** Why a place cannot go to another runner, in the words the organizer reads; null when it can. */
function transferRefusal(place: RunnerPlace, now: Date): string | null {
  if (place.order.status !== 'paid' || place.registration.status !== 'confirmed') {
    return `This place cannot be transferred: its ${place.order.status === 'paid' ? 'registration' : 'order'} is ${place.order.status === 'paid' ? place.registration.status : place.order.status}.`;
  }
  if (placeErased(place))
    return "This order's personal data was erased: its places can no longer be transferred.";
  const deadline = place.event.transferDeadline;
  if (deadline && now.getTime() > deadline.getTime()) {
    return "Transfers for this event have closed: the transfer deadline has passed. The runner's details can still be corrected.";
  }
  return null;
}

export async function transferRunner(
  tx: Executor,
  on: ActingOn,
  options: { registrationId: string; runner: NewRunner; now: Date },
): Promise<Outcome<TransferredRunner>> {
  const place = await lockRunnerPlace(tx, on, options.registrationId);
  if (!place) return notThere;
  const refusal = transferRefusal(place, options.now);
  if (refusal) return conflict(refusal);
  const { email, phone, ...details } = options.runner;
  const errors: FieldError[] = runnerErrors(place, details, options.now);
  const runnerEmail = email.trim();
  if (!isEmail(runnerEmail)) errors.push({ field: 'email', message: 'must be an e-mail address' });
  const typedPhone = phone?.trim() ?? '';
  const country = phoneCountryOf(place.event.currency);
  const runnerPhone = typedPhone === '' ? null : normalizePhone(typedPhone, country);
  if (typedPhone !== '' && runnerPhone === null) {
    errors.push({ field: 'phone', message: `must be ${phoneWords(country)}` });
  }
  if (errors.length > 0) return invalid(errors);
  const stored = storedDetails(details);
  const [after] = await tx
    .update(registrations)
    .set({ ...stored, runnerEmail, runnerPhone })
    .where(eq(registrations.id, place.registration.id))
    .returning();
  return {
    done: {
      order: place.order,
      event: place.event,
      before: place.registration,
      after: after!,
      changed: changedFields(place.event, place.registration, stored),
    },
  };
}
