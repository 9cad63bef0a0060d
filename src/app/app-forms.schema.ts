// The organizer app's form bodies as TypeBox schemas: each text field's label and limit, read by
// readField (form-body.ts), which puts a message next to the field when it is missing or too long,
// and each choice's values, read by readChoice and readChoices. Where the admin API takes the same
// thing its limit and its choices are imported here, never written again; this is a schema file
// so that it may import the admin API's.
import { Type } from 'typebox';
import { MAX_INT, Name } from '../admin/index.ts';
import { EventCreateIn, QuestionIn, TicketTypeIn } from '../admin/events/event-admin.schema.ts';
import { ClientCreateIn, DisplayName, ScopeList } from '../admin/clients/client-admin.schema.ts';
import { InvitationCreateIn } from '../admin/invitations/invitation-admin.schema.ts';
import { ALL_SCOPES } from '../auth/index.ts';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH } from '../members/index.ts';
import { EndpointCreateIn, UrlIn, WEBHOOK_EVENT_TYPES } from '../webhooks/index.ts';
import { NEXT_MAX_LENGTH } from './app-access.ts';
import { IdParam } from './app-input.ts';
import { Checkbox, ChoiceList, limitOf, patternOf, TextField } from './form-body.ts';

/**
 * A display name as the admin API caps what it reads: beyond that it is cut, and its rules (in
 * words, the admin API's own) are checked on what is left.
 */
const DisplayNameField = TextField({
  label: 'Display name',
  max: limitOf(DisplayName, 'maxLength'),
  required: false,
});

export const SignInForm = Type.Object({
  email: TextField({
    label: 'Email',
    max: EMAIL_MAX_LENGTH,
    trim: true,
    missing: 'Enter your email address.',
  }),
  password: TextField({ label: 'Password', max: PASSWORD_MAX_LENGTH, missing: 'Enter your password.' }),
  /** where to go once signed in (a hidden field); one that does not fit is left out */
  next: Type.String({ maxLength: NEXT_MAX_LENGTH }),
});

export const ResetRequestForm = Type.Object({ email: SignInForm.properties.email });

export const NewPasswordForm = Type.Object({
  password: TextField({ label: 'New password', max: PASSWORD_MAX_LENGTH, missing: 'Enter a new password.' }),
});

export const InvitationForm = Type.Object({
  name: TextField({ label: 'Name', max: limitOf(Name, 'maxLength'), trim: true, required: false }),
  password: TextField({ label: 'Password', max: PASSWORD_MAX_LENGTH, missing: 'Enter a password.' }),
});

export const ChangePasswordForm = Type.Object({
  current: TextField({
    label: 'Current password',
    max: PASSWORD_MAX_LENGTH,
    missing: 'Enter your current password.',
  }),
  next: NewPasswordForm.properties.password,
});

/** The organization switcher's select: an id that cannot be one is the 404 page. */
export const SwitchOrganizationForm = Type.Object({ organization_id: IdParam('org') });

export const InviteMemberForm = Type.Object({
  email: TextField({
    label: 'Email',
    max: limitOf(InvitationCreateIn.properties.email, 'maxLength'),
    trim: true,
    missing: 'Enter the email address to invite.',
  }),
  role: InvitationCreateIn.properties.role,
});

export const ChangeRoleForm = Type.Object({ role: InvitationCreateIn.properties.role });

const originMax = limitOf(ClientCreateIn.properties.allowed_domains.items, 'maxLength');
const OriginField = (label: string) =>
  TextField({
    label,
    max: originMax,
    trim: true,
    missing: 'Enter an origin, such as https://shop.example.org.',
  });

/** Adding to or removing from one of a client's two origin lists. */
export const ClientDomainForm = Type.Object({
  list: Type.Union([Type.Literal('allowed_domains'), Type.Literal('return_url_domains')]),
  /** the origin to remove (a hidden field) */
  origin: Type.String({ minLength: 1, maxLength: originMax }),
  allowed_domain: OriginField('Allowed domain'),
  return_url_domain: OriginField('Return URL domain'),
});

