// The input rules of an order that need its event but no inventory (createOrder's checks before
// any statement), and the calendar arithmetic they use.
import type { AdditionalQuestion, EventWithTickets, TicketTypeRow } from '../events/index.ts';
import { LONE_SURROGATE, payableUnit, validationError, type FieldError } from '../platform/index.ts';
import { isEmail, isPhoneNumber, normalizePhone, phoneCountryOf, phoneWords } from './contact.ts';
import { OrderIn, type CreateOrderInput } from './order-in.ts';

export const MAX_TICKETS_PER_ORDER = 10;
export const MAX_DONATION_MINOR = 100_000_000;
/** OrderIn's limit on a participant's name, read from its schema so that there is one */
const PARTICIPANT_NAME_MAX = Number(
  Reflect.get(OrderIn.properties.items.items.properties.participant_name, 'maxLength'),
);

/** Age in whole years on `on` (YYYY-MM-DD strings compare as dates). */
function ageOn(dateOfBirth: string, on: string): number {
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [oy, om, od] = on.split('-').map(Number) as [number, number, number];
  return oy - by - (om < bm || (om === bm && od < bd) ? 1 : 0);
}

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than using one. */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of an instant in a time zone, as YYYY-MM-DD. */
export function localDate(instant: Date, timeZone: string): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dateFormats.set(timeZone, format);
  }
  return format.format(instant);
}

/** The earliest date_of_birth taken: nobody older runs, and PostgreSQL has no year 0000. */
const MIN_DATE_OF_BIRTH = '1900-01-01';

/**
 * Strings PostgreSQL cannot store (a NUL byte fails the query: a 500) or would silently alter (a
 * lone surrogate becomes U+FFFD), as field errors; checked before any query.
 */
export function unstorableText(value: unknown, path: string, errors: FieldError[]): FieldError[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) errors.push({ field: path, message: 'must not contain NUL' });
    else if (LONE_SURROGATE.test(value)) errors.push({ field: path, message: 'must be valid Unicode text' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableText(item, `${path}[${i}]`, errors));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      unstorableText(item, path ? `${path}.${key}` : key, errors);
  }
  return errors;
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

function checkAnswers(
  errors: FieldError[],
  path: string,
  questions: AdditionalQuestion[],
  answers: Record<string, string>,
) {
  const known = new Set(questions.map((q) => q.key));
  for (const key of Object.keys(answers)) {
    if (!known.has(key)) errors.push({ field: `${path}.${key}`, message: 'is not a question of this event' });
  }
  for (const q of questions) {
    const value = answers[q.key];
    if (value === undefined || value.trim() === '') {
      if (q.required) errors.push({ field: `${path}.${q.key}`, message: `is required (${q.label})` });
      continue;
    }
    if (value.length > 500)
      errors.push({ field: `${path}.${q.key}`, message: 'must be at most 500 characters' });
    if (q.type === 'select' && !q.options.includes(value)) {
      errors.push({ field: `${path}.${q.key}`, message: `must be one of: ${q.options.join(', ')}` });
    }
    if (q.type === 'phone' && !isPhoneNumber(value)) {
      errors.push({
        field: `${path}.${q.key}`,
        message: 'must be a phone number such as 0772 123456 or +254 712 345678',
      });
    }
  }
}

/** A runner's own details: what checkout asks of each participant, and what a correction may change. */
export interface RunnerDetails {
  participant_name: string;
  date_of_birth?: string | undefined;
  answers?: Record<string, string> | undefined;
}

interface RunnerContext {
  event: EventWithTickets['event'];
  /** undefined when the item names no ticket type of the event (its own error) */
  ticketType: TicketTypeRow | undefined;
  raceDay: string;
  today: string;
}

/** The rules of one runner's details, each error's field prefixed by `path` (`items[0].`, or ''). */
function checkRunnerFields(errors: FieldError[], path: string, c: RunnerContext, runner: RunnerDetails) {
  const tt = c.ticketType;
  if (runner.participant_name.trim() === '')
    errors.push({ field: `${path}participant_name`, message: 'is required' });
  checkAnswers(errors, `${path}answers`, c.event.additionalQuestions, runner.answers ?? {});
  if (runner.date_of_birth !== undefined) {
    const dob = runner.date_of_birth;
    if (!isCalendarDate(dob) || dob < MIN_DATE_OF_BIRTH || dob > c.today) {
      errors.push({
        field: `${path}date_of_birth`,
        message: `must be a date from ${MIN_DATE_OF_BIRTH} to today as YYYY-MM-DD`,
      });
    } else if (tt && tt.minAge > 0 && ageOn(dob, c.raceDay) < tt.minAge) {
      errors.push({
        field: `${path}date_of_birth`,
        message: `the participant must be at least ${tt.minAge} on race day for ${tt.name}`,
      });
    }
  } else if (tt && tt.minAge > 0) {
    errors.push({
      field: `${path}date_of_birth`,
      message: `is required: ${tt.name} has a minimum age of ${tt.minAge}`,
    });
  }
}

