// Admin routes for events and ticket types: create (event and ticket types in one transaction),
// list any status, read, update any field, add and update ticket types. The schema checks each
// field; the cross-field rules (checkEventRules, sales windows) run on the merged result.
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import type { AdditionalQuestion } from '../events/events.schema.ts';
import { EventDetailOut, EventListItemOut, TicketTypeOut } from '../events/events.routes.ts';
import {
  addTicketType,
  checkEventRules,
  createEvent,
  EVENT_STATUSES,
  EVENT_VISIBILITIES,
  findEvent,
  findTicketType,
  listEventsOfOrganization,
  toEventDetail,
  toEventListItem,
  toTicketTypeOut,
  updateEvent,
  updateTicketType,
  type EventInput,
  type EventPatch,
  type EventRow,
  type EventWithTickets,
  type TicketTypeRow,
} from '../events/events.ts';
import { findOrganization, type OrganizationRow } from '../organizations/organizations.ts';
import { ApiError, notFound, validationError, type FieldError } from '../platform/errors.ts';
import { envelope, send, type Host } from '../platform/http.ts';
import { Envelope, Timestamp } from '../platform/schemas.ts';
import {
  assertId,
  CURRENCY_PATTERN,
  DateTimeIn,
  EmailOrEmpty,
  IdParams,
  impossibleDates,
  isUniqueViolation,
  MAX_INT,
  Name,
  PriceMinor,
  QUESTION_KEY_PATTERN,
  SHORT_CODE_PATTERN,
  SLUG_PATTERN,
  uniqueErrors,
  URL_OR_EMPTY_PATTERN,
  errorResponses,
} from './admin-schemas.ts';

// ---------------------------------------------------------------------------------------------
// Inputs (DESIGN.md "Admin API inputs": SPEC.md field names)

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

