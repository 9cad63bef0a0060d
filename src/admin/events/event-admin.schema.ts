// The admin event routes' wire types, named as the contract's Event fields
// (docs/architecture.md#admin-api): what each route takes, and the partner's Event detail plus what
// only an operator sees.
import { Type, type Static } from 'typebox';
import {
  EVENT_STATUSES,
  EVENT_VISIBILITIES,
  EventDetailOut,
  EventListItemOut,
  TicketTypeOut,
  toEventDetail,
  toEventListItem,
  toTicketTypeOut,
  type EventRow,
  type EventWithTickets,
  type PricedMethod,
  type TicketTypeRow,
} from '../../events/index.ts';
import type { OrganizationRow } from '../../organizations/index.ts';
import { Timestamp } from '../../platform/index.ts';
import {
  CURRENCY_PATTERN,
  DateTimeIn,
  EmailOrEmpty,
  MAX_INT,
  Name,
  PriceMinor,
  QUESTION_KEY_PATTERN,
  SHORT_CODE_PATTERN,
  SLUG_PATTERN,
  URL_OR_EMPTY_PATTERN,
} from '../admin-schemas.ts';

// ---------------------------------------------------------------------------------------------
// Inputs

const ticketTypeFields = {
  name: Name,
  description: Type.String({ maxLength: 5000 }),
  price_minor: PriceMinor,
  capacity: Type.Integer({ minimum: 1, maximum: MAX_INT }),
  distance_km: Type.Number({ minimum: 0, maximum: 1000 }),
  sales_start: DateTimeIn,
  sales_end: DateTimeIn,
  min_age: Type.Integer({ minimum: 0, maximum: 120, description: '0 = no minimum age' }),
};

export const TicketTypeIn = Type.Object(
  {
    name: ticketTypeFields.name,
    description: Type.Optional(ticketTypeFields.description),
    price_minor: ticketTypeFields.price_minor,
    capacity: ticketTypeFields.capacity,
    distance_km: Type.Optional(ticketTypeFields.distance_km),
    sales_start: Type.Optional(ticketTypeFields.sales_start),
    sales_end: Type.Optional(ticketTypeFields.sales_end),
    min_age: Type.Optional(ticketTypeFields.min_age),
  },
  { additionalProperties: false },
);

export const TicketTypePatchIn = Type.Object(
  {
    name: Type.Optional(ticketTypeFields.name),
    description: Type.Optional(ticketTypeFields.description),
    price_minor: Type.Optional(ticketTypeFields.price_minor),
    capacity: Type.Optional(ticketTypeFields.capacity),
    distance_km: Type.Optional(ticketTypeFields.distance_km),
    sales_start: Type.Optional(ticketTypeFields.sales_start),
    sales_end: Type.Optional(ticketTypeFields.sales_end),
    min_age: Type.Optional(ticketTypeFields.min_age),
  },
  { additionalProperties: false },
);

