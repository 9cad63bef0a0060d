// The event and ticket type forms of the organizer app: the typed values read into the admin
// API's inputs (the same limits as src/admin/events/event-admin.schema.ts), each problem keyed by
// its field so it shows next to it. Dates are datetime-local in the event's time zone.
import {
  asksEmergencyContact,
  checkEventRules,
  isTimeZone,
  isUnlimited,
  UNLIMITED_CAPACITY,
  withEmergencyContact,
  MAX_PRICE_MINOR,
  type EventPatch,
  type EventRow,
  type TicketTypeInput,
  type TicketTypeRow,
} from '../../events/index.ts';
import { currencyExponent } from '../../platform/index.ts';
// Deep imports: the package root (and formatInTimeZone) load all of date-fns, seconds at start.
import { fromZonedTime } from 'date-fns-tz/fromZonedTime';
import { getTimezoneOffset } from 'date-fns-tz/getTimezoneOffset';
import { toZonedTime } from 'date-fns-tz/toZonedTime';
import { lightFormat } from 'date-fns/lightFormat';
import { readChoice, readField, type FieldErrors, type FormBody } from '../form-body.ts';
import { questionValues, readQuestions } from './event-questions.ts';
import {
  EVENT_FORM_LIMITS,
  EventChoiceForm,
  EVENT_FORM_PATTERNS,
  EventForm,
  TicketTypeForm,
} from '../app-forms.schema.ts';

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

const EVENT_DATE_FIELDS = ['starts_at', 'ends_at', 'reg_opens_at', 'reg_closes_at'] as const;

/** A form's values as typed (strings, kept on error) and the problems found in them. */
export interface FormState {
  values: Record<string, string>;
  errors: FieldErrors;
}

// ---------------------------------------------------------------------------------------------
// Times in the event's zone, through date-fns-tz

const LOCAL_FORMAT = "yyyy-MM-dd'T'HH:mm";
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * "2026-07-12T06:30" in `zone` -> the instant; null when it is not such a value, 'skipped' when
 * the zone's clocks jump over it (spring forward). A time the clocks pass twice (fall back) is the
 * earlier of the two, whichever one date-fns-tz picked (docs/decisions/app-local-times.md).
 */
export function fromLocalTime(value: string, zone: string): Date | 'skipped' | null {
  const m = LOCAL_TIME.exec(value);
  if (!m) return null;
  const [y, mo, d, hh, mm] = m.slice(1).map(Number) as [number, number, number, number, number];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || hh > 23 || mm > 59) return null;
  const instant = fromZonedTime(value, zone);
  if (Number.isNaN(instant.getTime())) return null;
  if (toLocalTime(instant, zone) !== value) return 'skipped';
  // The two instants of a repeated time lie the size of the change apart.
  const change = Math.abs(
    getTimezoneOffset(zone, new Date(instant.getTime() + DAY_MS)) -
      getTimezoneOffset(zone, new Date(instant.getTime() - DAY_MS)),
  );
  const earlier = new Date(instant.getTime() - change);
  return change > 0 && toLocalTime(earlier, zone) === value ? earlier : instant;
}

function skippedMessage(zone: string): string {
  return `That time does not exist in ${zone}: the clocks go forward then. Enter a time after the change.`;
}

/** The instant as datetime-local text in `zone`. */
export function toLocalTime(instant: Date, zone: string): string {
  return lightFormat(toZonedTime(instant, zone), LOCAL_FORMAT);
}

// ---------------------------------------------------------------------------------------------
// Money: prices are typed in major units (UGX 30000, USD 12.50)

