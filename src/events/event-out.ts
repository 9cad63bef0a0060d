// The Event wire shapes (docs/contract.md#events-and-ticket-types) and the mapping from rows to
// them. Each schema is the route's validation and serialization, its OpenAPI entry and, through
// Static, the TypeScript type.
import { Type, type Static } from 'typebox';
import type { OrganizationRow } from '../organizations/index.ts';
import { methodsForCurrency, Timestamp } from '../platform/index.ts';
import type { EventListRow } from './events-on-sale.ts';
import { type EventRow, remainingOf, type TicketTypeRow } from './events.ts';
import { methodFee, priceByMethod, priceFor, type PricedMethod } from './fees.ts';

export const MethodPriceOut = Type.Object({ laces_fee_minor: Type.Integer(), total_minor: Type.Integer() });
export type MethodPriceOut = Static<typeof MethodPriceOut>;

const eventFields = {
  event_id: Type.String({ examples: ['evt_3kTzQ8bN1cV7xY2wR5mP0aLd'] }),
  name: Type.String({ examples: ['Kampala City Half Marathon'] }),
  handle: Type.String({ examples: ['kampala-city-half'] }),
  short_code: Type.String({ examples: ['KCH26'] }),
  description: Type.String(),
  cover: Type.String({ description: 'Cover image URL (empty when none)' }),
  venue: Type.String(),
  event_type: Type.String({ examples: ['road_race'] }),
  status: Type.String({ examples: ['open'] }),
  visibility: Type.String({ examples: ['public'] }),
  starts_at: Timestamp,
  ends_at: Timestamp,
  timezone: Type.String({ examples: ['Africa/Kampala'] }),
  currency: Type.String({ examples: ['UGX'] }),
  reg_opens_at: Timestamp,
  reg_closes_at: Timestamp,
  payments_enabled: Type.Boolean(),
};

export const EventListItemOut = Type.Object(eventFields);
export type EventListItemOut = Static<typeof EventListItemOut>;

export const TicketTypeOut = Type.Object({
  ticket_type_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  currency: Type.String(),
  price_minor: Type.Integer({ description: 'Price before fee, minor units' }),
  laces_fee_minor: Type.Integer({
    description:
      "Service fee for the event's default method, the first of payment_methods (momo in UGX, mpesa in KES)",
  }),
  total_minor: Type.Integer({ description: 'price_minor + laces_fee_minor' }),
  card: Type.Union([MethodPriceOut, Type.Null()], {
    description:
      "Fee and total when paying by card (on the card provider's page); null when card is not offered: the organization has not turned cards on, or the service takes none",
  }),
  airtel: Type.Union([MethodPriceOut, Type.Null()], {
    description: 'Fee and total when paying with Airtel Money; null when the event does not take it',
  }),
  mpesa: Type.Union([MethodPriceOut, Type.Null()], {
    description: 'Fee and total when paying with M-Pesa (KES events); null when the event does not take it',
  }),
  is_free: Type.Boolean(),
  capacity: Type.Integer(),
  distance_km: Type.Number(),
  remaining: Type.Integer(),
  sales_start: Timestamp,
  sales_end: Timestamp,
  min_age: Type.Integer({ description: '0 when there is no minimum age' }),
});
export type TicketTypeOut = Static<typeof TicketTypeOut>;

const AdditionalQuestionOut = Type.Object({
  key: Type.String(),
  label: Type.String(),
  type: Type.String({ examples: ['select'] }),
  required: Type.Boolean(),
  options: Type.Array(Type.String()),
  help: Type.String(),
});
type AdditionalQuestionOut = Static<typeof AdditionalQuestionOut>;

export const EventDetailOut = Type.Object({
  ...eventFields,
  organizer_name: Type.String(),
  support_email: Type.String(),
  payment_methods: Type.Array(Type.String(), { examples: [['momo', 'airtel']] }),
  ticket_types: Type.Array(TicketTypeOut),
  additional_questions: Type.Array(AdditionalQuestionOut),
  waiver_required: Type.Boolean(),
  waiver_version: Type.String({ examples: ['2026-01-15'] }),
});
export type EventDetailOut = Static<typeof EventDetailOut>;

export function toEventListItem(row: EventListRow, paymentsEnabled: boolean): EventListItemOut {
  return {
    event_id: row.id,
    name: row.name,
    handle: row.handle,
    short_code: row.shortCode,
    description: row.description,
    cover: row.cover,
    venue: row.venue,
    event_type: row.eventType,
    status: row.status,
    visibility: row.visibility,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt.toISOString(),
    timezone: row.timezone,
    currency: row.currency,
    reg_opens_at: row.regOpensAt.toISOString(),
    reg_closes_at: row.regClosesAt.toISOString(),
    payments_enabled: paymentsEnabled,
  };
}

export function toTicketTypeOut(
  tt: TicketTypeRow,
  currency: string,
  org: OrganizationRow,
  methods: readonly PricedMethod[],
): TicketTypeOut {
  const offered = methodsForCurrency(currency, methods, org.optedInMethods);
  const prices = priceByMethod(tt.priceMinor, currency, org.fees, offered);
  // The default method's prices are the ticket type's own; the methods named on the wire (airtel,
  // mpesa) have theirs too, null when the event does not take them. An event whose currency no
  // method takes shows the service's default method's figures, and offers no method.
  const primary =
    prices[offered[0]?.key ?? ''] ?? priceFor(tt.priceMinor, methodFee(org.fees, methods[0]!), currency);
  return {
    ticket_type_id: tt.id,
    name: tt.name,
    description: tt.description,
    currency,
    price_minor: tt.priceMinor,
    laces_fee_minor: primary.laces_fee_minor,
    total_minor: primary.total_minor,
    card: prices.card ?? null,
    airtel: prices.airtel ?? null,
    mpesa: prices.mpesa ?? null,
    is_free: tt.priceMinor === 0,
    capacity: tt.capacity,
    distance_km: tt.distanceKm,
    remaining: remainingOf(tt),
    sales_start: tt.salesStart.toISOString(),
    sales_end: tt.salesEnd.toISOString(),
    min_age: tt.minAge,
  };
}

export function toEventDetail(
  row: EventRow,
  tts: TicketTypeRow[],
  org: OrganizationRow,
  methods: readonly PricedMethod[],
): EventDetailOut {
  return {
    ...toEventListItem(row, org.paymentsEnabled),
    organizer_name: row.organizerName || org.name,
    support_email: row.supportEmail || org.supportEmail,
    payment_methods: org.paymentsEnabled
      ? methodsForCurrency(row.currency, methods, org.optedInMethods).map((m) => m.key)
      : [],
    ticket_types: tts.map((tt) => toTicketTypeOut(tt, row.currency, org, methods)),
    additional_questions: row.additionalQuestions,
    waiver_required: row.waiverRequired,
    waiver_version: row.waiverVersion,
  };
}