const TicketTypeIn = Type.Object(
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

const TicketTypePatchIn = Type.Object(
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

const QuestionIn = Type.Object(
  {
    key: Type.String({ maxLength: 64, pattern: QUESTION_KEY_PATTERN }),
    label: Name,
    type: Type.Enum(['select', 'text']),
    required: Type.Optional(Type.Boolean()),
    options: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    help: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

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
};

const EventCreateIn = Type.Object(
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
    ticket_types: Type.Optional(Type.Array(TicketTypeIn, { maxItems: 100 })),
  },
  { additionalProperties: false },
);

/** Any event field; ticket types change through their own routes. */
const EventPatchIn = Type.Object(
  Object.fromEntries(Object.entries(eventFields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof eventFields]: ReturnType<typeof Type.Optional<(typeof eventFields)[K]>>;
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------------------------------------
// Outputs: the partner's Event detail plus what only an operator sees

const AdminTicketTypeOut = Type.Object({
  ...TicketTypeOut.properties,
  event_id: Type.String(),
  paid_count: Type.Integer({ description: 'tickets in paid orders' }),
  held_count: Type.Integer({ description: 'tickets held by pending orders' }),
});

const AdminEventOut = Type.Object({
  ...EventDetailOut.properties,
  organization_id: Type.String(),
  waiver_text: Type.String(),
  ticket_types: Type.Array(AdminTicketTypeOut),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const AdminEventListItemOut = Type.Object({
  ...EventListItemOut.properties,
  organization_id: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

function toAdminTicketType(tt: TicketTypeRow, event: EventRow, org: OrganizationRow) {
  return {
    ...toTicketTypeOut(tt, event.currency, org),
    event_id: tt.eventId,
    paid_count: tt.paidCount,
    held_count: tt.heldCount,
  };
}

function toAdminEvent(found: EventWithTickets) {
  const { event, ticketTypes, organization } = found;
  return {
    ...toEventDetail(event, ticketTypes, organization),
    organization_id: event.organizationId,
    waiver_text: event.waiverText,
    ticket_types: ticketTypes.map((tt) => toAdminTicketType(tt, event, organization)),
    created_at: event.createdAt.toISOString(),
    updated_at: event.updatedAt.toISOString(),
  };
}

function toAdminEventListItem(event: EventRow, org: OrganizationRow) {
  return {
    ...toEventListItem(event, org.paymentsEnabled),
    organization_id: event.organizationId,
    created_at: event.createdAt.toISOString(),
    updated_at: event.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Cross-field checks

const EVENT_DATES = ['starts_at', 'ends_at', 'reg_opens_at', 'reg_closes_at'];
const SALES_DATES = ['sales_start', 'sales_end'];

interface QuestionBody {
  key: string;
  label: string;
  type: 'select' | 'text';
  required?: boolean;
  options?: string[];
  help?: string;
}

function toQuestions(questions: QuestionBody[] | undefined): AdditionalQuestion[] | undefined {
  return questions?.map((q) => ({
    key: q.key,
    label: q.label,
    type: q.type,
    required: q.required ?? false,
    options: q.options ?? [],
    help: q.help ?? '',
  }));
}

/**
 * A ticket type's sales window, with the sides not given taken from `current` (the event's
 * registration window for a new ticket type, the stored window for an update), must not be empty.
 */
function salesWindowErrors(
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

function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0) throw validationError(uniqueErrors(errors));
}

function handleTaken(handle: string | undefined): ApiError {
  return new ApiError(
    'conflict',
    `The handle "${handle ?? ''}" is already used by another event of this organization; choose another.`,
  );
}

// ---------------------------------------------------------------------------------------------

export async function registerEventAdminRoutes(admin: Host, ctx: AppContext) {
  const db = ctx.database.db;

  admin.post(
    '/organizations/:id/events',
    {
      schema: {
        params: IdParams,
        body: EventCreateIn,
        response: { 201: Envelope(AdminEventOut, 'Event created'), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const body = request.body;
      const input: EventInput = {
        ...body,
        additional_questions: toQuestions(body.additional_questions),
        ticket_types: body.ticket_types ?? [],
      };
      const regWindow = { start: new Date(input.reg_opens_at), end: new Date(input.reg_closes_at) };
      throwIfAny([
        ...impossibleDates(body, EVENT_DATES),
        ...input.ticket_types.flatMap((tt, i) => impossibleDates(tt, SALES_DATES, `ticket_types[${i}].`)),
        ...checkEventRules(input, {
          startsAt: new Date(input.starts_at),
          endsAt: new Date(input.ends_at),
          regOpensAt: regWindow.start,
          regClosesAt: regWindow.end,
          waiverRequired: input.waiver_required ?? false,
          waiverVersion: input.waiver_version ?? '',
        }),
        ...input.ticket_types.flatMap((tt, i) => salesWindowErrors(tt, regWindow, `ticket_types[${i}].`)),
      ]);
      let found: EventWithTickets | undefined;
      try {
        found = await db.transaction(async (tx) => {
          const event = await createEvent(tx, org.id, input);
          return findEvent(tx, event.id);
        });
      } catch (error) {
        if (isUniqueViolation(error, 'events_org_handle_key')) throw handleTaken(input.handle);
        throw error;
      }
      return send(reply, 201, 'Event created', toAdminEvent(found!));
    },
  );

  admin.get(
    '/organizations/:id/events',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(Type.Object({ events: Type.Array(AdminEventListItemOut) }), 'Events retrieved'),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const org = await findOrganization(db, request.params.id);
      if (!org) throw notFound('organization');
      const rows = await listEventsOfOrganization(db, org.id);
      return envelope(200, 'Events retrieved', { events: rows.map((row) => toAdminEventListItem(row, org)) });
    },
  );

  admin.get(
    '/events/:id',
    {
      schema: {
        params: IdParams,
        response: { 200: Envelope(AdminEventOut, 'Event retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'evt', 'event');
      const found = await findEvent(db, request.params.id);
      if (!found) throw notFound('event');
      return envelope(200, 'Event retrieved', toAdminEvent(found));
    },
  );

  admin.patch(
    '/events/:id',
    {
      schema: {
        params: IdParams,
        body: EventPatchIn,
        response: { 200: Envelope(AdminEventOut, 'Event updated'), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'evt', 'event');
      const current = await findEvent(db, request.params.id);
      if (!current) throw notFound('event');
      const body = request.body;
      const patch: EventPatch = { ...body, additional_questions: toQuestions(body.additional_questions) };
      const ev = current.event;
      const date = (value: string | undefined, fallback: Date) =>
        value === undefined ? fallback : new Date(value);
      throwIfAny([
        ...impossibleDates(body, EVENT_DATES),
        ...checkEventRules(patch, {
          startsAt: date(patch.starts_at, ev.startsAt),
          endsAt: date(patch.ends_at, ev.endsAt),
          regOpensAt: date(patch.reg_opens_at, ev.regOpensAt),
          regClosesAt: date(patch.reg_closes_at, ev.regClosesAt),
          waiverRequired: patch.waiver_required ?? ev.waiverRequired,
          waiverVersion: patch.waiver_version ?? ev.waiverVersion,
        }),
      ]);
      let found: EventWithTickets | undefined;
      try {
        found = await db.transaction(async (tx) => {
          await updateEvent(tx, ev.id, patch, ctx.clock.now());
          return findEvent(tx, ev.id);
        });
      } catch (error) {
        if (isUniqueViolation(error, 'events_org_handle_key')) throw handleTaken(patch.handle);
        throw error;
      }
      if (!found) throw notFound('event');
      return envelope(200, 'Event updated', toAdminEvent(found));
    },
  );

  admin.post(
    '/events/:id/ticket-types',
    {
      schema: {
        params: IdParams,
        body: TicketTypeIn,
        response: {
          201: Envelope(AdminTicketTypeOut, 'Ticket type created'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'evt', 'event');
      const found = await findEvent(db, request.params.id);
      if (!found) throw notFound('event');
      const body = request.body;
      throwIfAny([
        ...impossibleDates(body, SALES_DATES),
        ...salesWindowErrors(body, { start: found.event.regOpensAt, end: found.event.regClosesAt }),
      ]);
      const row = await addTicketType(db, found.event, body);
      return send(reply, 201, 'Ticket type created', toAdminTicketType(row, found.event, found.organization));
    },
  );

  admin.patch(
    '/ticket-types/:id',
    {
      schema: {
        params: IdParams,
        body: TicketTypePatchIn,
        response: {
          200: Envelope(AdminTicketTypeOut, 'Ticket type updated'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'tt', 'ticket type');
      const current = await findTicketType(db, request.params.id);
      if (!current) throw notFound('ticket type');
      const body = request.body;
      throwIfAny([
        ...impossibleDates(body, SALES_DATES),
        ...salesWindowErrors(body, { start: current.salesStart, end: current.salesEnd }),
      ]);
      const row = await updateTicketType(db, current.id, body);
      if (row === undefined) throw notFound('ticket type');
      if (row === 'capacity_below_sold') {
        const latest = (await findTicketType(db, current.id)) ?? current;
        throw new ApiError(
          'conflict',
          `capacity cannot be lower than the ${latest.paidCount + latest.heldCount} tickets already paid or held.`,
        );
      }
      const found = await findEvent(db, row.eventId);
      if (!found) throw notFound('ticket type');
      return envelope(200, 'Ticket type updated', toAdminTicketType(row, found.event, found.organization));
    },
  );
}