function toMajor(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  if (exponent === 0) return String(minor);
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

function toMinor(value: string, currency: string): number | null {
  const exponent = currencyExponent(currency);
  const m = /^(\d{1,12})(?:\.(\d+))?$/.exec(value.replace(/,/g, ''));
  if (!m) return null;
  const fraction = m[2] ?? '';
  if (fraction.length > exponent) return null;
  return Number(m[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
}

// ---------------------------------------------------------------------------------------------
// The event form

/** The form's values for a stored event (the edit form's starting point). */
export function eventValues(event: EventRow): Record<string, string> {
  const zone = event.timezone;
  const values: Record<string, string> = {
    name: event.name,
    handle: event.handle,
    description: event.description,
    venue: event.venue,
    organizer_name: event.organizerName,
    support_email: event.supportEmail,
    cover: event.cover,
    timezone: zone,
    currency: event.currency,
    visibility: event.visibility,
    waiver_required: event.waiverRequired ? 'yes' : '',
    waiver_version: event.waiverVersion,
    waiver_text: event.waiverText,
    starts_at: toLocalTime(event.startsAt, zone),
    ends_at: toLocalTime(event.endsAt, zone),
    reg_opens_at: toLocalTime(event.regOpensAt, zone),
    reg_closes_at: toLocalTime(event.regClosesAt, zone),
    emergency_contact: asksEmergencyContact(event.additionalQuestions) ? 'yes' : '',
    donations_enabled: event.donationsEnabled ? 'yes' : '',
    phone_required: event.phoneRequired ? 'yes' : '',
    transfer_deadline: event.transferDeadline ? toLocalTime(event.transferDeadline, zone) : '',
  };
  Object.assign(values, questionValues(event.additionalQuestions));
  return values;
}

/**
 * Reads the event form into the admin API's fields (every field set: the edit form sends them
 * all), with a message per field. The dates are read in the time zone typed on the same form.
 */
export function readEventForm(body: FormBody): FormState & { input: Required<EventPatch> | null } {
  const errors: FieldErrors = {};
  const values: Record<string, string> = {};
  for (const [name, field] of Object.entries(EventForm.properties))
    values[name] = readField(body, name, field, errors);
  const visibility = readChoice(body, 'visibility', EventChoiceForm.properties.visibility);
  values.visibility = visibility ?? '';
  values.waiver_required =
    readChoice(body, 'waiver_required', EventChoiceForm.properties.waiver_required) ?? '';
  values.donations_enabled =
    readChoice(body, 'donations_enabled', EventChoiceForm.properties.donations_enabled) ?? '';
  values.phone_required = readChoice(body, 'phone_required', EventChoiceForm.properties.phone_required) ?? '';

  if (
    !errors.support_email &&
    values.support_email &&
    !EVENT_FORM_PATTERNS.email.test(values.support_email!)
  ) {
    errors.support_email = 'Enter the support e-mail as name@example.org, or leave it empty.';
  }
  values.handle = values.handle!.toLowerCase();
  if (!errors.handle && values.handle && !EVENT_FORM_PATTERNS.handle.test(values.handle)) {
    errors.handle = 'Use lowercase letters, digits and dashes between them, such as kampala-city-10k.';
  }
  if (!errors.cover && values.cover && !EVENT_FORM_PATTERNS.url.test(values.cover!)) {
    errors.cover = 'Enter the cover image address starting with https://, or leave it empty.';
  }
  if (!errors.currency && !EVENT_FORM_PATTERNS.currency.test(values.currency!)) {
    errors.currency = 'Enter the currency as three capital letters, such as UGX.';
  }
  const zoneOk = !errors.timezone && isTimeZone(values.timezone!);
  if (!errors.timezone && !zoneOk) {
    errors.timezone = 'Enter a time zone name such as Africa/Kampala.';
  }
  if (!visibility) errors.visibility = 'Choose who can see the event.';
  const dates: Partial<Record<string, Date>> = {};
  for (const name of EVENT_DATE_FIELDS) {
    const value = values[name]!;
    // a missing or overlong date has its message already
    const date = zoneOk && !errors[name] ? fromLocalTime(value, values.timezone!) : null;
    if (date === 'skipped') errors[name] = skippedMessage(values.timezone!);
    else if (!date && zoneOk && !errors[name])
      errors[name] = `Enter the ${EventForm.properties[name].title.toLowerCase()} as a date and a time.`;
    if (date instanceof Date) dates[name] = date;
  }
  values.emergency_contact =
    readChoice(body, 'emergency_contact', EventChoiceForm.properties.emergency_contact) ?? '';
  const additionalQuestions = withEmergencyContact(
    readQuestions(body, values, errors),
    values.emergency_contact === 'yes',
  );
  // Optional: empty means places can be transferred for as long as the order stands.
  let transferDeadline: Date | null = null;
  if (values.transfer_deadline && zoneOk && !errors.transfer_deadline) {
    const date = fromLocalTime(values.transfer_deadline, values.timezone!);
    if (date === 'skipped') errors.transfer_deadline = skippedMessage(values.timezone!);
    else if (!date)
      errors.transfer_deadline = 'Enter when transfers close as a date and a time, or leave it empty.';
    else transferDeadline = date;
  }

  const waiverRequired = values.waiver_required === 'yes';
  if (dates.starts_at && dates.ends_at && dates.reg_opens_at && dates.reg_closes_at) {
    // The domain's cross-field rules, worded for the form.
    const ruleErrors = checkEventRules(
      {},
      {
        startsAt: dates.starts_at,
        endsAt: dates.ends_at,
        regOpensAt: dates.reg_opens_at,
        regClosesAt: dates.reg_closes_at,
        waiverRequired,
        waiverVersion: values.waiver_version!,
      },
    );
    for (const e of ruleErrors) {
      if (e.field === 'ends_at') errors.ends_at ??= 'The end must be after the start.';
      if (e.field === 'reg_closes_at') errors.reg_closes_at ??= 'Registration must close after it opens.';
      if (e.field === 'waiver_version')
        errors.waiver_version ??= 'Enter the waiver version: runners must accept the waiver.';
    }
  } else if (waiverRequired && !values.waiver_version) {
    errors.waiver_version ??= 'Enter the waiver version: runners must accept the waiver.';
  }
  if (Object.keys(errors).length > 0) return { values, errors, input: null };
  const iso = (name: string) => dates[name]!.toISOString();
  const input = {
    name: values.name!,
    // empty: a new event's is made from its name (events.ts suggestHandle), an edited one's kept
    ...(values.handle && { handle: values.handle }),
    description: values.description!,
    venue: values.venue!,
    organizer_name: values.organizer_name!,
    support_email: values.support_email!,
    cover: values.cover!,
    timezone: values.timezone!,
    currency: values.currency!,
    visibility: values.visibility!,
    waiver_required: waiverRequired,
    waiver_version: values.waiver_version!,
    waiver_text: values.waiver_text!,
    starts_at: iso('starts_at'),
    ends_at: iso('ends_at'),
    reg_opens_at: iso('reg_opens_at'),
    reg_closes_at: iso('reg_closes_at'),
    additional_questions: additionalQuestions,
    transfer_deadline: transferDeadline?.toISOString() ?? null,
    donations_enabled: values.donations_enabled === 'yes',
    phone_required: values.phone_required === 'yes',
  };
  // short code, event type and status are not on the form: creating draws them, editing keeps
  // them, and the status changes through its own confirmed actions.
  return { values, errors, input: input as Required<EventPatch> };
}

// ---------------------------------------------------------------------------------------------
// The ticket type form

export function ticketTypeValues(tt: TicketTypeRow, event: EventRow): Record<string, string> {
  return {
    name: tt.name,
    description: tt.description,
    price: toMajor(tt.priceMinor, event.currency),
    capacity: isUnlimited(tt.capacity) ? '' : String(tt.capacity),
    distance_km: String(tt.distanceKm),
    min_age: String(tt.minAge),
    sales_start: toLocalTime(tt.salesStart, event.timezone),
    sales_end: toLocalTime(tt.salesEnd, event.timezone),
  };
}

/**
 * Reads a ticket type form. Field names are prefixed (`prefix`), as the event page holds one form
 * per ticket type. Empty sales dates take the event's registration window.
 */
export function readTicketTypeForm(
  body: FormBody,
  event: EventRow,
  prefix: string,
): FormState & { input: Required<TicketTypeInput> | null } {
  const errors: FieldErrors = {};
  const values: Record<string, string> = {};
  const key = (f: string) => `${prefix}${f}`;
  for (const [f, field] of Object.entries(TicketTypeForm.properties))
    values[f] = readField(body, key(f), field, errors);
  // Each number's own message (and a date's, below) says more than its length's, so it replaces it.
  const price = toMinor(values.price!, event.currency);
  if (price === null || price > MAX_PRICE_MINOR) {
    errors[key('price')] =
      `Enter the price in ${event.currency}, such as ${toMajor(30000 * 10 ** currencyExponent(event.currency), event.currency)}.`;
  }
  // empty: no limit
  const typed = values.capacity!.replace(/[\s,]/g, '');
  const capacity = typed === '' ? UNLIMITED_CAPACITY : /^\d{1,10}$/.test(typed) ? Number(typed) : NaN;
  if (!(capacity >= 1 && capacity <= EVENT_FORM_LIMITS.capacity))
    errors[key('capacity')] = 'Enter how many places, 1 or more, or leave it empty for no limit.';
  const { distanceKm, minAge: oldest } = EVENT_FORM_LIMITS;
  const distance = values.distance_km ? Number(values.distance_km) : 0;
  if (!/^\d{0,4}(\.\d{1,3})?$/.test(values.distance_km!) || !(distance >= 0 && distance <= distanceKm)) {
    errors[key('distance_km')] = `Enter the distance in km, from 0 to ${distanceKm}.`;
  }
  const minAge = values.min_age ? Number(values.min_age) : 0;
  if (!/^\d{0,3}$/.test(values.min_age!) || minAge > oldest) {
    errors[key('min_age')] = `Enter the minimum age in years, from 0 to ${oldest} (0: none).`;
  }
  const start = values.sales_start ? fromLocalTime(values.sales_start, event.timezone) : event.regOpensAt;
  const end = values.sales_end ? fromLocalTime(values.sales_end, event.timezone) : event.regClosesAt;
  if (start === 'skipped') errors[key('sales_start')] = skippedMessage(event.timezone);
  else if (!start)
    errors[key('sales_start')] = 'Enter the sales start as a date and a time, or leave it empty.';
  if (end === 'skipped') errors[key('sales_end')] = skippedMessage(event.timezone);
  else if (!end) errors[key('sales_end')] = 'Enter the sales end as a date and a time, or leave it empty.';
  if (start instanceof Date && end instanceof Date && end.getTime() <= start.getTime()) {
    errors[key(values.sales_end ? 'sales_end' : 'sales_start')] = 'Sales must end after they start.';
  }
  if (Object.keys(errors).length > 0 || !(start instanceof Date) || !(end instanceof Date)) {
    return { values, errors, input: null };
  }
  return {
    values,
    errors,
    input: {
      name: values.name!,
      description: values.description!,
      price_minor: price!,
      capacity,
      distance_km: distance,
      min_age: minAge,
      sales_start: start.toISOString(),
      sales_end: end.toISOString(),
    },
  };
}