export const QuestionIn = Type.Object(
  {
    key: Type.String({ maxLength: 64, pattern: QUESTION_KEY_PATTERN }),
    label: Name,
    type: Type.Enum(['select', 'text', 'phone'], {
      description:
        'phone: a phone number, checked as one. emergency_contact_name (text) and emergency_contact_phone (phone) are the built-in emergency contact: both or neither.',
    }),
    required: Type.Optional(Type.Boolean()),
    options: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    help: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type QuestionIn = Static<typeof QuestionIn>;

const eventFields = {
  name: Name,
  handle: Type.String({ maxLength: 100, pattern: SLUG_PATTERN }),
  short_code: Type.String({ maxLength: 32, pattern: SHORT_CODE_PATTERN }),
  description: Type.String({ maxLength: 20000 }),
  cover: Type.String({ maxLength: 2048, pattern: URL_OR_EMPTY_PATTERN }),
  venue: Type.String({ maxLength: 500 }),
  event_type: Type.String({ maxLength: 100 }),
  status: Type.Enum([...EVENT_STATUSES]),
  visibility: Type.Enum([...EVENT_VISIBILITIES]),
  starts_at: DateTimeIn,
  ends_at: DateTimeIn,
  timezone: Type.String({ minLength: 1, maxLength: 64 }),
  currency: Type.String({ pattern: CURRENCY_PATTERN }),
  reg_opens_at: DateTimeIn,
  reg_closes_at: DateTimeIn,
  organizer_name: Type.String({ maxLength: 200 }),
  support_email: EmailOrEmpty,
  waiver_required: Type.Boolean(),
  waiver_version: Type.String({ maxLength: 100 }),
  waiver_text: Type.String({ maxLength: 50000 }),
  additional_questions: Type.Array(QuestionIn, { maxItems: 50 }),
  transfer_deadline: Type.Union([DateTimeIn, Type.Null()], {
    description: 'After it, places can no longer be transferred to another runner; null: no deadline',
  }),
  donations_enabled: Type.Boolean({
    description: "Whether the buyer's page offers a donation; an order with a donation is refused when false",
  }),
  phone_required: Type.Boolean({
    description: "Whether a free registration must give the buyer's phone number (a paid order always does)",
  }),
};

export const EventCreateIn = Type.Object(
  {
    name: eventFields.name,
    handle: Type.Optional(eventFields.handle),
    short_code: Type.Optional(eventFields.short_code),
    description: Type.Optional(eventFields.description),
    cover: Type.Optional(eventFields.cover),
    venue: Type.Optional(eventFields.venue),
    event_type: Type.Optional(eventFields.event_type),
    status: Type.Optional(eventFields.status),
    visibility: Type.Optional(eventFields.visibility),
    starts_at: eventFields.starts_at,
    ends_at: eventFields.ends_at,
    timezone: eventFields.timezone,
    currency: eventFields.currency,
    reg_opens_at: eventFields.reg_opens_at,
    reg_closes_at: eventFields.reg_closes_at,
    organizer_name: Type.Optional(eventFields.organizer_name),
    support_email: Type.Optional(eventFields.support_email),
    waiver_required: Type.Optional(eventFields.waiver_required),
    waiver_version: Type.Optional(eventFields.waiver_version),
    waiver_text: Type.Optional(eventFields.waiver_text),
    additional_questions: Type.Optional(eventFields.additional_questions),
    transfer_deadline: Type.Optional(eventFields.transfer_deadline),
    donations_enabled: Type.Optional(eventFields.donations_enabled),
    phone_required: Type.Optional(eventFields.phone_required),
    ticket_types: Type.Optional(Type.Array(TicketTypeIn, { maxItems: 100 })),
  },
  { additionalProperties: false },
);

/** Any event field; ticket types change through their own routes. */
export const EventPatchIn = Type.Object(
  Object.fromEntries(Object.entries(eventFields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof eventFields]: ReturnType<typeof Type.Optional<(typeof eventFields)[K]>>;
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------------------------------------
// Outputs: the partner's Event detail plus what only an operator sees

export const AdminTicketTypeOut = Type.Object({
  ...TicketTypeOut.properties,
  event_id: Type.String(),
  paid_count: Type.Integer({ description: 'tickets in paid orders' }),
  held_count: Type.Integer({ description: 'tickets held by pending orders' }),
});

export const AdminEventOut = Type.Object({
  ...EventDetailOut.properties,
  organization_id: Type.String(),
  waiver_text: Type.String(),
  transfer_deadline: Type.Union([Timestamp, Type.Null()]),
  donations_enabled: Type.Boolean(),
  phone_required: Type.Boolean(),
  ticket_types: Type.Array(AdminTicketTypeOut),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AdminEventListItemOut = Type.Object({
  ...EventListItemOut.properties,
  organization_id: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function toAdminTicketType(
  tt: TicketTypeRow,
  event: EventRow,
  org: OrganizationRow,
  methods: readonly PricedMethod[],
) {
  return {
    ...toTicketTypeOut(tt, event.currency, org, methods),
    event_id: tt.eventId,
    paid_count: tt.paidCount,
    held_count: tt.heldCount,
  };
}

export function toAdminEvent(found: EventWithTickets, methods: readonly PricedMethod[]) {
  const { event, ticketTypes, organization } = found;
  return {
    ...toEventDetail(event, ticketTypes, organization, methods),
    organization_id: event.organizationId,
    waiver_text: event.waiverText,
    transfer_deadline: event.transferDeadline?.toISOString() ?? null,
    donations_enabled: event.donationsEnabled,
    phone_required: event.phoneRequired,
    ticket_types: ticketTypes.map((tt) => toAdminTicketType(tt, event, organization, methods)),
    created_at: event.createdAt.toISOString(),
    updated_at: event.updatedAt.toISOString(),
  };
}

export function toAdminEventListItem(event: EventRow, org: OrganizationRow) {
  return {
    ...toEventListItem(event, org.paymentsEnabled),
    organization_id: event.organizationId,
    created_at: event.createdAt.toISOString(),
    updated_at: event.updatedAt.toISOString(),
  };
}