const ScopesField = ChoiceList({
  label: 'Scopes',
  choices: ALL_SCOPES,
  max: limitOf(ScopeList, 'maxItems'),
  missing: 'Choose at least one scope.',
  unknown: 'Choose scopes from the list.',
});

export const CreateClientForm = Type.Object({
  name: TextField({
    label: 'Name',
    max: limitOf(Name, 'maxLength'),
    trim: true,
    missing: 'Enter a name for the client.',
  }),
  display_name: DisplayNameField,
  scopes: ScopesField,
});

/**
 * The integration checker's origin and client, typed in its query or carried in the hidden fields
 * of a test send; a client id that cannot be one is left out (the first live client is checked).
 */
export const IntegrationCheckForm = Type.Object({
  origin: TextField({ label: 'The site origin', max: originMax, trim: true, required: false }),
  client: IdParam('cli'),
});

export const WebhookEndpointForm = Type.Object({
  url: TextField({
    label: 'Endpoint URL',
    max: limitOf(UrlIn, 'maxLength'),
    trim: true,
    missing: 'Enter the endpoint URL.',
  }),
  events: ChoiceList({
    label: 'Event types',
    choices: WEBHOOK_EVENT_TYPES,
    max: limitOf(EndpointCreateIn.properties.events, 'maxItems'),
    missing: 'Choose at least one event type.',
    unknown: 'Choose event types from the list.',
  }),
});

const event = EventCreateIn.properties;
const max = (schema: Parameters<typeof limitOf>[0]) => limitOf(schema, 'maxLength');

/** A date and time typed in the form's datetime-local field, read up to the admin API's limit. */
const DateField = (label: string, required: boolean) =>
  TextField({
    label,
    max: max(event.starts_at),
    trim: true,
    required,
    missing: `Enter the ${label.toLowerCase()} date and time.`,
  });

/** The event form's text fields, dates included; questions and choices are read by event-form.ts. */
export const EventForm = Type.Object({
  name: TextField({ label: 'Name', max: max(event.name), trim: true }),
  handle: TextField({ label: 'Web address', max: max(event.handle), trim: true, required: false }),
  description: TextField({ label: 'Description', max: max(event.description), required: false }),
  venue: TextField({ label: 'Venue', max: max(event.venue), trim: true, required: false }),
  organizer_name: TextField({
    label: 'Organizer name',
    max: max(event.organizer_name),
    trim: true,
    required: false,
  }),
  support_email: TextField({
    label: 'Support e-mail',
    max: max(event.support_email),
    trim: true,
    required: false,
  }),
  cover: TextField({ label: 'Cover image address', max: max(event.cover), trim: true, required: false }),
  // a datetime-local value is 16 characters; the field reads a little more to say so in words
  transfer_deadline: TextField({ label: 'Transfers close', max: 40, trim: true, required: false }),
  timezone: TextField({
    label: 'Time zone',
    max: max(event.timezone),
    trim: true,
    missing: 'Enter the time zone, such as Africa/Kampala.',
  }),
  // The API takes exactly three capitals; the form reads a little more to say so in words.
  currency: TextField({
    label: 'Currency',
    max: 20,
    trim: true,
    missing: 'Enter the currency, such as UGX.',
  }),
  waiver_version: TextField({
    label: 'Waiver version',
    max: max(event.waiver_version),
    trim: true,
    required: false,
  }),
  waiver_text: TextField({ label: 'Waiver text', max: max(event.waiver_text), required: false }),
  starts_at: DateField('Start', true),
  ends_at: DateField('End', true),
  reg_opens_at: DateField('Registration opening', true),
  reg_closes_at: DateField('Registration closing', true),
});

/** The event form's choices: who sees the event (the admin API's values) and the waiver. */
export const EventChoiceForm = Type.Object({
  visibility: Type.Enum(event.visibility.enum, { title: 'Visibility' }),
  waiver_required: Checkbox,
  emergency_contact: Checkbox,
  donations_enabled: Checkbox,
  phone_required: Checkbox,
});