/**
 * The checkout's rules for one runner of `ticketType` (name, date of birth against its minimum
 * age on race day, the event's questions), for a correction or a transfer of a place: errors by
 * field name (participant_name, date_of_birth, answers.<key>), none when the details hold.
 */
export function checkRunner(
  event: EventWithTickets['event'],
  ticketType: TicketTypeRow,
  runner: RunnerDetails,
  now: Date,
): FieldError[] {
  const errors = unstorableText(runner, '', []);
  // checkout's schema caps the name (order-in.ts); a form's text reaches this unchecked
  if (runner.participant_name.length > PARTICIPANT_NAME_MAX)
    errors.push({ field: 'participant_name', message: `must be at most ${PARTICIPANT_NAME_MAX} characters` });
  const raceDay = localDate(event.startsAt, event.timezone);
  const today = localDate(now, event.timezone);
  checkRunnerFields(errors, '', { event, ticketType, raceDay, today }, runner);
  return errors;
}

/** The runner's age in whole years on the event's race day (its start date in its time zone). */
export function ageOnRaceDay(
  event: Pick<EventWithTickets['event'], 'startsAt' | 'timezone'>,
  dateOfBirth: string,
): number {
  return ageOn(dateOfBirth, localDate(event.startsAt, event.timezone));
}

export /** Every input rule that needs the event but not inventory; all problems at once. */
function checkInput(found: EventWithTickets, input: CreateOrderInput, now: Date): Map<number, TicketTypeRow> {
  const errors: FieldError[] = [];
  const { event } = found;
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const chosen = new Map<number, TicketTypeRow>();
  if (input.items.length === 0) errors.push({ field: 'items', message: 'must contain at least one ticket' });
  if (input.items.length > MAX_TICKETS_PER_ORDER) {
    errors.push({ field: 'items', message: `must contain at most ${MAX_TICKETS_PER_ORDER} tickets` });
  }
  const raceDay = localDate(event.startsAt, event.timezone);
  const today = localDate(now, event.timezone);
  input.items.forEach((item, i) => {
    const path = `items[${i}]`;
    const tt = byId.get(item.ticket_type_id);
    if (!tt) errors.push({ field: `${path}.ticket_type_id`, message: 'is not a ticket type of this event' });
    else chosen.set(i, tt);
    checkRunnerFields(errors, `${path}.`, { event, ticketType: tt, raceDay, today }, item);
  });
  if (input.buyer.name.trim() === '') errors.push({ field: 'buyer.name', message: 'is required' });
  if (!isEmail(input.buyer.email))
    errors.push({ field: 'buyer.email', message: 'must be an e-mail address' });
  // A free registration may leave the phone out, unless its event asks for it; one typed must be valid.
  const free = input.items.every((item) => (byId.get(item.ticket_type_id)?.priceMinor ?? 0) === 0);
  const phoneOptional = free && (input.donation_minor ?? 0) === 0 && !event.phoneRequired;
  const leftOut = phoneOptional && input.buyer.phone.trim() === '';
  const country = phoneCountryOf(event.currency);
  if (!leftOut && normalizePhone(input.buyer.phone, country) === null) {
    errors.push({ field: 'buyer.phone', message: `must be ${phoneWords(country)}` });
  }
  if (event.waiverRequired && input.waiver_accepted !== true) {
    errors.push({
      field: 'waiver_accepted',
      message: `the waiver (version ${event.waiverVersion}) must be accepted`,
    });
  }
  const donation = input.donation_minor ?? 0;
  if (!Number.isInteger(donation) || donation < 0 || donation > MAX_DONATION_MINOR) {
    errors.push({
      field: 'donation_minor',
      message: `must be a whole number from 0 to ${MAX_DONATION_MINOR}`,
    });
  } else if (donation > 0 && !event.donationsEnabled) {
    errors.push({ field: 'donation_minor', message: 'this event takes no donations' });
  } else if (donation % payableUnit(event.currency) !== 0) {
    errors.push({
      field: 'donation_minor',
      message: `must be whole ${event.currency} (a multiple of ${payableUnit(event.currency)} minor units)`,
    });
  }
  if (input.client_reference_id !== undefined && input.client_reference_id.length > 256) {
    errors.push({ field: 'client_reference_id', message: 'must be at most 256 characters' });
  }
  if (errors.length > 0) throw validationError(errors);
  return chosen;
}
