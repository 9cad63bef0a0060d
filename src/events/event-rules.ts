// Rules about an event that no schema can state: its registration window, the cross-field checks
// of an admin write, and the price ceiling of its ticket types.
import { isTimeZone, payableUnit, validationError, type FieldError } from '../platform/index.ts';
import type { EventInput, EventRow, TicketTypeInput } from './events.ts';
import { EMERGENCY_CONTACT_NAME, EMERGENCY_CONTACT_PHONE } from './emergency-contact.ts';
import { MAX_PRICE_MINOR } from './fees.ts';

/** Registration open: now inside [reg_opens_at, reg_closes_at). */
export function isRegistrationOpen(event: Pick<EventRow, 'regOpensAt' | 'regClosesAt'>, now: Date): boolean {
  return event.regOpensAt.getTime() <= now.getTime() && now.getTime() < event.regClosesAt.getTime();
}

export { isTimeZone };

/** Cross-field rules the schema cannot state. Returns every problem, not just the first. */
export function checkEventRules(
  input: Partial<EventInput>,
  merged: {
    startsAt: Date;
    endsAt: Date;
    regOpensAt: Date;
    regClosesAt: Date;
    waiverRequired: boolean;
    waiverVersion: string;
  },
): FieldError[] {
  const errors: FieldError[] = [];
  if (merged.endsAt.getTime() <= merged.startsAt.getTime()) {
    errors.push({ field: 'ends_at', message: 'must be after starts_at' });
  }
  if (merged.regClosesAt.getTime() <= merged.regOpensAt.getTime()) {
    errors.push({ field: 'reg_closes_at', message: 'must be after reg_opens_at' });
  }
  if (input.timezone !== undefined && !isTimeZone(input.timezone)) {
    errors.push({ field: 'timezone', message: 'must be an IANA time zone name such as Africa/Kampala' });
  }
  if (merged.waiverRequired && !merged.waiverVersion) {
    errors.push({ field: 'waiver_version', message: 'is required when waiver_required is true' });
  }
  const keys = new Set<string>();
  (input.additional_questions ?? []).forEach((q, i) => {
    if (keys.has(q.key)) errors.push({ field: `additional_questions[${i}].key`, message: 'is used twice' });
    keys.add(q.key);
    if (q.type === 'select' && q.options.length === 0) {
      errors.push({
        field: `additional_questions[${i}].options`,
        message: 'must list at least one option for select',
      });
    }
  });
  errors.push(...emergencyContactErrors(input.additional_questions ?? []));
  (input.ticket_types ?? []).forEach((tt, i) => {
    if (tt.sales_start && tt.sales_end && Date.parse(tt.sales_end) <= Date.parse(tt.sales_start)) {
      errors.push({ field: `ticket_types[${i}].sales_end`, message: 'must be after sales_start' });
    }
  });
  return errors;
}

/** The built-in emergency contact pair: both questions or neither, each of its own kind. */
function emergencyContactErrors(questions: ReadonlyArray<{ key: string; type: string }>): FieldError[] {
  const errors: FieldError[] = [];
  const name = questions.findIndex((q) => q.key === EMERGENCY_CONTACT_NAME);
  const phone = questions.findIndex((q) => q.key === EMERGENCY_CONTACT_PHONE);
  if (name < 0 !== phone < 0) {
    const [present, missing] = name < 0 ? [phone, EMERGENCY_CONTACT_NAME] : [name, EMERGENCY_CONTACT_PHONE];
    errors.push({
      field: `additional_questions[${present}].key`,
      message: `is the emergency contact, which needs ${missing} too`,
    });
  }
  if (name >= 0 && questions[name]!.type !== 'text') {
    errors.push({
      field: `additional_questions[${name}].type`,
      message: 'must be text for the emergency contact name',
    });
  }
  if (phone >= 0 && questions[phone]!.type !== 'phone') {
    errors.push({
      field: `additional_questions[${phone}].type`,
      message: 'must be phone for the emergency contact phone',
    });
  }
  return errors;
}

/**
 * Prices outside whole minor units from 0 to MAX_PRICE_MINOR, or not whole payable units of the
 * event's currency (whole shillings in KES: platform/currency.ts payableUnit), each named by `field(i)`.
 */
export function ticketPriceErrors(
  types: ReadonlyArray<Partial<TicketTypeInput>>,
  field: (i: number) => string,
  currency: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const unit = payableUnit(currency);
  types.forEach((tt, i) => {
    const price = tt.price_minor;
    if (price === undefined) return;
    if (!(Number.isInteger(price) && price >= 0 && price <= MAX_PRICE_MINOR)) {
      errors.push({ field: field(i), message: `must be a whole number from 0 to ${MAX_PRICE_MINOR}` });
    } else if (price % unit !== 0) {
      errors.push({
        field: field(i),
        message: `must be whole ${currency} (a multiple of ${unit} minor units): buyers pay ${currency} in whole units`,
      });
    }
  });
  return errors;
}

/**
 * A ticket type's price must be whole minor units up to MAX_PRICE_MINOR. The actions check it
 * first; this is for the writes that seed without an action (the demo seed, tests), so that no
 * stored price can make a total that an order cannot carry. Throws validation_failed.
 */
export function checkTicketPrices(
  types: ReadonlyArray<Partial<TicketTypeInput>>,
  field: (i: number) => string,
  currency: string,
): void {
  const errors = ticketPriceErrors(types, field, currency);
  if (errors.length > 0) throw validationError(errors);
}

/**
 * A ticket type's sales window, with the sides not given taken from `current` (the event's
 * registration window for a new ticket type, the stored window for an update), must not be empty.
 */
export function salesWindowErrors(
  tt: { sales_start?: string | undefined; sales_end?: string | undefined },
  current: { start: Date; end: Date },
  prefix = '',
): FieldError[] {
  const start = tt.sales_start !== undefined ? Date.parse(tt.sales_start) : current.start.getTime();
  const end = tt.sales_end !== undefined ? Date.parse(tt.sales_end) : current.end.getTime();
  if (!Number.isFinite(start) || !Number.isFinite(end) || end > start) return [];
  if (tt.sales_start !== undefined && tt.sales_end !== undefined) {
    return [{ field: `${prefix}sales_end`, message: 'must be after sales_start' }];
  }
  if (tt.sales_end !== undefined) {
    return [
      { field: `${prefix}sales_end`, message: `must be after sales_start (${current.start.toISOString()})` },
    ];
  }
  return [
    { field: `${prefix}sales_start`, message: `must be before sales_end (${current.end.toISOString()})` },
  ];
}