const question = QuestionIn.properties;
const ticketType = TicketTypeIn.properties;

/**
 * One row of the event's questions (named q0_key, q0_label...). A row left empty is no question,
 * so none is required here; the labels follow "Question 2:" in the messages.
 */
export const QuestionForm = Type.Object({
  key: TextField({ label: 'The key', max: max(question.key), trim: true, required: false }),
  label: TextField({ label: 'The question', max: max(question.label), trim: true, required: false }),
  type: Type.Enum(question.type.enum, { title: 'Answer' }),
  required: Checkbox,
  // The choices typed as one list: as many as the API takes, each as long, with ", " between.
  options: TextField({
    label: 'The choices',
    max: limitOf(question.options, 'maxItems') * (max(question.options.items) + ', '.length),
    required: false,
  }),
  help: TextField({ label: 'The help text', max: max(question.help), trim: true, required: false }),
});

/** A number typed as text (a price with separators, places, km, years), read up to this length. */
const NUMBER_TYPED_MAX = 32;
const NumberField = (label: string, missing?: string) =>
  TextField({ label, max: NUMBER_TYPED_MAX, trim: true, required: missing !== undefined, missing });

/**
 * The ticket type form's fields (each name prefixed by the form's own); the numbers' bounds are
 * in EVENT_FORM_LIMITS, the sales dates may be left empty (the registration window).
 */
export const TicketTypeForm = Type.Object({
  name: TextField({
    label: 'The name',
    max: max(ticketType.name),
    trim: true,
    missing: 'Enter the name of the ticket type.',
  }),
  description: TextField({
    label: 'Description',
    max: max(ticketType.description),
    trim: true,
    required: false,
  }),
  price: NumberField('Price'),
  capacity: NumberField('Places'),
  distance_km: NumberField('Distance'),
  min_age: NumberField('Minimum age'),
  sales_start: TextField({
    label: 'Sales start',
    max: max(ticketType.sales_start),
    trim: true,
    required: false,
  }),
  sales_end: TextField({ label: 'Sales end', max: max(ticketType.sales_end), trim: true, required: false }),
});

/** The admin API's limits the event and ticket type forms check in their own words. */
export const EVENT_FORM_LIMITS = {
  questions: limitOf(event.additional_questions, 'maxItems'),
  choices: limitOf(question.options, 'maxItems'),
  choice: max(question.options.items),
  distanceKm: limitOf(ticketType.distance_km, 'maximum'),
  minAge: limitOf(ticketType.min_age, 'maximum'),
  capacity: MAX_INT,
} as const;

/** The admin API's patterns the event forms check in their own words (a value left empty is not checked). */
export const EVENT_FORM_PATTERNS = {
  email: patternOf(event.support_email),
  url: patternOf(event.cover),
  questionKey: patternOf(question.key),
  handle: patternOf(event.handle),
  currency: patternOf(event.currency),
} as const;

/**
 * One ticket type's bib range on the start list, read as first_<ticket type id> and
 * last_<ticket type id>; both empty means none. Whether they are numbers is the action's question.
 */
export const BibRangeForm = Type.Object({
  first: TextField({ label: 'First number', max: 20, trim: true, required: false }),
  last: TextField({ label: 'Last number', max: 20, trim: true, required: false }),
});

/** The owners' settings form: the organization's name, support e-mail, time zone and currency. */
export const OrganizationSettingsForm = Type.Object({
  name: TextField({ label: 'Name', max: max(Name), trim: true }),
  support_email: TextField({ label: 'Support e-mail', max: EMAIL_MAX_LENGTH, trim: true, required: false }),
  timezone: TextField({
    label: 'Time zone',
    max: 64,
    trim: true,
    missing: 'Enter the time zone, such as Africa/Kampala.',
  }),
  currency: TextField({
    label: 'Currency',
    max: 20,
    trim: true,
    missing: 'Enter the currency, such as UGX.',
  }),
});
